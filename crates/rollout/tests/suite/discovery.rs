use std::fs::File;
use std::path::Path;
use std::time::Duration;
use std::time::SystemTime;

use agentctx_rollout::RolloutError;
use agentctx_rollout::discover_sessions;
use pretty_assertions::assert_eq;

fn touch(path: &Path, modified: Option<SystemTime>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = File::create(path).unwrap();
    if let Some(modified) = modified {
        file.set_modified(modified).unwrap();
    }
}

#[test]
fn sessions_tree_is_listed_newest_first_by_file_name_time() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path();
    let now = SystemTime::now();
    // File-name times win over modification times.
    let names = [
        "sessions/2025/10/30/rollout-2025-10-30T23-59-01-aaaa.jsonl",
        "sessions/2025/11/02/rollout-2025-11-02T09-00-00-bbbb.jsonl",
        "sessions/2025/11/02/rollout-2025-11-02T17-45-10-cccc.jsonl",
        "sessions/2026/01/05/rollout-2026-01-05T08-00-00-dddd.jsonl",
    ];
    for name in names {
        touch(&root.join(name), Some(now));
    }
    touch(&root.join("sessions/2025/11/02/notes.txt"), None);
    let found: Vec<String> = discover_sessions(root)
        .unwrap()
        .into_iter()
        .map(|session| {
            session
                .path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        found,
        vec![
            "sessions/2026/01/05/rollout-2026-01-05T08-00-00-dddd.jsonl",
            "sessions/2025/11/02/rollout-2025-11-02T17-45-10-cccc.jsonl",
            "sessions/2025/11/02/rollout-2025-11-02T09-00-00-bbbb.jsonl",
            "sessions/2025/10/30/rollout-2025-10-30T23-59-01-aaaa.jsonl",
        ]
    );
}

#[test]
fn claude_projects_fall_back_to_modification_time_and_include_subagents() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path();
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_760_000_000);
    touch(
        &root.join("-home-mira-src-tally/7f3c9d2e.jsonl"),
        Some(base + Duration::from_secs(30)),
    );
    touch(
        &root.join("-home-mira-src-tally/7f3c9d2e/subagents/agent-a3f9c21.jsonl"),
        Some(base + Duration::from_secs(20)),
    );
    touch(
        &root.join("-home-mira-src-other/2c8e4a60.jsonl"),
        Some(base + Duration::from_secs(90)),
    );
    let found: Vec<String> = discover_sessions(root)
        .unwrap()
        .into_iter()
        .map(|session| {
            session
                .path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        found,
        vec![
            "-home-mira-src-other/2c8e4a60.jsonl",
            "-home-mira-src-tally/7f3c9d2e.jsonl",
            "-home-mira-src-tally/7f3c9d2e/subagents/agent-a3f9c21.jsonl",
        ]
    );
}

#[test]
fn a_missing_directory_is_a_typed_error() {
    let home = tempfile::tempdir().unwrap();
    let absent = home.path().join("absent");
    let err = discover_sessions(&absent).unwrap_err();
    match &err {
        RolloutError::Walk { path, source } => {
            assert_eq!(path, &absent);
            assert_eq!(source.path(), Some(absent.as_path()));
            assert_eq!(
                source.io_error().map(std::io::Error::kind),
                Some(std::io::ErrorKind::NotFound)
            );
        }
        other => panic!("expected a walk error, got {other:?}"),
    }
    assert!(err.to_string().contains("absent"), "{err}");
}

#[test]
fn sessions_started_in_the_same_second_are_listed_newest_first_by_their_time_ordered_ids() {
    // The recorder names files `rollout-<second>-<UUIDv7>.jsonl`; a v7 id sorts by creation
    // time, so within one second the larger id is the newer session (`--resume last` picks it).
    let home = tempfile::tempdir().unwrap();
    let root = home.path();
    let now = SystemTime::now();
    let older = "sessions/2026/11/23/rollout-2026-11-23T15-00-00-019ab2c0-0000-7000-8000-000000000001.jsonl";
    let newer = "sessions/2026/11/23/rollout-2026-11-23T15-00-00-019ab2c0-0001-7000-8000-000000000002.jsonl";
    touch(&root.join(older), Some(now));
    touch(&root.join(newer), Some(now));
    let found: Vec<String> = discover_sessions(root)
        .unwrap()
        .into_iter()
        .map(|session| {
            session
                .path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(found, vec![newer.to_string(), older.to_string()]);
}
