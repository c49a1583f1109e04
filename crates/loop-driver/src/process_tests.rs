use pretty_assertions::assert_eq;

use super::GitCommand;
use super::GitCommandError;

#[test]
fn display_quotes_words_with_spaces() {
    let command = GitCommand::new("/tmp/a repo").args(["add", "--", "my file.txt"]);
    assert_eq!(
        command.display(),
        "cd '/tmp/a repo' && git add -- 'my file.txt'"
    );
}

#[test]
fn a_failing_command_is_a_typed_error_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let error = GitCommand::new(dir.path())
        .args(["rev-parse", "--show-toplevel"])
        .envs([("GIT_CEILING_DIRECTORIES", dir.path())])
        .run()
        .unwrap_err();
    match error {
        GitCommandError::Failed {
            command,
            stderr,
            code,
            ..
        } => {
            assert!(
                command.ends_with("git rev-parse --show-toplevel"),
                "{command}"
            );
            assert!(stderr.contains("not a git repository"), "{stderr}");
            assert_eq!(code, Some(128));
        }
        other => panic!("expected Failed, got {other:?}"),
    }
}

#[test]
fn stdin_is_fed_to_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let output = GitCommand::new(dir.path())
        .args(["hash-object", "--stdin"])
        .stdin(b"hello\n".to_vec())
        .run()
        .unwrap();
    // `printf 'hello\n' | git hash-object --stdin`
    assert_eq!(
        output.stdout_trimmed(),
        "ce013625030ba8dba906f756967f9e9ca394464a"
    );
}

#[test]
fn a_missing_directory_is_a_spawn_error() {
    let error = GitCommand::new("/nonexistent/agentctx-loop-driver")
        .arg("status")
        .run()
        .unwrap_err();
    assert!(matches!(error, GitCommandError::Spawn { .. }), "{error:?}");
}
