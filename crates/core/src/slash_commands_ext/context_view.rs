//! `/context`: what the context holds, by category, in tokens and as a share of the window,
//! with the thresholds the engine acts on.
//!
//! The layout follows Claude Code's non-interactive `/context` ("Show current context usage":
//! a `model • used/window tokens (%)` head line, then one line per category with its tokens
//! and share of the window, and the free space; its `commands/context` command, e.g.
//! <https://tangled.org/nonbinary.computer/claude-code/blob/main/commands/context/index.ts>,
//! output shown at <https://dannywillems.github.io/2026/01/16/claude-code-context-command.html>).
//! Claude Code's own categories are its prompt's parts (system prompt, system tools, MCP tools,
//! memory files, messages); ours split the history the way our engine treats it (reminders,
//! compaction summaries and tool traffic apart), and add codex's view of the same window
//! (`/status`: "N% context left" from the last measured request, codex-rs
//! `tui/src/status/card.rs`) and the engine's thresholds, which neither shows.
//!
//! Category tokens are our estimate (bytes/4, `ApproxTokenEstimator`) of what each part of the
//! next request carries; the measured line is the engine's usage, from the provider's last
//! report when there is one.

use std::fmt::Write as _;

use agentctx_compact::CompactionThresholds;
use agentctx_compact::ContextWindow;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::ToolSpec;
use agentctx_protocol::ResponseItem;

/// A part of the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ContextCategory {
    /// The base instructions of every request.
    SystemPrompt,
    /// The tool schemas of every request.
    Tools,
    /// Harness-written context: environment, AGENTS.md, developer instructions, model switch.
    Instructions,
    /// System reminders in the history.
    Reminders,
    /// What the user typed (and the prompts of typed skills).
    UserMessages,
    /// The model's messages and reasoning.
    AssistantMessages,
    /// Tool calls and their results.
    ToolTraffic,
    /// Summaries that replaced older history, and provider compaction items.
    CompactionSummaries,
}

impl ContextCategory {
    /// Every category, in display order.
    pub const ALL: [Self; 8] = [
        Self::SystemPrompt,
        Self::Tools,
        Self::Instructions,
        Self::Reminders,
        Self::UserMessages,
        Self::AssistantMessages,
        Self::ToolTraffic,
        Self::CompactionSummaries,
    ];

    /// Its label.
    pub fn label(self) -> &'static str {
        match self {
            Self::SystemPrompt => "System prompt",
            Self::Tools => "Tools",
            Self::Instructions => "Environment and instructions",
            Self::Reminders => "Reminders",
            Self::UserMessages => "User messages",
            Self::AssistantMessages => "Assistant messages",
            Self::ToolTraffic => "Tool calls and results",
            Self::CompactionSummaries => "Compaction summaries",
        }
    }

    /// The category of one history item.
    pub(crate) fn of_item(item: &ResponseItem) -> Self {
        match item {
            ResponseItem::Message { role, .. } if role == "assistant" => Self::AssistantMessages,
            ResponseItem::Message { role, .. } if role == "user" => {
                if agentctx_protocol::is_system_reminder_message(item) {
                    return Self::Reminders;
                }
                let text = item.message_text().unwrap_or_default();
                if agentctx_context::is_summary_message_text(&text) {
                    Self::CompactionSummaries
                } else if agentctx_context::is_harness_user_text(&text) {
                    Self::Instructions
                } else {
                    Self::UserMessages
                }
            }
            ResponseItem::Message { .. } => Self::Instructions,
            ResponseItem::Reasoning { .. } => Self::AssistantMessages,
            ResponseItem::Compaction { .. } => Self::CompactionSummaries,
            _ => Self::ToolTraffic,
        }
    }
}

/// The context by category, the window and the thresholds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextView {
    /// The model's slug.
    pub model: String,
    /// Estimated tokens per category, in [`ContextCategory::ALL`] order, with item counts.
    pub categories: Vec<(ContextCategory, u64, usize)>,
    /// The window and its output reserve.
    pub window: ContextWindow,
    /// The engine's thresholds for it.
    pub thresholds: CompactionThresholds,
    /// The engine's usage: `(used, effective window, percent left)`.
    pub measured: (u64, u64, u8),
}

