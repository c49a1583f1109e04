use pretty_assertions::assert_eq;

use super::*;

#[test]
fn developer_settings_sections_are_contextual_whatever_the_case_and_indent() {
    let fragment = |text: &str| is_contextual_developer_fragment(&ContentItem::input_text(text));
    assert!(fragment("<model_switch>\nm\n</model_switch>"));
    assert!(fragment("  <PERMISSIONS INSTRUCTIONS>x"));
    assert!(fragment("<collaboration_mode>plan</collaboration_mode>"));
    assert!(fragment("<personality_spec> terse </personality_spec>"));
    assert!(!fragment("Generated images are saved to /tmp."));
    assert!(!is_contextual_developer_fragment(
        &ContentItem::output_text("<model_switch>")
    ));
}

#[test]
fn the_summary_prefix_starts_with_the_sentence_earlier_summaries_are_recognised_by() {
    assert!(COMPACTION_SUMMARY_PREFIX.starts_with(COMPACTION_SUMMARY_FIRST_SENTENCE));
    assert!(COMPACTION_SUMMARY_PREFIX.len() > COMPACTION_SUMMARY_FIRST_SENTENCE.len());
}

#[test]
fn the_user_role_blocks_of_newer_codex_builds_are_harness_context() {
    // As codex-rs `core/src/context/recommended_plugins_instructions.rs` renders the block
    // (markers around "\n{intro}\n\n{- name (id) lines}\n").
    let recommended = "<recommended_plugins>\nHere is a list of plugins that are available but not installed. If the user's query would benefit from one of these plugins, use the `request_plugin_install` tool to suggest that they install it.\n\n- Google Drive (google-drive@openai-curated)\n- GitHub (github@openai-curated)\n</recommended_plugins>";
    assert!(is_contextual_user_fragment(recommended));
    // `core/src/context/goal_context.rs`, `extension_context.rs`, `internal_model_context.rs`.
    assert!(is_contextual_user_fragment(
        "<goal_context>\nkeep the tests green\n</goal_context>"
    ));
    assert!(is_contextual_user_fragment(
        "<extension_context>\nnote\n</extension_context>"
    ));
    assert!(is_contextual_user_fragment(
        "<codex_internal_context source=\"goal\">\nbudget left: 3 turns\n</codex_internal_context>"
    ));
    // A request that only mentions a block is the user's.
    assert!(!is_contextual_user_fragment(
        "why does codex send <recommended_plugins> in my prompt?"
    ));
}

#[test]
fn contextual_fragments_are_recognised_by_both_markers_case_and_whitespace_aside() {
    // (text, contextual fragment, harness user text).
    let cases = [
        (
            "  <ENVIRONMENT_CONTEXT>\n  <cwd>/r</cwd>\n</environment_context>\n",
            true,
            true,
        ),
        (
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
            true,
            true,
        ),
        ("<skill>\nname: x\n</skill>", true, true),
        ("<user_shell_command>ls</user_shell_command>", true, true),
        ("<turn_aborted>\nx\n</turn_aborted>", true, true),
        (
            "<subagent_notification>done</subagent_notification>",
            true,
            true,
        ),
        ("<user_instructions>x</user_instructions>", true, true),
        ("<system-reminder>\nhi\n</system-reminder>", true, true),
        // Claude Code's harness text is harness text, not a codex fragment.
        (
            "<local-command-stdout>Set model</local-command-stdout>",
            false,
            true,
        ),
        ("  [Request interrupted by user]", false, true),
        (
            "<task-notification>\ndone\n</task-notification>",
            false,
            true,
        ),
        // The user's words, even when they name a marker.
        ("please fix the bug", false, false),
        ("<environment_context> is what I mean", false, false),
        ("<skill>", false, false),
        ("</skill>", false, false),
        ("<command-name>/review</command-name>", false, false),
        ("", false, false),
    ];
    let results: Vec<(&str, bool, bool)> = cases
        .iter()
        .map(|(text, _, _)| {
            (
                *text,
                is_contextual_user_fragment(text),
                is_harness_user_text(text),
            )
        })
        .collect();
    assert_eq!(results, cases.to_vec());
}

#[test]
fn one_contextual_part_makes_a_message_contextual() {
    let content = [
        ContentItem::input_text("hello"),
        ContentItem::input_text("<environment_context>\n</environment_context>"),
    ];
    assert!(is_contextual_user_message_content(&content));
    assert!(!is_contextual_user_message_content(&content[..1]));
    assert!(!is_contextual_user_message_content(&[]));
}
