//! `GitRepo` against real repositories: every operation, and every failure as a typed error.

use std::path::PathBuf;

use agentctx_loop_driver::GitError;
use agentctx_loop_driver::GitRepo;
use agentctx_loop_driver::StatusEntry;
use pretty_assertions::assert_eq;

use super::test_repo::TestRepo;

fn entry(index: char, worktree: char, path: &str, original: Option<&str>) -> StatusEntry {
    StatusEntry {
        index,
        worktree,
        path: path.to_owned(),
        original_path: original.map(str::to_owned),
    }
}

#[test]
fn head_is_none_in_a_repository_with_no_commits() {
    let repo = TestRepo::empty();
    let git = repo.git_repo();
    assert_eq!(git.head_commit().unwrap(), None);
    assert_eq!(git.changed_files_since(None).unwrap(), Vec::<String>::new());
    repo.write("first.txt", "1\n");
    let changes = git.uncommitted_changes().unwrap();
    let commit = git.commit_if_needed("first", &changes).unwrap().unwrap();
    assert_eq!(git.head_commit().unwrap(), Some(commit));
    assert_eq!(git.changed_files_since(None).unwrap(), vec!["first.txt"]);
}

#[test]
fn head_works_detached() {
    let repo = TestRepo::with_commit();
    let head = repo.head();
    repo.git(&["checkout", "--quiet", "--detach"]);
    assert_eq!(repo.git_repo().head_commit().unwrap(), Some(head));
}

#[test]
fn status_is_exact_for_spaces_renames_and_untracked_folders() {
    let repo = TestRepo::with_commit();
    repo.write("a file.txt", "x\n");
    repo.git(&["add", "a file.txt"]);
    repo.git(&["commit", "--quiet", "-m", "add"]);
    repo.git(&["mv", "a file.txt", "the -> file.txt"]);
    repo.write("new dir/inner file.md", "y\n");
    repo.write("README.md", "changed\n");
    let changes = repo.git_repo().uncommitted_changes().unwrap();
    assert_eq!(
        changes,
        vec![
            entry(' ', 'M', "README.md", None),
            entry('R', ' ', "the -> file.txt", Some("a file.txt")),
            entry('?', '?', "new dir/inner file.md", None),
        ]
    );
}

#[test]
fn changed_files_since_the_base() {
    let repo = TestRepo::with_commit();
    let base = repo.head();
    repo.write("src/one two.rs", "1\n");
    repo.write("README.md", "edited\n");
    let git = repo.git_repo();
    let changes = git.uncommitted_changes().unwrap();
    git.commit_if_needed("two files", &changes).unwrap();
    assert_eq!(
        git.changed_files_since(Some(&base)).unwrap(),
        vec!["README.md", "src/one two.rs"]
    );
}

#[test]
fn nothing_to_commit_is_none() {
    let repo = TestRepo::with_commit();
    let git = repo.git_repo();
    assert_eq!(git.commit_if_needed("nothing", &[]).unwrap(), None);
    assert_eq!(repo.commits().len(), 1);
}

#[test]
fn a_failing_hook_is_a_typed_error_and_the_changes_stay() {
    let repo = TestRepo::with_commit();
    repo.hook("echo 'pre-commit: refusing' >&2\nexit 1");
    repo.write("a.txt", "a\n");
    let git = repo.git_repo();
    let changes = git.uncommitted_changes().unwrap();
    let error = git.commit_if_needed("msg", &changes).unwrap_err();
    match &error {
        GitError::CommitFailed { stderr, code, .. } => {
            assert!(stderr.contains("pre-commit: refusing"), "{stderr}");
            assert_eq!(*code, Some(1));
        }
        other => panic!("expected CommitFailed, got {other:?}"),
    }
    assert_eq!(repo.commits().len(), 1);
    assert_eq!(repo.git(&["status", "--porcelain"]), "A  a.txt");
}

#[test]
fn only_the_given_paths_are_committed_even_when_others_are_staged() {
    let repo = TestRepo::with_commit();
    repo.write("users.txt", "staged by the user\n");
    repo.git(&["add", "users.txt"]);
    repo.write("agent.txt", "the agent's\n");
    let git = repo.git_repo();
    let paths = vec!["agent.txt".to_owned()];
    git.stage(&paths).unwrap();
    let commit = git.commit_paths("agent only", &paths).unwrap();
    assert!(commit.is_some());
    assert_eq!(repo.files_in("HEAD"), vec!["README.md", "agent.txt"]);
    assert_eq!(repo.git(&["status", "--porcelain"]), "A  users.txt");
}

#[test]
fn a_folder_outside_any_repository_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = TestRepo::env();
    env.push(("GIT_CEILING_DIRECTORIES".into(), dir.path().into()));
    let error = GitRepo::discover(dir.path(), env).unwrap_err();
    assert!(
        matches!(error, GitError::NotARepository { .. }),
        "{error:?}"
    );
}

#[test]
fn the_latest_plan_file_is_the_newest_markdown_file() {
    let repo = TestRepo::with_commit();
    let plans = repo.path().join(".agentctx/plans");
    std::fs::create_dir_all(&plans).unwrap();
    let old = plans.join("old.md");
    let new = plans.join("new.md");
    std::fs::write(&old, "old plan").unwrap();
    std::fs::write(&new, "new plan").unwrap();
    std::fs::write(plans.join("notes.txt"), "not a plan").unwrap();
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3_600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(past)
        .unwrap();
    let git = repo.git_repo();
    let dirs = [
        PathBuf::from(".claude/plans"),
        PathBuf::from(".agentctx/plans"),
    ];
    let plan = git.latest_plan_file(&dirs).unwrap();
    assert_eq!(plan.content, "new plan");
    assert!(git.latest_plan_file(&[PathBuf::from("missing")]).is_none());
}