impl ContextView {
    /// The view of a session about to send `history` with `instructions` and `tools`.
    pub(crate) fn of(
        model: &str,
        instructions: &str,
        tools: &[ToolSpec],
        history: &[ResponseItem],
        window: ContextWindow,
        thresholds: CompactionThresholds,
        measured: (u64, u64, u8),
    ) -> Self {
        let estimator = ApproxTokenEstimator;
        let tools_tokens = if tools.is_empty() {
            0
        } else {
            serde_json::to_string(tools)
                .map(|json| estimator.estimate_text(&json))
                .unwrap_or(0)
        };
        let mut categories: Vec<(ContextCategory, u64, usize)> = ContextCategory::ALL
            .iter()
            .map(|category| (*category, 0, 0))
            .collect();
        let mut add = |category: ContextCategory, tokens: u64| {
            if let Some(entry) = categories.iter_mut().find(|entry| entry.0 == category) {
                entry.1 = entry.1.saturating_add(tokens);
                entry.2 += 1;
            }
        };
        add(
            ContextCategory::SystemPrompt,
            estimator.estimate_text(instructions),
        );
        if !tools.is_empty() {
            add(ContextCategory::Tools, tools_tokens);
        }
        for item in history {
            if matches!(item, ResponseItem::GhostSnapshot { .. }) {
                continue;
            }
            add(
                ContextCategory::of_item(item),
                estimator.estimate_item(item),
            );
        }
        if let Some(entry) = categories
            .iter_mut()
            .find(|entry| entry.0 == ContextCategory::Tools)
        {
            entry.2 = tools.len();
        }
        Self {
            model: model.to_string(),
            categories,
            window,
            thresholds,
            measured,
        }
    }

    /// The estimated total.
    pub fn total(&self) -> u64 {
        self.categories
            .iter()
            .map(|(_, tokens, _)| *tokens)
            .fold(0, u64::saturating_add)
    }

    /// The text shown to the user.
    pub fn render(&self) -> String {
        let window = self.window.window_tokens;
        let total = self.total();
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(
            text,
            "Context usage: {} • {}/{} tokens ({})",
            self.model,
            tokens(total),
            tokens(window),
            percent(total, window)
        );
        for (category, category_tokens, count) in &self.categories {
            let _ = writeln!(
                text,
                "  {:<30}{:>9} tokens {:>6}  ({count} {})",
                format!("{}:", category.label()),
                tokens(*category_tokens),
                percent(*category_tokens, window),
                if *category == ContextCategory::Tools {
                    "tools"
                } else if *category == ContextCategory::SystemPrompt {
                    "text"
                } else {
                    "items"
                }
            );
        }
        let reserved = self.window.reserved_output_tokens;
        let free = window.saturating_sub(total).saturating_sub(reserved);
        let _ = writeln!(
            text,
            "  {:<30}{:>9} tokens {:>6}",
            "Reserved for output:",
            tokens(reserved),
            percent(reserved, window)
        );
        let _ = writeln!(
            text,
            "  {:<30}{:>9} tokens {:>6}",
            "Free space:",
            tokens(free),
            percent(free, window)
        );
        let (used, effective, left) = self.measured;
        let _ = writeln!(
            text,
            "Measured: {} of the {}-token effective window used, {left}% left",
            tokens(used),
            tokens(effective)
        );
        let thresholds = &self.thresholds;
        let _ = writeln!(
            text,
            "Thresholds: warning at {}, auto-compact at {}, blocking at {}",
            tokens(thresholds.warning),
            tokens(thresholds.auto_compact),
            tokens(thresholds.blocking)
        );
        text
    }
}

/// `12,345`.
fn tokens(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `part` as a share of `whole`, one decimal.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    let tenths = u128::from(part) * 1000 / u128::from(whole);
    format!("{}.{}%", tenths / 10, tenths % 10)
}
