use std::path::PathBuf;

use pretty_assertions::assert_eq;

use agentctx_atomic_file::remove_stale_temp_files;

use super::*;
use crate::state_db::Stage1Output;
use crate::state_db::ThreadRecord;

fn stored(id: &str, seq: i64, slug: Option<&str>) -> StoredOutput {
    StoredOutput {
        thread: ThreadRecord {
            id: id.to_string(),
            rollout_path: PathBuf::from(format!("/s/{id}.jsonl")),
            source: Some("cli".to_string()),
            cwd: Some("/src/app".to_string()),
            git_branch: Some("main".to_string()),
            updated_at: 1_700_000_000,
        },
        output: Stage1Output {
            raw_memory: format!("raw {id}\n"),
            rollout_summary: format!("summary {id}"),
            rollout_slug: slug.map(str::to_string),
        },
        source_updated_at: 1_700_000_000,
        generated_at: 1_700_000_100,
        seq,
    }
}

#[test]
fn stems_use_the_uuidv7_time_and_a_base62_hash() {
    // UUIDv7 of 2025-02-11T15:35:19Z.
    let id = "0194f5a6-86d8-7c3d-8a2b-1234abcd5678";
    let stem = rollout_summary_stem(id, 0, Some("Fix: the Login test!"));
    assert!(stem.starts_with("2025-02-11T15-35-19-"), "{stem}");
    assert!(stem.ends_with("-fix__the_login_test"), "{stem}");
    assert_eq!(
        stem.len(),
        "2025-02-11T15-35-19-xxxx-fix__the_login_test".len()
    );
    // Not a UUID: the time of the source, a hash of the id.
    let other = rollout_summary_stem("agent-5c1e9a07", 1_700_000_000, None);
    assert!(other.starts_with("2023-11-14T22-13-20-"), "{other}");
    assert_ne!(
        other,
        rollout_summary_stem("agent-5c1e9a08", 1_700_000_000, None)
    );
}

#[test]
fn slugs_are_normalised() {
    assert_eq!(normalize_slug("Hello World__"), "hello_world");
    assert_eq!(normalize_slug(&"a".repeat(100)).len(), 60);
}

#[test]
fn raw_memories_are_newest_first_with_their_headers() {
    assert_eq!(
        raw_memories_text(&[]),
        "# Raw Memories\n\nNo raw memories yet.\n"
    );
    let text = raw_memories_text(&[stored("b", 2, None), stored("a", 1, None)]);
    assert!(text.starts_with(
        "# Raw Memories\n\nMerged stage-1 raw memories (latest first):\n\n## Thread `b`\n"
    ));
    assert!(text.find("raw b").unwrap() < text.find("raw a").unwrap());
    assert!(text.contains("rollout_summary_file: 2023-11-14T22-13-20-"));
}

#[test]
fn syncing_summaries_writes_retained_and_prunes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let kept =
        sync_rollout_summaries(root, &[stored("a", 1, Some("one")), stored("b", 2, None)]).unwrap();
    assert_eq!(kept.len(), 2);
    let kept = sync_rollout_summaries(root, &[stored("b", 2, None)]).unwrap();
    let files: Vec<_> = std::fs::read_dir(root.join(ROLLOUT_SUMMARIES_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0], format!("{}.md", kept.first().unwrap()));
    let text = std::fs::read_to_string(root.join(ROLLOUT_SUMMARIES_DIR).join(&files[0])).unwrap();
    assert_eq!(
        text,
        "thread_id: b\nupdated_at: 2023-11-14T22:13:20Z\nrollout_path: /s/b.jsonl\ncwd: /src/app\ngit_branch: main\n\nsummary b\n"
    );
}

#[test]
fn stale_temp_files_are_removed_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("rollout_summaries");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join(format!("{TEMP_FILE_PREFIX}abc")), "half").unwrap();
    std::fs::write(dir.path().join("MEMORY.md"), "whole").unwrap();
    assert_eq!(remove_stale_temp_files(dir.path()), 1);
    assert!(dir.path().join("MEMORY.md").exists());
    write_atomically(&dir.path().join("x/y.md"), b"new").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("x/y.md")).unwrap(),
        "new"
    );
    assert!(!write_if_changed(&dir.path().join("x/y.md"), "new").unwrap());
}
