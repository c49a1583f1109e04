//! The markers of harness-written context: text the harness sends with the `user` or `developer`
//! role that is not what the user typed.
//!
//! Several crates recognise these fragments (the context manager to find user turns, the
//! reminder engine to place its reminders, the replay to count turns), so each marker is
//! defined once, here, beside the reminder tags. The texts are codex-rs's, so a codex rollout's
//! context is recognised as such; the Claude Code ones are what its transcripts hold. See
//! docs/design/context-and-tokens.md, "Contextual fragments".

use crate::models::ContentItem;
use crate::reminder_tags::is_system_reminder_text;

/// Start marker of AGENTS.md instructions (codex-rs's current form).
pub(crate) const AGENTS_MD_START_MARKER: &str = "# AGENTS.md instructions for ";
/// End marker of AGENTS.md instructions.
pub(crate) const AGENTS_MD_END_MARKER: &str = "</INSTRUCTIONS>";
/// Opening tag of the body of AGENTS.md instructions (its closing tag is the end marker).
pub(crate) const AGENTS_MD_BODY_OPEN_TAG: &str = "<INSTRUCTIONS>";
/// Opening tag of user instructions (codex-rs's older form of AGENTS.md instructions).
pub(crate) const USER_INSTRUCTIONS_OPEN_TAG: &str = "<user_instructions>";
/// Closing tag of user instructions.
pub(crate) const USER_INSTRUCTIONS_CLOSE_TAG: &str = "</user_instructions>";
/// How a user instructions message starts, in codex-rs's older and newer forms.
pub const USER_INSTRUCTIONS_PREFIXES: [&str; 2] =
    [USER_INSTRUCTIONS_OPEN_TAG, AGENTS_MD_START_MARKER];
/// Opening tag of the environment context.
pub const ENVIRONMENT_CONTEXT_OPEN_TAG: &str = "<environment_context>";
/// Closing tag of the environment context.
pub const ENVIRONMENT_CONTEXT_CLOSE_TAG: &str = "</environment_context>";
/// Opening tag of a skill body.
pub(crate) const SKILL_OPEN_TAG: &str = "<skill>";
/// Closing tag of a skill body.
pub(crate) const SKILL_CLOSE_TAG: &str = "</skill>";
/// Opening tag of a shell command the user ran directly.
pub(crate) const USER_SHELL_COMMAND_OPEN_TAG: &str = "<user_shell_command>";
/// Closing tag of a shell command the user ran directly.
pub(crate) const USER_SHELL_COMMAND_CLOSE_TAG: &str = "</user_shell_command>";
/// Opening tag of a turn-aborted notice.
pub(crate) const TURN_ABORTED_OPEN_TAG: &str = "<turn_aborted>";
/// Closing tag of a turn-aborted notice.
pub(crate) const TURN_ABORTED_CLOSE_TAG: &str = "</turn_aborted>";
/// Opening tag of a sub-agent notification.
pub(crate) const SUBAGENT_NOTIFICATION_OPEN_TAG: &str = "<subagent_notification>";
/// Closing tag of a sub-agent notification.
pub(crate) const SUBAGENT_NOTIFICATION_CLOSE_TAG: &str = "</subagent_notification>";
/// Opening tag of the plugins codex recommends installing (codex-rs
/// `core/src/context/recommended_plugins_instructions.rs`, a `user` message since 0.12x).
pub(crate) const RECOMMENDED_PLUGINS_OPEN_TAG: &str = "<recommended_plugins>";
/// Closing tag of the recommended plugins.
pub(crate) const RECOMMENDED_PLUGINS_CLOSE_TAG: &str = "</recommended_plugins>";
/// Opening tag of a goal steering prompt (codex-rs `core/src/context/goal_context.rs`).
pub(crate) const GOAL_CONTEXT_OPEN_TAG: &str = "<goal_context>";
/// Closing tag of a goal steering prompt.
pub(crate) const GOAL_CONTEXT_CLOSE_TAG: &str = "</goal_context>";
/// Opening tag of an extension's hidden context (codex-rs
/// `core/src/context/extension_context.rs`).
pub(crate) const EXTENSION_CONTEXT_OPEN_TAG: &str = "<extension_context>";
/// Closing tag of an extension's hidden context.
pub(crate) const EXTENSION_CONTEXT_CLOSE_TAG: &str = "</extension_context>";
/// How codex's internal model context opens: the tag carries a `source` attribute
/// (`<codex_internal_context source="goal">`; codex-rs `core/src/context/internal_model_context.rs`).
pub(crate) const INTERNAL_CONTEXT_OPEN_MARKER: &str = "<codex_internal_context";
/// Closing tag of codex's internal model context.
pub(crate) const INTERNAL_CONTEXT_CLOSE_TAG: &str = "</codex_internal_context>";

