use pretty_assertions::assert_eq;

use super::*;
use crate::tools::search_test_support::Project;

fn project() -> Project {
    let project = Project::new();
    project
        .file(".gitignore", "target/\n", 1)
        .file("Cargo.toml", "", 1)
        .file("src/lib.rs", "", 1)
        .file("src/tools/grep.rs", "", 1)
        .file("src/tools/deep/deeper/x.rs", "", 1)
        .file("target/debug/app", "", 1)
        .file(".git/HEAD", "", 1);
    project
}

#[tokio::test]
async fn lists_two_levels_as_an_indented_tree_without_ignored_entries() {
    let project = project();
    let output = project.call(&ListDirTool, serde_json::json!({})).await;
    insta::assert_snapshot!(output.text, @r"
    ./
    Cargo.toml
    src/
      lib.rs
      tools/
    ");
}

#[tokio::test]
async fn depth_and_paging() {
    let project = project();
    let deep = project
        .call(
            &ListDirTool,
            serde_json::json!({"path": "src/tools", "depth": 3}),
        )
        .await;
    insta::assert_snapshot!(deep.text, @r"
    src/tools/
    deep/
      deeper/
        x.rs
    grep.rs
    ");
    let page = project
        .call(
            &ListDirTool,
            serde_json::json!({"path": "src", "limit": 1, "offset": 2}),
        )
        .await;
    insta::assert_snapshot!(page.text, @r"
    src/
    tools/
    ... 2 more entries; list on with offset 3, or list a subdirectory
    ");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors() {
    let project = project();
    let file = project
        .call(&ListDirTool, serde_json::json!({"path": "Cargo.toml"}))
        .await;
    assert_eq!(
        file,
        ToolOutput::error("Error: list_dir: Cargo.toml is not a directory")
    );
    let deep = project
        .call(&ListDirTool, serde_json::json!({"depth": 99}))
        .await;
    assert_eq!(
        deep,
        ToolOutput::error(format!(
            "Error: list_dir: depth must be between 1 and {MAX_LIST_DEPTH}"
        ))
    );
    let past = project
        .call(
            &ListDirTool,
            serde_json::json!({"path": "src", "offset": 9}),
        )
        .await;
    assert_eq!(
        past,
        ToolOutput::error("Error: list_dir: offset 9 is past the last entry (4)")
    );
}
