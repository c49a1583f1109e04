//! What the driver refuses or leaves alone: a dirty tree, the user's uncommitted work, ignored
//! files; and the repositories it must still handle: no commits yet, a detached HEAD, paths
//! with spaces, renames.

use agentctx_loop_driver::LoopCondition;
use agentctx_loop_driver::LoopConfig;
use agentctx_loop_driver::LoopError;
use agentctx_loop_driver::LoopOutcome;
use agentctx_model::ScriptedModelClient;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::scripted_agent::Edit;
use super::scripted_agent::ScriptedAgent;
use super::scripted_agent::Turn;
use super::scripted_agent::driver;
use super::test_repo::TestRepo;

const TASK: &str = "Tidy the docs";

#[tokio::test]
async fn a_dirty_tree_is_refused() {
    let repo = TestRepo::with_commit();
    repo.write("draft.md", "my unfinished work\n");
    repo.write("README.md", "# demo, edited by hand\n");
    let agent = ScriptedAgent::new(repo.path(), vec![Turn::write("a", "a")]);
    let model = ScriptedModelClient::new("summariser");
    let error = driver(&repo, agent.clone(), &model, LoopConfig::default())
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap_err();
    match error {
        LoopError::DirtyTree { files } => assert_eq!(files, vec!["README.md", "draft.md"]),
        other => panic!("expected DirtyTree, got {other:?}"),
    }
    assert!(agent.prompts().is_empty(), "the agent never ran");
    assert_eq!(repo.commits().len(), 1);
}

#[tokio::test]
async fn with_allow_dirty_the_users_work_never_enters_a_commit() {
    let repo = TestRepo::with_commit();
    repo.write("draft.md", "my unfinished work\n");
    repo.write("README.md", "# demo, edited by hand\n");
    let agent = ScriptedAgent::new(repo.path(), vec![Turn::write("src/new.rs", "fn x() {}\n")]);
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent, &model, LoopConfig::default())
        .allow_dirty(true)
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(result.context.excluded_paths, vec!["README.md", "draft.md"]);
    assert_eq!(
        result.context.iterations[0].changed_files,
        vec!["src/new.rs"]
    );
    assert_eq!(repo.files_in("HEAD"), vec!["README.md", "src/new.rs"]);
    assert_eq!(repo.git(&["show", "HEAD:README.md"]), "# demo");
    // The user's changes are still there, uncommitted.
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "M README.md\n?? draft.md"
    );
}

#[tokio::test]
async fn ignored_files_are_never_committed() {
    let repo = TestRepo::with_commit();
    repo.write(".gitignore", "target/\n*.log\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "--quiet", "-m", "ignore build output"]);
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::edits(vec![
            Edit::Write("target/debug/app", "binary".to_owned()),
            Edit::Write("build.log", "log".to_owned()),
            Edit::Write("src/main.rs", "fn main() {}\n".to_owned()),
        ])],
    );
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent, &model, LoopConfig::default())
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        result.context.iterations[0].changed_files,
        vec!["src/main.rs"]
    );
    assert_eq!(
        repo.files_in("HEAD"),
        vec![".gitignore", "README.md", "src/main.rs"]
    );
}

#[tokio::test]
async fn a_repository_with_no_commits_gets_its_first_commit() {
    let repo = TestRepo::empty();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![
            Turn::write("main.rs", "fn main() {}\n"),
            Turn::write("lib.rs", "\n"),
        ],
    );
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent.clone(), &model, LoopConfig::default())
        .run(LoopCondition::iterations(2), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(result.context.base_commit_id, "");
    assert_eq!(repo.commits().len(), 2);
    assert_eq!(
        result.context.iterations[0].commit_id.as_deref(),
        Some(repo.commits()[1].as_str())
    );
    assert!(
        agent.prompts()[1].contains("Base commit: none (the repository had no commits yet)\n"),
        "{}",
        agent.prompts()[1]
    );
    assert!(
        result
            .to_string()
            .contains("base commit: none (the repository had no commits)")
    );
}

#[tokio::test]
async fn a_detached_head_moves_and_no_branch_does() {
    let repo = TestRepo::with_commit();
    repo.git(&["checkout", "--quiet", "--detach"]);
    let base = repo.head();
    let agent = ScriptedAgent::new(repo.path(), vec![Turn::write("a", "a")]);
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent, &model, LoopConfig::default())
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(result.context.base_commit_id, base);
    let commit = result.context.iterations[0].commit_id.clone().unwrap();
    assert_eq!(repo.head(), commit);
    assert_eq!(repo.git(&["rev-parse", "main"]), base, "main did not move");
    assert_eq!(repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]), "HEAD");
}

#[tokio::test]
async fn paths_with_spaces_and_renames_are_committed_exactly() {
    let repo = TestRepo::with_commit();
    repo.write("old name.txt", "content that moves\n");
    repo.git(&["add", "old name.txt"]);
    repo.git(&["commit", "--quiet", "-m", "add a file to rename"]);
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::edits(vec![
            Edit::Rename("old name.txt", "new name.txt"),
            Edit::Write("docs/my notes.md", "spaces\n".to_owned()),
            Edit::Write("weird -> name.md", "arrow\n".to_owned()),
            Edit::Remove("README.md"),
        ])],
    );
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent, &model, LoopConfig::default())
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    let mut files = result.context.iterations[0].changed_files.clone();
    files.sort();
    assert_eq!(
        files,
        vec![
            "README.md",
            "docs/my notes.md",
            "new name.txt",
            "old name.txt",
            "weird -> name.md"
        ]
    );
    assert_eq!(
        repo.files_in("HEAD"),
        vec!["docs/my notes.md", "new name.txt", "weird -> name.md"]
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[tokio::test]
async fn an_agent_that_commits_by_itself_still_shows_its_work() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::edits(vec![
            Edit::Write("committed.rs", "1\n".to_owned()),
            Edit::Commit("wip"),
            Edit::Write("left over.rs", "2\n".to_owned()),
        ])],
    );
    let model = ScriptedModelClient::new("summariser");
    let result = driver(&repo, agent, &model, LoopConfig::default())
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    let record = &result.context.iterations[0];
    assert_eq!(record.changed_files, vec!["left over.rs", "committed.rs"]);
    // The driver committed what was left on top of the agent's own commit.
    assert_eq!(record.commit_id.as_deref(), Some(repo.head().as_str()));
    assert_eq!(repo.commits().len(), 3);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}
