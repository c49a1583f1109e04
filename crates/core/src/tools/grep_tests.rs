use pretty_assertions::assert_eq;

use super::*;
use crate::tools::search_test_support::Project;
use crate::tools::search_walk::MAX_RESULT_LINE_CHARS;

fn project() -> Project {
    let project = Project::new();
    project
        .file(".gitignore", "target/\n*.log\n", 50)
        .file("src/lib.rs", "pub mod parser;\n\nfn helper() {}\n", 30)
        .file(
            "src/parser.rs",
            "use std::fmt;\n\npub fn parse(input: &str) -> Option<u32> {\n    input.parse().ok()\n}\n\npub fn Parse_all() {}\n",
            10,
        )
        .file("README.md", "A parser.\n", 20)
        .file("target/debug/out.rs", "pub fn parse() {}\n", 1)
        .file("build.log", "parse failed\n", 1)
        .file(".hidden/notes.rs", "pub fn parse() {}\n", 1);
    project
}

#[tokio::test]
async fn files_with_matches_lists_newest_first_and_skips_ignored_and_hidden_files() {
    let project = project();
    let output = project
        .call(&GrepTool, serde_json::json!({"pattern": "parse"}))
        .await;
    assert_eq!(
        output,
        ToolOutput::ok("src/parser.rs\nREADME.md\nsrc/lib.rs\n")
    );
}

#[tokio::test]
async fn content_mode_numbers_lines_with_context_and_separators() {
    let project = project();
    let output = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "fn \\w+", "path": "src/parser.rs", "output_mode": "content", "context": 1}),
        )
        .await;
    insta::assert_snapshot!(output.text, @r"
    src/parser.rs-2-
    src/parser.rs:3:pub fn parse(input: &str) -> Option<u32> {
    src/parser.rs-4-    input.parse().ok()
    --
    src/parser.rs-6-
    src/parser.rs:7:pub fn Parse_all() {}
    ");
    assert!(output.success);
}

#[tokio::test]
async fn count_mode_and_case_insensitive_matching() {
    let project = project();
    let exact = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "Parse", "path": "src", "output_mode": "count"}),
        )
        .await;
    assert_eq!(exact, ToolOutput::ok("src/parser.rs:1\n"));
    let folded = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "Parse", "path": "src", "output_mode": "count", "case_insensitive": true}),
        )
        .await;
    assert_eq!(folded, ToolOutput::ok("src/lib.rs:1\nsrc/parser.rs:3\n"));
}

#[tokio::test]
async fn a_glob_without_a_slash_matches_file_names_and_one_with_a_slash_paths() {
    let project = project();
    let by_name = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "parse", "glob": "*.md"}),
        )
        .await;
    assert_eq!(by_name, ToolOutput::ok("README.md\n"));
    let by_path = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "parse", "glob": "src/*.rs"}),
        )
        .await;
    assert_eq!(by_path, ToolOutput::ok("src/parser.rs\nsrc/lib.rs\n"));
}

#[tokio::test]
async fn results_over_the_limit_end_with_a_marker_saying_how_many_were_left_out() {
    let project = Project::new();
    let body: String = (1..=30).map(|n| format!("match {n}\n")).collect();
    project.file("many.txt", &body, 1);
    let output = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "match", "output_mode": "content", "limit": 3}),
        )
        .await;
    insta::assert_snapshot!(output.text, @r"
    many.txt:1:match 1
    many.txt:2:match 2
    many.txt:3:match 3
    ... 27 more lines not shown (30 matching lines in 1 files); narrow the pattern, path or glob, or page with a larger limit
    ");
}

#[tokio::test]
async fn long_lines_are_cut_with_a_marker_and_binary_files_are_skipped() {
    let project = Project::new();
    project.file("long.txt", &format!("needle {}\n", "x".repeat(2_000)), 1);
    std::fs::write(project.cwd.join("blob.bin"), b"needle\x00\x01\x02").unwrap();
    let output = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "needle", "output_mode": "content"}),
        )
        .await;
    let lines: Vec<&str> = output.text.lines().collect();
    assert_eq!(lines.len(), 1, "{}", output.text);
    assert!(lines[0].starts_with("long.txt:1:needle x"));
    assert!(lines[0].ends_with("… [line cut]"));
    assert_eq!(
        lines[0].chars().count(),
        "long.txt:1:".len() + MAX_RESULT_LINE_CHARS + "… [line cut]".chars().count()
    );
}

#[tokio::test]
async fn no_match_bad_pattern_and_paths_outside_the_working_directory() {
    let project = project();
    let none = project
        .call(&GrepTool, serde_json::json!({"pattern": "zebra"}))
        .await;
    assert_eq!(
        none,
        ToolOutput::ok("No matches for zebra in the working directory.\n")
    );
    let bad = project
        .call(&GrepTool, serde_json::json!({"pattern": "fn ("}))
        .await;
    assert!(!bad.success);
    assert!(
        bad.text.starts_with("Error: grep: invalid pattern"),
        "{}",
        bad.text
    );
    let outside = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "root", "path": "../.."}),
        )
        .await;
    assert!(!outside.success, "{}", outside.text);
    let missing = project
        .call(
            &GrepTool,
            serde_json::json!({"pattern": "x", "path": "nope"}),
        )
        .await;
    assert_eq!(
        missing,
        ToolOutput::error("Error: grep: nope does not exist in the working directory")
    );
}
