use pretty_assertions::assert_eq;

use super::*;

#[test]
fn placeholders_in_a_path_or_content_are_kept_as_written() {
    assert_eq!(
        plan_file_reference_text("/p/{content}.md", "step {path}"),
        "A plan file exists from plan mode at: /p/{content}.md\n\nPlan contents:\n\nstep {path}\n\nIf this plan is relevant to the current work and not already complete, continue working on it."
    );
}

#[test]
fn skills_are_separated_by_a_rule_in_the_order_given() {
    let skills = [
        InvokedSkill {
            name: "commit".to_string(),
            path: "/s/commit/SKILL.md".into(),
            content: "Write a message.".to_string(),
        },
        InvokedSkill {
            name: "review".to_string(),
            path: "/s/review/SKILL.md".into(),
            content: "Read the diff.".to_string(),
        },
    ];
    assert_eq!(
        invoked_skills_text(&skills),
        "The following skills were invoked in this session. Continue to follow these guidelines:\n\n### Skill: commit\nPath: /s/commit/SKILL.md\n\nWrite a message.\n\n---\n\n### Skill: review\nPath: /s/review/SKILL.md\n\nRead the diff."
    );
}

#[test]
fn a_file_too_large_is_named_with_the_way_to_read_it() {
    assert_eq!(
        compact_file_reference_text("/src/big.rs"),
        "Note: /src/big.rs was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
    );
}
