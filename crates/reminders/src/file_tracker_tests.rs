use std::fs;
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
}

/// Sets the file's mtime `secs_ago` seconds in the past, so its stamp is trusted.
fn age(path: &Path, secs_ago: u64) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

#[test]
fn file_tracker_records_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "one\ntwo\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "one\ntwo\n", 3, None, None);
    tracker.track_read(dir.path().join("b.txt"), "x", 4, Some(10), Some(20));

    let state = tracker.get(&path).unwrap();
    assert_eq!(&*state.content, "one\ntwo\n");
    assert_eq!(state.read_turn, 3);
    assert_eq!(state.content_hash, content_hash("one\ntwo\n"));
    assert_eq!(state.stamp, Some(FileStamp::of(&path).unwrap()));
    assert!(!state.is_partial());
    let partial = tracker.get(&dir.path().join("b.txt")).unwrap();
    assert!(partial.is_partial());
    assert_eq!((partial.offset, partial.limit), (Some(10), Some(20)));
    assert_eq!(tracker.len(), 2);
    assert_eq!(
        tracker.take_nested_memory_triggers(),
        vec![path],
        "only the full read triggers nested memory"
    );
}

#[test]
fn changed_files_detected_on_modification() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "one\ntwo\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "one\ntwo\n", 1, None, None);
    assert_eq!(tracker.detect_changes(), Vec::new());

    // Same length, written right away: only the content comparison can see it.
    write(&path, "one\nTWO\n");
    let changes = tracker.detect_changes();
    assert_eq!(changes.len(), 1);
    let FileChangeKind::Modified { old, new, .. } = &changes[0].kind else {
        panic!("expected a modification: {changes:?}");
    };
    assert_eq!((&**old, &**new), ("one\ntwo\n", "one\nTWO\n"));
    // Detection alone does not move the baseline.
    assert_eq!(tracker.detect_changes(), changes);
    tracker.acknowledge(&changes[0]);
    assert_eq!(tracker.detect_changes(), Vec::new());
}

#[test]
fn partial_reads_do_not_trigger_change_detection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "one\ntwo\nthree\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "two\n", 1, Some(2), Some(1));
    write(&path, "changed entirely\n");
    assert_eq!(tracker.detect_changes(), Vec::new());
}

#[test]
fn partial_read_after_full_read_keeps_the_full_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "one\ntwo\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "one\ntwo\n", 1, None, None);
    tracker.track_read(&path, "two\n", 2, Some(2), Some(1));
    write(&path, "one\n2\n");
    assert_eq!(tracker.detect_changes().len(), 1);
}

#[test]
fn touch_without_content_change_is_not_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "same\n");
    age(&path, 60);
    let tracker = FileTracker::new();
    tracker.track_read(&path, "same\n", 1, None, None);
    age(&path, 30);
    assert_eq!(tracker.detect_changes(), Vec::new());
    // The stamp was refreshed: the next check takes the fast path.
    assert_eq!(
        tracker.get(&path).unwrap().stamp,
        Some(FileStamp::of(&path).unwrap())
    );
}

#[test]
fn trusted_stamp_skips_reading_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "on disk\n");
    age(&path, 60);
    let tracker = FileTracker::new();
    // The recorded content differs from the disk, but the trusted stamp matches: no read.
    tracker.track_read(&path, "what the model saw\n", 1, None, None);
    assert_eq!(tracker.detect_changes(), Vec::new());
}

#[test]
fn deleted_file_is_reported_then_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "x\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "x\n", 1, None, None);
    fs::remove_file(&path).unwrap();
    let changes = tracker.detect_changes();
    assert_eq!(
        changes,
        vec![FileChange {
            path,
            kind: FileChangeKind::Deleted
        }]
    );
    tracker.acknowledge(&changes[0]);
    assert!(tracker.is_empty());
    assert_eq!(tracker.detect_changes(), Vec::new());
}