/// `(start, end)` markers of every contextual user fragment kind: a `user` message whose text
/// starts with one and ends with the other was written by the harness. The blocks newer codex
/// builds write with the `user` role (recommended plugins, goal and extension context, codex's
/// internal context: the `user` fragments of codex-rs `core/src/context/`) are among them, so
/// none of them is ever taken for the user's request.
pub const CONTEXTUAL_USER_MARKERS: [(&str, &str); 11] = [
    (AGENTS_MD_START_MARKER, AGENTS_MD_END_MARKER),
    (ENVIRONMENT_CONTEXT_OPEN_TAG, ENVIRONMENT_CONTEXT_CLOSE_TAG),
    (USER_INSTRUCTIONS_OPEN_TAG, USER_INSTRUCTIONS_CLOSE_TAG),
    (SKILL_OPEN_TAG, SKILL_CLOSE_TAG),
    (USER_SHELL_COMMAND_OPEN_TAG, USER_SHELL_COMMAND_CLOSE_TAG),
    (TURN_ABORTED_OPEN_TAG, TURN_ABORTED_CLOSE_TAG),
    (
        SUBAGENT_NOTIFICATION_OPEN_TAG,
        SUBAGENT_NOTIFICATION_CLOSE_TAG,
    ),
    (RECOMMENDED_PLUGINS_OPEN_TAG, RECOMMENDED_PLUGINS_CLOSE_TAG),
    (GOAL_CONTEXT_OPEN_TAG, GOAL_CONTEXT_CLOSE_TAG),
    (EXTENSION_CONTEXT_OPEN_TAG, EXTENSION_CONTEXT_CLOSE_TAG),
    (INTERNAL_CONTEXT_OPEN_MARKER, INTERNAL_CONTEXT_CLOSE_TAG),
];

/// Opening tag of the permissions instructions developer section.
pub(crate) const PERMISSIONS_INSTRUCTIONS_OPEN_TAG: &str = "<permissions instructions>";
/// Opening tag of the model switch developer section.
pub const MODEL_SWITCH_OPEN_TAG: &str = "<model_switch>";
/// Closing tag of the model switch developer section.
pub const MODEL_SWITCH_CLOSE_TAG: &str = "</model_switch>";
/// Opening tag of the collaboration mode developer section.
pub const COLLABORATION_MODE_OPEN_TAG: &str = "<collaboration_mode>";
/// Closing tag of the collaboration mode developer section.
pub const COLLABORATION_MODE_CLOSE_TAG: &str = "</collaboration_mode>";
/// Opening tag of the personality developer section.
pub const PERSONALITY_SPEC_OPEN_TAG: &str = "<personality_spec>";
/// Closing tag of the personality developer section.
pub const PERSONALITY_SPEC_CLOSE_TAG: &str = "</personality_spec>";

/// How the developer sections that describe turn settings start. Such a section records a
/// settings change (or is part of the initial context), so a rollback may trim it with the turn
/// it preceded; any other developer text is persistent.
pub(crate) const CONTEXTUAL_DEVELOPER_PREFIXES: [&str; 4] = [
    PERMISSIONS_INSTRUCTIONS_OPEN_TAG,
    MODEL_SWITCH_OPEN_TAG,
    COLLABORATION_MODE_OPEN_TAG,
    PERSONALITY_SPEC_OPEN_TAG,
];

/// How Claude Code's harness text starts when it travels as a `user` record: local command
/// output and caveats, background task notifications, and the interruption marker. None of it
/// is a prompt the user typed. (A slash command record is harness text only when no model
/// request follows it; the importer decides that.)
pub const CLAUDE_CODE_HARNESS_PREFIXES: [&str; 5] = [
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<task-notification>",
    "[Request interrupted by user",
];

/// The frame a compaction puts before its summary in the new history, so the model reads the
/// summary as another model's handoff and builds on it: codex-rs's
/// `core/templates/compact/summary_prefix.md`, byte for byte (its double space included), so a
/// history compacted by either reads the same (docs/design/compaction.md, "Full compaction").
pub const COMPACTION_SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:";

