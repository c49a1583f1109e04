//! `--json`: one JSON object per session, one per line.

use std::collections::BTreeMap;

use agentctx_rollout::SkippedLine;
use serde::Serialize;

use agentctx_engine::replay::PredictionError;
use agentctx_engine::replay::SessionReplay;
use agentctx_engine::replay::UsageThresholds;
use agentctx_engine::replay::turns_json;
use agentctx_engine::survival::CompactionSurvival;
use serde_json::value::RawValue;

/// The JSON shape of a session replay.
#[derive(Debug, Serialize)]
pub(crate) struct SessionJson<'a> {
    file: String,
    format: &'static str,
    format_detail: agentctx_rollout::RolloutFormat,
    session_id: Option<&'a str>,
    lines: usize,
    bytes: u64,
    items: usize,
    sidechain_items: usize,
    preamble_items: usize,
    skipped_lines: usize,
    skipped: &'a [SkippedLine],
    ignored_records: &'a BTreeMap<String, usize>,
    turns: usize,
    tool_calls: usize,
    compactions: usize,
    instructions_tokens: u64,
    max_prompt_tokens: u64,
    max_recorded_prompt_tokens: Option<i64>,
    model_context_window: Option<i64>,
    usage_prediction_error: PredictionError,
    thresholds: UsageThresholds,
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder_counts: Option<&'a BTreeMap<String, usize>>,
    /// What each compaction (the session's and ours) kept of what the session used after it.
    compaction_survival: &'a [CompactionSurvival],
    /// Each turn's JSON, serialized on two threads ([`turns_json`]).
    turn_details: Vec<Box<RawValue>>,
}

impl<'a> SessionJson<'a> {
    /// The report of `replay`; fails only where `serde_json` cannot write a turn.
    pub(crate) fn new(replay: &'a SessionReplay) -> Result<Self, serde_json::Error> {
        Ok(Self {
            file: replay.file.display().to_string(),
            format: replay.format.family(),
            format_detail: replay.format,
            session_id: replay.session_id.as_deref(),
            lines: replay.lines,
            bytes: replay.bytes,
            items: replay.items,
            sidechain_items: replay.sidechain_items,
            preamble_items: replay.preamble_items,
            skipped_lines: replay.skipped.len(),
            skipped: &replay.skipped,
            ignored_records: &replay.ignored,
            turns: replay.turns.len(),
            tool_calls: replay.tool_calls,
            compactions: replay.compactions,
            instructions_tokens: replay.instructions_tokens,
            max_prompt_tokens: replay.max_prompt_tokens,
            max_recorded_prompt_tokens: replay.max_recorded_prompt_tokens,
            model_context_window: replay.model_context_window,
            usage_prediction_error: replay.usage_prediction_error,
            thresholds: replay.thresholds,
            reminder_counts: replay.reminder_counts.as_ref(),
            compaction_survival: &replay.compaction_survival,
            turn_details: turns_json(&replay.turns)?,
        })
    }
}