#[test]
fn two_changes_before_acknowledgement_diff_against_what_the_model_saw() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "v1\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "v1\n", 1, None, None);
    write(&path, "v2\n");
    write(&path, "v3\n");
    let changes = tracker.detect_changes();
    let FileChangeKind::Modified { old, new, .. } = &changes[0].kind else {
        panic!("expected a modification");
    };
    assert_eq!((&**old, &**new), ("v1\n", "v3\n"));
}

#[test]
fn the_models_own_write_is_the_new_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "before\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "before\n", 1, None, None);
    write(&path, "after\n");
    tracker.track_write(&path, "after\n", 2);
    assert_eq!(tracker.detect_changes(), Vec::new());
}

#[test]
fn unchanged_since_read_only_for_full_unchanged_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "x\n");
    let tracker = FileTracker::new();
    assert!(!tracker.is_unchanged_since_read(&path));
    tracker.track_read(&path, "x\n", 1, None, None);
    assert!(tracker.is_unchanged_since_read(&path));
    write(&path, "y\n");
    assert!(!tracker.is_unchanged_since_read(&path));
}

#[test]
fn memory_files_are_loaded_once_and_clear_forgets_everything() {
    let tracker = FileTracker::new();
    let path = Path::new("/p/AGENTS.md");
    assert!(tracker.mark_memory_file_loaded(path));
    assert!(!tracker.mark_memory_file_loaded(path));
    tracker.track_read_with_stamp("/p/a.rs", "x", None, 1, None, None);
    tracker.clear();
    assert!(tracker.is_empty());
    assert!(!tracker.is_memory_file_loaded(path));
    assert_eq!(tracker.take_nested_memory_triggers(), Vec::<PathBuf>::new());
}

#[test]
fn binary_and_oversized_changes_are_skipped_not_diffed() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("blob.bin");
    let huge = dir.path().join("huge.log");
    write(&binary, "text at first\n");
    write(&huge, "small at first\n");
    let tracker = FileTracker::new();
    tracker.track_read(&binary, "text at first\n", 1, None, None);
    tracker.track_read(&huge, "small at first\n", 1, None, None);

    fs::write(&binary, [b'a', 0, 0xff, b'\n']).unwrap();
    let file = fs::File::options().write(true).open(&huge).unwrap();
    file.set_len(MAX_READ_BYTES + 1).unwrap();

    assert_eq!(tracker.detect_changes(), Vec::new());
    // Still tracked: a later text change of the binary file is reported.
    write(&binary, "text again\n");
    let changes = tracker.detect_changes();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, binary);
}

#[test]
fn non_utf8_text_changes_are_diffed_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1 file.txt");
    write(&path, "caf\n");
    let tracker = FileTracker::new();
    tracker.track_read(&path, "caf\n", 1, None, None);
    fs::write(&path, [b'c', b'a', b'f', 0xe9, b'\n']).unwrap();
    let changes = tracker.detect_changes();
    assert_eq!(changes.len(), 1);
    let FileChangeKind::Modified { new, .. } = &changes[0].kind else {
        panic!("expected a modification: {changes:?}");
    };
    assert_eq!(&**new, "caf\u{fffd}\n");
}

#[test]
fn changes_come_sorted_by_path_whatever_the_tracking_order() {
    let dir = tempfile::tempdir().unwrap();
    let tracker = FileTracker::new();
    // Names whose component order differs from their byte order (`a-b` sorts before `a/b`
    // as bytes, after it as paths) and more files than one hash shard holds.
    let mut names: Vec<String> = (0..40).map(|n| format!("file_{n:02}.rs")).collect();
    names.extend([
        "a-b.rs".to_string(),
        "a/b.rs".to_string(),
        "a.rs".to_string(),
    ]);
    for name in names.iter().rev() {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        write(&path, "old\n");
        tracker.track_read(&path, "old\n", 1, None, None);
    }
    for name in &names {
        write(&dir.path().join(name), "new\n");
    }
    let changed: Vec<PathBuf> = tracker
        .detect_changes()
        .into_iter()
        .map(|change| change.path)
        .collect();
    let mut expected: Vec<PathBuf> = names.iter().map(|name| dir.path().join(name)).collect();
    expected.sort();
    assert_eq!(changed, expected);
}

