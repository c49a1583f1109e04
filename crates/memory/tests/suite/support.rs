//! Helpers shared by the integration tests: sessions written with the real recorder, and
//! pipelines over a temp home.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_memory::Consolidator;
use agentctx_memory::Extractor;
use agentctx_memory::MemoryConfig;
use agentctx_memory::MemoryPipeline;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutRecorder;

/// Writes a Codex session under `home/sessions` whose user asks `request` and runs one
/// successful command; returns its path.
pub(super) fn write_session(home: &Path, cwd: &str, request: &str) -> PathBuf {
    write_session_items(
        home,
        cwd,
        &[
            ResponseItem::user_text(request),
            ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output("c1", "test result: ok. 3 passed"),
            ResponseItem::assistant_text("Done: the tests pass."),
        ],
    )
}

/// Writes a Codex session with `items` under `home/sessions`; returns its path.
pub(super) fn write_session_items(home: &Path, cwd: &str, items: &[ResponseItem]) -> PathBuf {
    let meta = SessionMetaLine {
        cwd: Some(cwd.to_string()),
        source: Some(serde_json::json!("cli")),
        ..SessionMetaLine::default()
    };
    let mut recorder = RolloutRecorder::create(home, meta).unwrap();
    recorder.record_response_items(items).unwrap();
    recorder.flush().unwrap();
    recorder.path().to_path_buf()
}

/// A config for `home` that takes sessions as soon as they are written.
pub(super) fn config(home: &Path) -> MemoryConfig {
    let mut config = MemoryConfig::new(home).with_max_rollouts_per_startup(128);
    config.min_rollout_idle_hours = 0;
    config
}

/// A pipeline over `home/sessions`.
pub(super) fn pipeline(
    config: MemoryConfig,
    extractor: Extractor,
    consolidator: Arc<dyn Consolidator>,
) -> MemoryPipeline {
    let sessions = config.home.join("sessions");
    MemoryPipeline {
        config,
        session_roots: vec![sessions],
        extractor,
        consolidator,
    }
}
