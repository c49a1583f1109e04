use pretty_assertions::assert_eq;

use super::*;
use crate::tools::search_test_support::Project;

fn project() -> Project {
    let project = Project::new();
    project
        .file(".gitignore", "node_modules/\n", 90)
        .file("Cargo.toml", "[package]\n", 40)
        .file("src/main.rs", "fn main() {}\n", 30)
        .file("src/app/view.rs", "\n", 5)
        .file("src/app/view.ts", "\n", 6)
        .file("node_modules/pkg/index.rs", "\n", 1)
        .file(".github/ci.toml", "\n", 1);
    project
}

#[tokio::test]
async fn double_star_matches_every_depth_newest_first() {
    let project = project();
    let output = project
        .call(&GlobTool, serde_json::json!({"pattern": "**/*.rs"}))
        .await;
    assert_eq!(output, ToolOutput::ok("src/app/view.rs\nsrc/main.rs\n"));
}

#[tokio::test]
async fn a_pattern_without_a_slash_matches_only_the_directory_itself() {
    let project = project();
    let top = project
        .call(&GlobTool, serde_json::json!({"pattern": "*.toml"}))
        .await;
    assert_eq!(top, ToolOutput::ok("Cargo.toml\n"));
    let under = project
        .call(
            &GlobTool,
            serde_json::json!({"pattern": "*.{rs,ts}", "path": "src/app"}),
        )
        .await;
    assert_eq!(under, ToolOutput::ok("src/app/view.rs\nsrc/app/view.ts\n"));
}

#[tokio::test]
async fn results_over_the_limit_end_with_a_marker() {
    let project = Project::new();
    for n in 0..5 {
        project.file(&format!("f{n}.txt"), "", 10 - n);
    }
    let output = project
        .call(
            &GlobTool,
            serde_json::json!({"pattern": "*.txt", "limit": 2}),
        )
        .await;
    insta::assert_snapshot!(output.text, @r"
    f4.txt
    f3.txt
    ... 3 more files not shown (5 match); narrow the pattern or the path
    ");
}

#[tokio::test]
async fn no_match_and_invalid_patterns_are_told_apart() {
    let project = project();
    let none = project
        .call(&GlobTool, serde_json::json!({"pattern": "**/*.py"}))
        .await;
    assert_eq!(none, ToolOutput::ok("No files match **/*.py.\n"));
    let bad = project
        .call(&GlobTool, serde_json::json!({"pattern": "src/[a"}))
        .await;
    assert!(!bad.success);
    assert!(
        bad.text.starts_with("Error: glob: invalid pattern"),
        "{}",
        bad.text
    );
    let file = project
        .call(
            &GlobTool,
            serde_json::json!({"pattern": "*", "path": "Cargo.toml"}),
        )
        .await;
    assert_eq!(
        file,
        ToolOutput::error("Error: glob: Cargo.toml is not a directory")
    );
}
