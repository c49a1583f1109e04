//! The human output: a table of turns per session, a summary line, and a total.

use std::fmt::Write as _;

use comfy_table::CellAlignment;
use comfy_table::ContentArrangement;
use comfy_table::Table;
use comfy_table::presets::UTF8_FULL_CONDENSED;

use agentctx_compact::ThresholdLevel;
use agentctx_engine::replay::PredictionBasis;
use agentctx_engine::replay::ReplayTurn;
use agentctx_engine::replay::SessionReplay;
use agentctx_engine::replay::TierTrigger;

/// Totals over every replayed session.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ReplayTotals {
    pub(crate) sessions: usize,
    pub(crate) bytes: u64,
    pub(crate) lines: usize,
    pub(crate) items: usize,
    pub(crate) turns: usize,
    pub(crate) tool_calls: usize,
    pub(crate) compactions: usize,
    pub(crate) skipped_lines: usize,
    pub(crate) max_prompt_tokens: u64,
    /// Reminders fired, when they were replayed.
    pub(crate) reminders: Option<usize>,
}

impl ReplayTotals {
    pub(crate) fn add(&mut self, replay: &SessionReplay) {
        self.sessions += 1;
        self.bytes = self.bytes.saturating_add(replay.bytes);
        self.lines += replay.lines;
        self.items += replay.items;
        self.turns += replay.turns.len();
        self.tool_calls += replay.tool_calls;
        self.compactions += replay.compactions;
        self.skipped_lines += replay.skipped.len();
        self.max_prompt_tokens = self.max_prompt_tokens.max(replay.max_prompt_tokens);
        if let Some(counts) = &replay.reminder_counts {
            let fired: usize = counts.values().sum();
            self.reminders = Some(self.reminders.unwrap_or(0) + fired);
        }
    }
}

const HEADER: [&str; 13] = [
    "turn",
    "line",
    "items",
    "requests",
    "tool calls",
    "compactions",
    "est. prompt",
    "predicted",
    "recorded",
    "% of window",
    "our tiers",
    "reminders",
    "user message",
];

/// The columns aligned right (the numbers).
const NUMBER_COLUMNS: usize = 10;