/// How Claude Code's continuation message after a compaction starts.
pub const CLAUDE_CODE_CONTINUATION_PREFIX: &str =
    "This session is being continued from a previous conversation that ran out of context.";

/// The first sentence of [`COMPACTION_SUMMARY_PREFIX`]: the sentences after it differ between
/// codex versions, so earlier summaries are recognised by this one.
pub(crate) const COMPACTION_SUMMARY_FIRST_SENTENCE: &str = "Another language model started to solve this problem and produced a summary of its thinking process.";

/// How a summary that an earlier compaction left in the history starts, in either agent.
pub const COMPACTION_SUMMARY_PREFIXES: [&str; 2] = [
    COMPACTION_SUMMARY_FIRST_SENTENCE,
    CLAUDE_CODE_CONTINUATION_PREFIX,
];

/// Opening tag of the slash command a Claude Code `user` record names
/// (`<command-name>/model</command-name>`).
pub const CLAUDE_CODE_COMMAND_NAME_OPEN_TAG: &str = "<command-name>";

/// True when a developer content part is a turn-settings section (permissions instructions,
/// model switch, collaboration mode, personality), its opening tag compared case-insensitively
/// after leading whitespace.
pub fn is_contextual_developer_fragment(part: &ContentItem) -> bool {
    let ContentItem::InputText { text } = part else {
        return false;
    };
    let trimmed = text.trim_start();
    CONTEXTUAL_DEVELOPER_PREFIXES
        .iter()
        .any(|prefix| starts_with_ignore_ascii_case(trimmed, prefix))
}

/// True when `text` is a contextual user fragment (a text of [`CONTEXTUAL_USER_MARKERS`]: it
/// starts with a kind's start marker and ends with its end marker, ASCII case ignored, leading
/// and trailing whitespace aside) or a system reminder. codex-rs recognises its fragments so
/// (`core/src/context/fragment.rs`, `ContextualUserFragment::matches_text`).
pub fn is_contextual_user_fragment(text: &str) -> bool {
    is_system_reminder_text(text)
        || CONTEXTUAL_USER_MARKERS
            .iter()
            .any(|(start, end)| is_marked_fragment(text, start, end))
}

/// True when any text part of a `user` message's `content` is a contextual fragment: the
/// message is harness context, not the user's words (codex-rs `core/src/event_mapping.rs`,
/// `is_contextual_user_message_content`: one fragment is enough).
pub fn is_contextual_user_message_content(content: &[ContentItem]) -> bool {
    content
        .iter()
        .filter_map(ContentItem::as_text)
        .any(is_contextual_user_fragment)
}

/// True when `text` is Claude Code's harness text: it starts, after leading whitespace, with
/// one of [`CLAUDE_CODE_HARNESS_PREFIXES`] (local command output and caveats, task
/// notifications, the interruption marker).
pub fn is_claude_code_harness_text(text: &str) -> bool {
    let trimmed = text.trim_start();
    CLAUDE_CODE_HARNESS_PREFIXES
        .iter()
        .any(|prefix| trimmed.starts_with(prefix))
}

/// True for a `user` text the harness wrote, in either agent: a contextual fragment or a system
/// reminder ([`is_contextual_user_fragment`]), or Claude Code's harness text
/// ([`is_claude_code_harness_text`]). A `user` message with such a part starts no user turn
/// (see [`crate::is_user_turn_start`]).
pub fn is_harness_user_text(text: &str) -> bool {
    is_contextual_user_fragment(text) || is_claude_code_harness_text(text)
}

/// True when `text`, leading and trailing whitespace aside, starts with `start` and ends with
/// `end`, ASCII case ignored.
pub(crate) fn is_marked_fragment(text: &str, start: &str, end: &str) -> bool {
    starts_with_ignore_ascii_case(text.trim_start(), start)
        && ends_with_ignore_ascii_case(text.trim_end(), end)
}

/// True when `text` ends with `suffix`, ASCII case ignored.
fn ends_with_ignore_ascii_case(text: &str, suffix: &str) -> bool {
    text.len()
        .checked_sub(suffix.len())
        .and_then(|start| text.as_bytes().get(start..))
        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix.as_bytes()))
}

/// True when `text` starts with `prefix`, ASCII case ignored.
pub(crate) fn starts_with_ignore_ascii_case(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

#[cfg(test)]
#[path = "context_markers_tests.rs"]
mod tests;