/// A tracker with `a.txt` read in full, on disk an hour before (its stamp trusted), and marked as
/// lying on `file_system` whatever file system holds the temporary directory.
fn tracked_on(file_system: FileSystemKind) -> (tempfile::TempDir, PathBuf, FileTracker) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    write(&path, "x\n");
    age(&path, 3_600);
    let tracker = FileTracker::new();
    tracker.track_read(&path, "x\n", 1, None, None);
    tracker.set_file_system(&path, file_system);
    (dir, path, tracker)
}

#[test]
fn the_file_system_is_looked_up_by_the_full_check_not_when_tracked() {
    let (_dir, path, _) = tracked_on(FileSystemKind::Local);
    let tracker = FileTracker::new();
    // Tracking makes no system call of its own: the caller may be an async worker.
    tracker.track_read(&path, "x\n", 1, None, None);
    assert_eq!(tracker.get(&path).unwrap().file_system, None);
    assert!(
        !tracker.unchanged_by_local_stamps(),
        "not known to be local yet"
    );
    assert_eq!(tracker.detect_changes(), Vec::new());
    assert_eq!(
        tracker.get(&path).unwrap().file_system,
        Some(FileSystemKind::of(&path))
    );
    // A write is a new baseline, looked up again.
    tracker.track_write(&path, "x\n", 2);
    assert_eq!(tracker.get(&path).unwrap().file_system, None);
    // A partial read is never checked, so never looked up.
    let partial = path.with_file_name("partial.txt");
    write(&partial, "a\nb\n");
    tracker.track_read(&partial, "b\n", 1, Some(2), Some(1));
    tracker.detect_changes();
    assert_eq!(tracker.get(&partial).unwrap().file_system, None);
}

#[test]
fn an_idle_check_of_local_files_is_answered_by_their_stamps() {
    assert!(
        FileTracker::new().unchanged_by_local_stamps(),
        "nothing tracked"
    );
    let (_dir, path, tracker) = tracked_on(FileSystemKind::Local);
    assert!(tracker.unchanged_by_local_stamps());
    // A partial read of another file is not looked at, as `detect_changes` skips it.
    let partial = path.with_file_name("partial.txt");
    tracker.track_read(&partial, "line 2\n", 1, Some(2), Some(1));
    assert!(tracker.unchanged_by_local_stamps());
}

#[test]
fn an_idle_check_leaves_changed_deleted_and_racy_files_to_the_full_check() {
    let (_dir, path, tracker) = tracked_on(FileSystemKind::Local);
    write(&path, "changed\n");
    assert!(!tracker.unchanged_by_local_stamps(), "changed");
    assert_eq!(tracker.detect_changes().len(), 1);

    let (_dir, path, tracker) = tracked_on(FileSystemKind::Local);
    fs::remove_file(&path).unwrap();
    assert!(!tracker.unchanged_by_local_stamps(), "deleted");

    // Read right after it was written: the stamp is not trusted yet.
    let dir = tempfile::tempdir().unwrap();
    let racy = dir.path().join("racy.txt");
    write(&racy, "x\n");
    let tracker = FileTracker::new();
    tracker.track_read(&racy, "x\n", 1, None, None);
    tracker.set_file_system(&racy, FileSystemKind::Local);
    assert!(!tracker.unchanged_by_local_stamps(), "racy stamp");
}

#[test]
fn files_whose_stat_can_hang_are_never_checked_by_the_idle_check() {
    let (_dir, path, tracker) = tracked_on(FileSystemKind::Other);
    assert!(!tracker.unchanged_by_local_stamps());
    // One such file among local ones is enough: the whole check goes where a hang is harmless.
    let local = path.with_file_name("local.txt");
    write(&local, "y\n");
    age(&local, 3_600);
    tracker.track_read(&local, "y\n", 1, None, None);
    tracker.set_file_system(&local, FileSystemKind::Local);
    assert!(!tracker.unchanged_by_local_stamps());
    assert_eq!(tracker.detect_changes(), Vec::new());
}
