use pretty_assertions::assert_eq;

use super::*;

/// A lock policy under which a writer waits as long as it takes: every other holder finishes
/// its append, so waiting always ends, and whether an append succeeds cannot depend on how
/// fast a loaded machine runs the other threads (with the default 10 × 100 ms, a writer
/// starved for a second failed the test).
const WAIT_FOR_THE_LOCK: LockRetry = LockRetry {
    attempts: u32::MAX,
    pause: Duration::from_millis(1),
};

/// A policy that gives up at once, without sleeping, after three tries.
const THREE_QUICK_TRIES: LockRetry = LockRetry {
    attempts: 3,
    pause: Duration::ZERO,
};

fn entry(index: usize) -> HistoryEntry {
    HistoryEntry {
        session_id: "0190c3e0-0000-7000-8000-000000000001".to_string(),
        ts: 1_700_000_000 + index as u64,
        text: format!("prompt number {index:03}"),
    }
}

#[test]
fn appends_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let history = MessageHistory::new(dir.path().join("history.jsonl"));
    assert_eq!(history.entries().unwrap(), HistoryEntries::default());
    for index in 0..3 {
        history.append_entry(&entry(index)).unwrap();
    }
    let read = history.entries().unwrap();
    assert_eq!(read.entries, vec![entry(0), entry(1), entry(2)]);
    assert!(read.skipped_lines.is_empty());
    let raw = std::fs::read_to_string(history.path()).unwrap();
    assert_eq!(
        raw.lines().next().unwrap(),
        r#"{"session_id":"0190c3e0-0000-7000-8000-000000000001","ts":1700000000,"text":"prompt number 000"}"#
    );
}

#[test]
fn append_stamps_the_current_time() {
    let dir = tempfile::tempdir().unwrap();
    let history = MessageHistory::in_home(dir.path(), &MessageHistoryConfig::default());
    history.append("s", "hello\nworld").unwrap();
    let read = history.entries().unwrap();
    assert_eq!(read.entries.len(), 1);
    assert_eq!(read.entries[0].text, "hello\nworld");
    assert!(read.entries[0].ts > 1_600_000_000);
    // A multi-line prompt is still one line of the file.
    assert_eq!(
        std::fs::read_to_string(history.path())
            .unwrap()
            .lines()
            .count(),
        1
    );
}

#[cfg(unix)]
#[test]
fn file_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("history.jsonl");
    let history = MessageHistory::new(&path);
    history.append_entry(&entry(0)).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A file created too open is tightened on the next append.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    history.append_entry(&entry(1)).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn corrupt_lines_are_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let good = serde_json::to_string(&entry(0)).unwrap();
    std::fs::write(&path, format!("{good}\nnot json\n\n{{\"ts\":1}}\n{good}\n")).unwrap();
    let read = MessageHistory::new(&path).entries().unwrap();
    assert_eq!(read.entries, vec![entry(0), entry(0)]);
    assert_eq!(read.skipped_lines, vec![2, 4]);
}

#[test]
fn soft_cap_keeps_the_newest_lines_within_eighty_percent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let line_len = serde_json::to_string(&entry(0)).unwrap().len() as u64 + 1;
    let max_bytes = line_len * 10;
    let history = MessageHistory::new(&path).with_max_bytes(Some(max_bytes));
    for index in 0..10 {
        history.append_entry(&entry(index)).unwrap();
    }
    assert_eq!(history.entries().unwrap().entries.len(), 10);
    // The 11th line takes the file over the cap: trimmed to 80 % = 8 lines, newest kept.
    history.append_entry(&entry(10)).unwrap();
    let kept = history.entries().unwrap().entries;
    assert_eq!(kept, (3..=10).map(entry).collect::<Vec<_>>());
    let len = std::fs::metadata(&path).unwrap().len();
    assert!(len <= max_bytes * 8 / 10, "{len} bytes left");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the trimmed history stays owner-only");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name != "history.jsonl")
        .collect();
    assert!(leftovers.is_empty(), "no temp file left: {leftovers:?}");
}

#[test]
fn soft_cap_never_drops_the_newest_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let history = MessageHistory::new(&path).with_max_bytes(Some(10));
    history.append_entry(&entry(0)).unwrap();
    history.append_entry(&entry(1)).unwrap();
    assert_eq!(history.entries().unwrap().entries, vec![entry(1)]);
}

#[test]
fn trim_offset_cases() {
    let contents = b"aaaa\nbbbb\ncccc\ndddd\n";
    // 20 bytes, cap 20 -> soft cap 16: drop one line.
    assert_eq!(trim_offset(contents, 20), 5);
    // Cap 10 -> soft cap 8: keep only what fits, at a line start.
    assert_eq!(trim_offset(contents, 10), 15);
    // Cap 1 -> the newest line is still kept.
    assert_eq!(trim_offset(contents, 1), 15);
    assert_eq!(trim_offset(b"", 1), 0);
}

