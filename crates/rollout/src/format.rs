//! The file formats the reader understands, and how the first recognisable line tells them apart.

use serde::Serialize;
use serde_json::Map;
use serde_json::Value;

/// The format of a session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RolloutFormat {
    /// A Codex rollout in the `{timestamp, type, payload}` envelope (late 2025 onwards).
    Codex,
    /// An older Codex rollout: a bare session object, then bare response items and
    /// `{"record_type": "state"}` lines.
    CodexLegacy,
    /// A Claude Code transcript (`~/.claude/projects/<cwd>/<session>.jsonl`).
    ClaudeCode,
}

/// `type`s of Claude Code records seen in 1.x and 2.x transcripts (conversation and bookkeeping).
const CLAUDE_RECORD_TYPES: [&str; 10] = [
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "custom-title",
    "permission-mode",
];

/// Fields only Claude Code records carry.
const CLAUDE_FIELDS: [&str; 4] = ["sessionId", "parentUuid", "leafUuid", "isSidechain"];

/// `type`s of bare response items in legacy Codex rollouts.
const LEGACY_ITEM_TYPES: [&str; 10] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
];

impl RolloutFormat {
    /// The family name used in reports: `codex` or `claude`.
    pub fn family(self) -> &'static str {
        match self {
            Self::Codex | Self::CodexLegacy => "codex",
            Self::ClaudeCode => "claude",
        }
    }

    /// The format a JSON object line belongs to, `None` when the line alone cannot tell.
    pub fn detect(object: &Map<String, Value>) -> Option<Self> {
        let kind = object.get("type").and_then(Value::as_str);
        if object.contains_key("record_type") {
            return Some(Self::CodexLegacy);
        }
        if kind.is_some() && object.contains_key("payload") {
            return Some(Self::Codex);
        }
        if CLAUDE_FIELDS
            .iter()
            .any(|field| object.contains_key(*field))
            || kind.is_some_and(|kind| CLAUDE_RECORD_TYPES.contains(&kind))
        {
            return Some(Self::ClaudeCode);
        }
        match kind {
            Some(kind) if LEGACY_ITEM_TYPES.contains(&kind) => Some(Self::CodexLegacy),
            Some(_) => None,
            None if object.get("id").is_some_and(Value::is_string) => Some(Self::CodexLegacy),
            None => None,
        }
    }
}
