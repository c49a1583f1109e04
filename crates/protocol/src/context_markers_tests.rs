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
