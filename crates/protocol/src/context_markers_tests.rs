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

/// A `user` text is harness context when it opens with a marker's start and closes with its
/// end (the rule `agentctx-context` applies over [`CONTEXTUAL_USER_MARKERS`]).
fn is_marked(text: &str) -> bool {
    let (start, end) = (text.trim_start(), text.trim_end());
    CONTEXTUAL_USER_MARKERS
        .iter()
        .any(|(open, close)| start.starts_with(open) && end.ends_with(close))
}

#[test]
fn the_user_role_blocks_of_newer_codex_builds_are_harness_context() {
    // As codex-rs `core/src/context/recommended_plugins_instructions.rs` renders the block
    // (markers around "\n{intro}\n\n{- name (id) lines}\n").
    let recommended = "<recommended_plugins>\nHere is a list of plugins that are available but not installed. If the user's query would benefit from one of these plugins, use the `request_plugin_install` tool to suggest that they install it.\n\n- Google Drive (google-drive@openai-curated)\n- GitHub (github@openai-curated)\n</recommended_plugins>";
    assert!(is_marked(recommended));
    // `core/src/context/goal_context.rs`, `extension_context.rs`, `internal_model_context.rs`.
    assert!(is_marked(
        "<goal_context>\nkeep the tests green\n</goal_context>"
    ));
    assert!(is_marked("<extension_context>\nnote\n</extension_context>"));
    assert!(is_marked(
        "<codex_internal_context source=\"goal\">\nbudget left: 3 turns\n</codex_internal_context>"
    ));
    // A request that only mentions a block is the user's.
    assert!(!is_marked(
        "why does codex send <recommended_plugins> in my prompt?"
    ));
}
