//! Recording session files as threads: discovery under the session folders (Codex
//! `sessions/` trees and Claude Code `projects/` folders alike), each file's id, source, working
//! directory, branch and last write. A file that cannot be read is still recorded (source
//! unknown), so phase 1 records why it failed instead of losing it. See docs/design/memory.md,
//! "Threads".

use std::path::Path;
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use agentctx_protocol::RolloutItem;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use serde_json::Value;

use crate::error::MemoryError;
use crate::state_db::StateDb;
use crate::state_db::ThreadRecord;

/// What a sync saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Session files found.
    pub found: usize,
    /// Threads recorded or updated.
    pub updated: usize,
    /// Files whose header could not be read (recorded with an unknown source).
    pub unreadable: usize,
}

/// Records every session file under `roots` (missing roots are skipped).
pub async fn sync_threads(db: &StateDb, roots: &[PathBuf]) -> Result<SyncReport, MemoryError> {
    let mut report = SyncReport::default();
    let existing: Vec<&PathBuf> = roots.iter().filter(|root| root.exists()).collect();
    // The known threads are read only when a session folder exists: an idle start with none
    // skips a query over every thread (see docs/design/performance.md, "Memory claims").
    if existing.is_empty() {
        return Ok(report);
    }
    let known = db.thread_times().await?;
    for root in existing {
        let root = root.clone();
        let files = tokio::task::spawn_blocking(move || agentctx_rollout::discover_sessions(&root))
            .await
            .map_err(|error| MemoryError::Task(format!("session discovery: {error}")))??;
        for file in files {
            report.found += 1;
            let Some(updated_at) = modified_seconds(&file.path) else {
                continue;
            };
            if known.get(&file.path) == Some(&updated_at) {
                continue;
            }
            let path = file.path.clone();
            let thread = tokio::task::spawn_blocking(move || describe(&path, updated_at))
                .await
                .map_err(|error| MemoryError::Task(format!("session reader: {error}")))?;
            if thread.source.is_none() {
                report.unreadable += 1;
            }
            db.upsert_thread(&thread).await?;
            report.updated += 1;
        }
    }
    Ok(report)
}

fn modified_seconds(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let seconds = modified.duration_since(UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(seconds).ok()
}

/// The thread of a session file, from its name and header.
pub(crate) fn describe(path: &Path, updated_at: i64) -> ThreadRecord {
    let mut thread = ThreadRecord {
        id: thread_id(path),
        rollout_path: path.to_path_buf(),
        source: None,
        cwd: None,
        git_branch: None,
        updated_at,
    };
    let subagent = path.components().any(|c| c.as_os_str() == "subagents");
    let Ok(mut reader) = RolloutReader::open(path) else {
        return thread;
    };
    let meta = reader.by_ref().find_map(|event| match event {
        Ok(ReadEvent::Record(record)) => match record.line.item {
            RolloutItem::SessionMeta(meta) => Some(Ok(meta)),
            _ => None,
        },
        Ok(ReadEvent::Skipped(_)) => None,
        Err(error) => Some(Err(error)),
    });
    let Some(Ok(meta)) = meta else {
        return thread;
    };
    thread.cwd = meta.cwd.clone();
    thread.git_branch = meta
        .git
        .as_ref()
        .and_then(|git| git.get("branch"))
        .or_else(|| meta.extra.get("git_branch"))
        .and_then(Value::as_str)
        .filter(|branch| !branch.is_empty())
        .map(str::to_string);
    let source = if subagent {
        "subagent".to_string()
    } else if meta.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR) {
        "claude_code".to_string()
    } else {
        match &meta.source {
            Some(Value::String(source)) => source.to_lowercase(),
            Some(Value::Object(map)) if map.contains_key("subagent") => "subagent".to_string(),
            Some(Value::Object(map)) => map.keys().next().cloned().unwrap_or_default(),
            // Older Codex rollouts carry no source; they came from the interactive CLI.
            _ => "cli".to_string(),
        }
    };
    thread.source = Some(source);
    thread
}

/// The thread id of a session file: the UUID that ends its name (Codex rollouts and Claude
/// Code transcripts), else its stem with a hash of its path (sub-agent files share stems
/// across sessions).
pub(crate) fn thread_id(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tail = stem.len().checked_sub(36).and_then(|at| stem.get(at..));
    if let Some(uuid) = tail.and_then(|tail| uuid::Uuid::parse_str(tail).ok()) {
        return uuid.to_string();
    }
    let hash = path
        .to_string_lossy()
        .bytes()
        .fold(0x811c_9dc5_u32, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        });
    format!("{stem}-{hash:08x}")
}