/// The header line, the table of turns and the summary line of one session.
pub(crate) fn session_report(replay: &SessionReplay) -> String {
    let mut out = String::new();
    let session = replay.session_id.as_deref().unwrap_or("-");
    let _ = writeln!(
        out,
        "{} ({}, session {session}, {} lines, {})",
        replay.file.display(),
        replay.format.family(),
        grouped(replay.lines as u64),
        bytes(replay.bytes),
    );
    if !replay.turns.is_empty() {
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(without_reminders(
                HEADER.map(str::to_string).to_vec(),
                replay,
            ));
        for turn in &replay.turns {
            table.add_row(without_reminders(turn_row(turn), replay));
        }
        for column in 0..NUMBER_COLUMNS {
            if let Some(column) = table.column_mut(column) {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
        let _ = writeln!(out, "{table}");
    }
    let _ = writeln!(out, "{}", summary_line(replay));
    out
}

/// The index of the reminders column, left out when reminders were not replayed.
const REMINDERS_COLUMN: usize = 11;

fn without_reminders(mut row: Vec<String>, replay: &SessionReplay) -> Vec<String> {
    if replay.reminder_counts.is_none() && row.len() > REMINDERS_COLUMN {
        row.remove(REMINDERS_COLUMN);
    }
    row
}

fn turn_row(turn: &ReplayTurn) -> Vec<String> {
    let share = match (turn.recorded_prompt_tokens, turn.model_context_window) {
        (Some(tokens), Some(window)) if window > 0 => percent(tokens, window),
        _ => "-".to_string(),
    };
    vec![
        turn.turn.to_string(),
        turn.line.to_string(),
        turn.items.to_string(),
        turn.requests.to_string(),
        turn.tool_calls.to_string(),
        turn.compactions.to_string(),
        grouped(turn.estimated_prompt_tokens),
        predicted(turn),
        turn.recorded_prompt_tokens
            .map_or_else(|| "-".to_string(), grouped_signed),
        share,
        tier_labels(turn),
        reminder_labels(turn),
        turn.user_message.clone(),
    ]
}

/// Our usage prediction for the turn's last request; `~` marks one estimated from the whole
/// history (no usable previous request: the first request, or after a compaction).
fn predicted(turn: &ReplayTurn) -> String {
    match turn.request_usage.last() {
        Some(request) => match request.basis {
            PredictionBasis::PreviousRequest => grouped(request.predicted_tokens),
            PredictionBasis::WholeHistory => format!("~{}", grouped(request.predicted_tokens)),
        },
        None => "-".to_string(),
    }
}

/// Where our tiers would have triggered in the turn: the highest level our usage reached, then
/// micro-compaction and auto-compaction with tokens before → after (the first of each in the
/// turn, with how many more; auto-compaction with the reason the engine decided it for:
/// `pre_turn`, `mid_turn`, `blocking`, `overflow`), or `-`.
fn tier_labels(turn: &ReplayTurn) -> String {
    let mut labels = Vec::new();
    let level = turn
        .request_usage
        .iter()
        .map(|request| request.level)
        .max()
        .unwrap_or(ThresholdLevel::Normal);
    match level {
        ThresholdLevel::Normal => {}
        ThresholdLevel::Warning => labels.push("warning".to_string()),
        ThresholdLevel::Error => labels.push("error".to_string()),
        ThresholdLevel::AutoCompact => labels.push("over trigger".to_string()),
        ThresholdLevel::Blocking => labels.push("blocking".to_string()),
    }
    let micro: Vec<TierTrigger> = turn
        .request_usage
        .iter()
        .filter_map(|request| request.micro_compact)
        .collect();
    if let Some(label) = trigger_label("micro", &micro) {
        labels.push(label);
    }
    let auto: Vec<TierTrigger> = turn
        .request_usage
        .iter()
        .filter_map(|request| request.auto_compact)
        .collect();
    // Named by why the engine decided it (`auto mid_turn …`), as the live session would.
    let reason = turn
        .request_usage
        .iter()
        .flat_map(|request| &request.decisions)
        .find_map(agentctx_engine::Decision::compact_reason)
        .and_then(|reason| serde_json::to_value(reason).ok())
        .and_then(|value| value.as_str().map(|reason| format!("auto {reason}")));
    if let Some(label) = trigger_label(reason.as_deref().unwrap_or("auto"), &auto) {
        labels.push(label);
    }
    if labels.is_empty() {
        "-".to_string()
    } else {
        labels.join(", ")
    }
}

/// `micro 45,000→21,000 (+2)`.
fn trigger_label(name: &str, triggers: &[TierTrigger]) -> Option<String> {
    let first = triggers.first()?;
    let mut label = format!(
        "{name} {}→{}",
        grouped(first.tokens_before),
        grouped(first.tokens_after)
    );
    if triggers.len() > 1 {
        let _ = write!(label, " (+{})", triggers.len() - 1);
    }
    Some(label)
}

/// `todo_reminder ×49, plan_mode:sparse`, or `-` when none fired: each label once, in the order
/// it first fired over the turn's requests, with how often when more than once.
fn reminder_labels(turn: &ReplayTurn) -> String {
    let Some(reminders) = turn.reminders.as_deref().filter(|fired| !fired.is_empty()) else {
        return "-".to_string();
    };
    let mut labels: Vec<(String, usize)> = Vec::new();
    for label in reminders.iter().map(|fired| fired.reminder.label()) {
        match labels.iter_mut().find(|(seen, _)| *seen == label) {
            Some((_, count)) => *count += 1,
            None => labels.push((label, 1)),
        }
    }
    labels
        .into_iter()
        .map(|(label, count)| {
            if count > 1 {
                format!("{label} ×{count}")
            } else {
                label
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary_line(replay: &SessionReplay) -> String {
    let mut line = format!(
        "summary: {}, {}, {}, {}, max prompt {} tokens estimated",
        counted(replay.turns.len(), "turn"),
        counted(replay.items, "item"),
        counted(replay.tool_calls, "tool call"),
        counted(replay.compactions, "compaction"),
        grouped(replay.max_prompt_tokens),
    );
    if let Some(recorded) = replay.max_recorded_prompt_tokens {
        let _ = write!(line, " / {} recorded", grouped_signed(recorded));
    }
    if let Some(window) = replay.model_context_window {
        let _ = write!(line, " (window {})", grouped_signed(window));
    }
    let error = replay.usage_prediction_error;
    match (error.median, error.p95) {
        (Some(median), Some(p95)) => {
            let _ = write!(
                line,
                ", usage prediction error median {:.1}% p95 {:.1}% (n {})",
                median * 100.0,
                p95 * 100.0,
                error.n
            );
        }
        _ => line.push_str(", usage prediction error - (n 0)"),
    }
    if replay.sidechain_items > 0 {
        let _ = write!(
            line,
            ", {}",
            counted(replay.sidechain_items, "sidechain item")
        );
    }
    if let Some(counts) = &replay.reminder_counts {
        let fired: usize = counts.values().sum();
        let _ = write!(line, ", {}", counted(fired, "reminder"));
        if !counts.is_empty() {
            let by_type = counts
                .iter()
                .map(|(name, count)| format!("{name} {count}"))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = write!(line, " ({by_type})");
        }
    }
    let _ = write!(line, ", {}", counted(replay.skipped.len(), "skipped line"));
    line
}

/// The total line over every session.
pub(crate) fn totals_line(totals: &ReplayTotals) -> String {
    let reminders = totals
        .reminders
        .map(|fired| format!(", {}", counted(fired, "reminder")))
        .unwrap_or_default();
    format!(
        "total: {}, {}, {}, {}, {}, {}, {}, max prompt {} tokens estimated{reminders}, {}",
        counted(totals.sessions, "session"),
        bytes(totals.bytes),
        counted(totals.lines, "line"),
        counted(totals.turns, "turn"),
        counted(totals.items, "item"),
        counted(totals.tool_calls, "tool call"),
        counted(totals.compactions, "compaction"),
        grouped(totals.max_prompt_tokens),
        counted(totals.skipped_lines, "skipped line"),
    )
}

/// `3 turns`, `1 turn`, `12,000 items`.
fn counted(count: usize, noun: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{} {noun}{plural}", grouped(count as u64))
}

fn percent(tokens: i64, window: i64) -> String {
    let tenths = tokens.saturating_mul(1000) / window;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// `1234567` → `1,234,567`.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn grouped_signed(value: i64) -> String {
    if value < 0 {
        format!("-{}", grouped(value.unsigned_abs()))
    } else {
        grouped(value.unsigned_abs())
    }
}

fn bytes(value: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if value >= MIB {
        format!("{}.{} MiB", value / MIB, (value % MIB) * 10 / MIB)
    } else if value >= KIB {
        format!("{}.{} KiB", value / KIB, (value % KIB) * 10 / KIB)
    } else {
        format!("{value} B")
    }
}
