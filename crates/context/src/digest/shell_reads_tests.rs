use pretty_assertions::assert_eq;
use serde_json::json;

use super::ShellFileRead;
use super::local_shell_file_read;
use super::shell_file_read;
use super::shell_output;

fn read(path: &str, first: Option<usize>, last: Option<usize>, numbered: bool) -> ShellFileRead {
    ShellFileRead {
        path: path.to_string(),
        workdir: Some("/repo".to_string()),
        first_line: first,
        last_line: last,
        numbered,
    }
}

fn shell_command(command: &str) -> Option<ShellFileRead> {
    shell_file_read(
        "shell_command",
        &json!({"command": command, "workdir": "/repo"}).to_string(),
    )
}

#[test]
fn commands_that_print_one_file() {
    assert_eq!(
        shell_command("cat src/dates.rs"),
        Some(read("src/dates.rs", None, None, false))
    );
    assert_eq!(
        shell_command("cat -n src/dates.rs"),
        Some(read("src/dates.rs", None, None, true))
    );
    assert_eq!(
        shell_command("nl -ba src/dates.rs"),
        Some(read("src/dates.rs", None, None, true))
    );
    assert_eq!(
        shell_command("nl -b a src/dates.rs"),
        Some(read("src/dates.rs", None, None, true))
    );
    assert_eq!(
        shell_command("sed -n 1,80p src/report.rs"),
        Some(read("src/report.rs", Some(1), Some(80), false))
    );
    assert_eq!(
        shell_command("sed -n '36,60p' 'src/import/csv.rs'"),
        Some(read("src/import/csv.rs", Some(36), Some(60), false))
    );
    assert_eq!(
        shell_command("sed -n '7p' Makefile"),
        Some(read("Makefile", Some(7), Some(7), false))
    );
    assert_eq!(
        shell_command("sed -n '40,$p' src/a.rs"),
        Some(read("src/a.rs", Some(40), None, false))
    );
    assert_eq!(
        shell_command("head -20 tests/fixtures/household.tally"),
        Some(read(
            "tests/fixtures/household.tally",
            Some(1),
            Some(20),
            false
        ))
    );
    assert_eq!(
        shell_command("head -n 5 README.md"),
        Some(read("README.md", Some(1), Some(5), false))
    );
}

#[test]
fn a_leading_cd_sets_the_directory() {
    assert_eq!(
        shell_command("cd crates/core && cat Cargo.toml"),
        Some(ShellFileRead {
            workdir: Some("/repo/crates/core".to_string()),
            ..read("Cargo.toml", None, None, false)
        })
    );
    assert_eq!(
        shell_command("cd /elsewhere && cat a.txt"),
        Some(ShellFileRead {
            workdir: Some("/elsewhere".to_string()),
            ..read("a.txt", None, None, false)
        })
    );
}

#[test]
fn anything_else_is_not_a_read_of_one_file() {
    for command in [
        "cat a.rs b.rs",
        "cat src/a.rs | head",
        "sed -n 1,80p src/a.rs && cargo test",
        "sed -i 's/a/b/' src/a.rs",
        "sed -n '/fn/p' src/a.rs",
        "nl src/a.rs",
        "rg -n foo src/a.rs",
        "cat *.rs",
        "cat $FILE",
        "cat",
        "tail -5 src/a.rs",
        "echo hi > a.txt; cat a.txt",
    ] {
        assert_eq!(shell_command(command), None, "{command}");
    }
    // Not a shell tool.
    assert_eq!(
        shell_file_read("Bash", &json!({"command": "cat a.rs"}).to_string()),
        None
    );
}

#[test]
fn codex_call_shapes() {
    // `shell` with an argv.
    assert_eq!(
        shell_file_read(
            "shell",
            &json!({"command": ["bash", "-lc", "cat src/a.rs"], "workdir": "/repo"}).to_string()
        ),
        Some(read("src/a.rs", None, None, false))
    );
    // Unified exec.
    assert_eq!(
        shell_file_read(
            "exec_command",
            &json!({"cmd": "nl -ba src/a.rs", "workdir": "/repo"}).to_string()
        ),
        Some(read("src/a.rs", None, None, true))
    );
    // A local shell call.
    assert_eq!(
        local_shell_file_read(&json!({
            "type": "exec", "command": ["bash", "-lc", "cat src/a.rs"],
            "working_directory": "/repo"
        })),
        Some(read("src/a.rs", None, None, false))
    );
}

#[test]
fn shell_outputs() {
    let freeform = shell_output("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfn main() {}\n");
    assert_eq!(freeform.exit_code, Some(0));
    assert_eq!(freeform.text, "fn main() {}\n");
    assert!(!freeform.truncated);

    let unified = shell_output(
        "Chunk ID: 6a493e\nWall time: 0.0002 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\nfn main() {}\n",
    );
    assert_eq!(unified.exit_code, Some(0));
    assert_eq!(unified.text, "fn main() {}\n");

    let json = shell_output(
        r#"{"output":"fn main() {}\n","metadata":{"exit_code":0,"duration_seconds":0.1}}"#,
    );
    assert_eq!(json.exit_code, Some(0));
    assert_eq!(json.text, "fn main() {}\n");

    let failed = shell_output(
        "Exit code: 1\nWall time: 0 seconds\nOutput:\ncat: a.rs: No such file or directory\n",
    );
    assert_eq!(failed.exit_code, Some(1));

    let cut = shell_output(
        "Exit code: 0\nWall time: 0 seconds\nTotal output lines: 9000\nOutput:\nline 1\n…120 tokens truncated…line 9000\n",
    );
    assert!(cut.truncated);
    let warned = shell_output(
        "Exit code: 0\nWall time: 0 seconds\nOutput:\nWarning: truncated output (original token count: 9)\nTotal output lines: 3\n\na\n…1 tokens truncated…c\n",
    );
    assert!(warned.truncated);
    assert_eq!(warned.text, "a\n…1 tokens truncated…c\n");
}

#[test]
fn the_first_cut_marker_is_the_earliest_of_any() {
    let texts = [
        "",
        "nothing cut",
        "a …3 tokens truncated… b",
        "a [... omitted 1 of 2 lines ...] b …3 tokens truncated… c",
        "é😀 …4 chars truncated… x …3 tokens truncated…",
        "…3 tokens truncated……4 chars truncated…",
        "[... omitted  …9 chars truncated…",
    ];
    for text in texts {
        let earliest = [" tokens truncated…", " chars truncated…", "[... omitted "]
            .iter()
            .filter_map(|marker| text.find(marker))
            .min();
        assert_eq!(super::first_cut_marker(text), earliest, "{text:?}");
    }
}
