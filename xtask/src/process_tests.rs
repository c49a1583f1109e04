use pretty_assertions::assert_eq;

use super::Cmd;

#[test]
fn display_quotes_words_a_shell_would_split() {
    let cmd = Cmd::cargo(["doc", "--no-deps"])
        .arg("it's here")
        .env("RUSTDOCFLAGS", "-D warnings");
    assert_eq!(
        cmd.display(),
        r"RUSTDOCFLAGS='-D warnings' cargo doc --no-deps 'it'\''s here'"
    );
}

#[test]
fn read_stdout_returns_the_output_of_a_successful_command() {
    let stdout = Cmd::cargo(["--version"]).read_stdout().unwrap();
    assert!(stdout.starts_with("cargo "), "{stdout}");
}

#[test]
fn a_failing_command_is_named_with_its_status_and_stderr() {
    let err = Cmd::cargo(["no-such-subcommand-for-xtask-tests"])
        .read_stdout()
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("`cargo no-such-subcommand-for-xtask-tests` failed: exit status: "),
        "{err}"
    );
    assert!(err.contains("no such command"), "{err}");
}

#[test]
fn a_program_that_cannot_start_is_reported() {
    let cmd = Cmd::new("xtask-test-no-such-program");
    let err = format!("{:#}", cmd.run().unwrap_err());
    assert!(
        err.starts_with("could not start `xtask-test-no-such-program`"),
        "{err}"
    );
    assert!(!cmd.succeeds_quietly());
}

#[test]
fn env_is_passed_to_the_child_only() {
    let stdout = Cmd::cargo(["metadata", "--format-version", "1", "--no-deps"])
        .env("XTASK_TEST_CHILD_ONLY", "1")
        .read_stdout()
        .unwrap();
    assert!(stdout.contains("\"workspace_root\""));
    assert_eq!(std::env::var_os("XTASK_TEST_CHILD_ONLY"), None);
}

#[test]
fn a_command_in_another_directory_runs_there_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "").unwrap();
    let cmd = Cmd::new("ls").current_dir(dir.path());
    assert_eq!(cmd.display(), format!("cd {} && ls", dir.path().display()));
    let (ok, stdout) = cmd.run_capturing_stdout().unwrap();
    assert!(ok);
    assert_eq!(stdout, "marker.txt\n");
}