#[test]
fn lookup_by_identity_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let history = MessageHistory::new(dir.path().join("history.jsonl"));
    assert_eq!(history.metadata().unwrap(), HistoryMetadata::default());
    for index in 0..3 {
        history.append_entry(&entry(index)).unwrap();
    }
    let metadata = history.metadata().unwrap();
    assert_eq!(metadata.entry_count, 3);
    assert_eq!(history.lookup(metadata.log_id, 1).unwrap(), Some(entry(1)));
    assert_eq!(history.lookup(metadata.log_id, 3).unwrap(), None);
    assert_eq!(
        history.lookup(metadata.log_id.wrapping_add(1), 1).unwrap(),
        None
    );
}

#[test]
fn concurrent_appenders_never_tear_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let threads = 8;
    let per_thread = 25;
    let handles: Vec<_> = (0..threads)
        .map(|thread_index| {
            let history = MessageHistory::new(&path).with_lock_retry(WAIT_FOR_THE_LOCK);
            std::thread::spawn(move || {
                for index in 0..per_thread {
                    let text = format!("thread {thread_index} prompt {index} {}", "x".repeat(2000));
                    history
                        .append_entry(&HistoryEntry {
                            session_id: format!("session-{thread_index}"),
                            ts: index,
                            text,
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let read = MessageHistory::new(&path).entries().unwrap();
    assert!(read.skipped_lines.is_empty());
    assert_eq!(read.entries.len(), threads * per_thread as usize);
    for thread_index in 0..threads {
        let mine: Vec<u64> = read
            .entries
            .iter()
            .filter(|entry| entry.session_id == format!("session-{thread_index}"))
            .map(|entry| entry.ts)
            .collect();
        assert_eq!(mine, (0..per_thread).collect::<Vec<_>>());
    }
}

#[test]
fn concurrent_appenders_with_trimming_keep_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let max_bytes = 20_000;
    let handles: Vec<_> = (0..4)
        .map(|thread_index| {
            let history = MessageHistory::new(&path)
                .with_max_bytes(Some(max_bytes))
                .with_lock_retry(WAIT_FOR_THE_LOCK);
            std::thread::spawn(move || {
                for index in 0..40 {
                    history
                        .append_entry(&HistoryEntry {
                            session_id: format!("s{thread_index}"),
                            ts: index,
                            text: "y".repeat(500),
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let read = MessageHistory::new(&path).entries().unwrap();
    assert!(read.skipped_lines.is_empty());
    assert!(!read.entries.is_empty());
    assert!(std::fs::metadata(&path).unwrap().len() <= max_bytes);
    // Each thread's surviving entries are its newest, in order.
    for thread_index in 0..4 {
        let mine: Vec<u64> = read
            .entries
            .iter()
            .filter(|entry| entry.session_id == format!("s{thread_index}"))
            .map(|entry| entry.ts)
            .collect();
        assert!(mine.windows(2).all(|pair| pair[0] < pair[1]), "{mine:?}");
    }
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name != "history.jsonl")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_default_lock_policy_is_ten_tries_a_tenth_of_a_second_apart() {
    assert_eq!(
        LockRetry::default(),
        LockRetry {
            attempts: 10,
            pause: Duration::from_millis(100),
        }
    );
    assert_eq!(
        MessageHistory::new("h.jsonl").lock_retry,
        LockRetry::default()
    );
}

#[test]
fn lock_timeout_names_the_file_and_the_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let history = MessageHistory::new(&path).with_lock_retry(THREE_QUICK_TRIES);
    history.append_entry(&entry(0)).unwrap();
    let holder = File::open(&path).unwrap();
    holder.lock().unwrap();
    let err = history.append_entry(&entry(1)).unwrap_err();
    assert!(
        matches!(&err, MessageHistoryError::LockTimeout { path: p, attempts: 3 } if p == &path),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "history file {} stayed locked after 3 attempts",
            path.display()
        )
    );
    // Readers wait for a writer the same way.
    let err = history.entries().unwrap_err();
    assert!(
        matches!(&err, MessageHistoryError::LockTimeout { path: p, attempts: 3 } if p == &path),
        "{err}"
    );
    holder.unlock().unwrap();
    history.append_entry(&entry(1)).unwrap();
    assert_eq!(history.entries().unwrap().entries, vec![entry(0), entry(1)]);
}

#[test]
fn persistence_none_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = MessageHistoryConfig {
        persistence: HistoryPersistence::None,
        max_bytes: None,
    };
    let history = MessageHistory::in_home(dir.path(), &config);
    history.append("s", "secret").unwrap();
    assert!(!history.path().exists());
    assert_eq!(history.entries().unwrap(), HistoryEntries::default());
}

#[test]
fn config_reads_from_toml_like_json() {
    let config: MessageHistoryConfig =
        serde_json::from_str(r#"{"persistence":"none","max_bytes":1024}"#).unwrap();
    assert_eq!(
        config,
        MessageHistoryConfig {
            persistence: HistoryPersistence::None,
            max_bytes: Some(1024),
        }
    );
    assert_eq!(
        serde_json::from_str::<MessageHistoryConfig>("{}").unwrap(),
        MessageHistoryConfig::default()
    );
}
