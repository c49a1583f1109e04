//! The AGENTS.md message: the project instructions of the working directory, sent as a `user`
//! message in the initial context and recognised again in a recorded history.

use std::path::Path;

use crate::context_markers::AGENTS_MD_BODY_OPEN_TAG;
use crate::context_markers::AGENTS_MD_END_MARKER;
use crate::context_markers::AGENTS_MD_START_MARKER;
use crate::context_markers::USER_INSTRUCTIONS_CLOSE_TAG;
use crate::context_markers::USER_INSTRUCTIONS_OPEN_TAG;
use crate::context_markers::is_marked_fragment;
use crate::models::ContentItem;
use crate::models::ResponseItem;

/// The `user` message that gives the model the AGENTS.md instructions `text` of the directory
/// `cwd`: `# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>`,
/// byte for byte codex-rs's (`core/src/context/user_instructions.rs`, `UserInstructions`,
/// rendered by `core/src/context/fragment.rs`), so either agent reads the other's. `text` is
/// written as given.
pub fn agents_md_message(cwd: &Path, text: &str) -> ResponseItem {
    ResponseItem::user_text(format!(
        "{AGENTS_MD_START_MARKER}{}\n\n{AGENTS_MD_BODY_OPEN_TAG}\n{text}\n{AGENTS_MD_END_MARKER}",
        cwd.display()
    ))
}

/// True for an AGENTS.md message: a `user` message with a text part that is AGENTS.md
/// instructions, in codex's current form ([`agents_md_message`]) or its older
/// `<user_instructions>…</user_instructions>` form, its markers matched as a contextual
/// fragment's (ASCII case ignored, surrounding whitespace aside).
pub fn is_agents_md_message(item: &ResponseItem) -> bool {
    let ResponseItem::Message { role, content, .. } = item else {
        return false;
    };
    role == "user"
        && content.iter().filter_map(ContentItem::as_text).any(|text| {
            is_marked_fragment(text, AGENTS_MD_START_MARKER, AGENTS_MD_END_MARKER)
                || is_marked_fragment(
                    text,
                    USER_INSTRUCTIONS_OPEN_TAG,
                    USER_INSTRUCTIONS_CLOSE_TAG,
                )
        })
}

#[cfg(test)]
#[path = "agents_md_tests.rs"]
mod tests;
