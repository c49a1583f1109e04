use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

fn sub(content: &str, args: &str) -> String {
    substitute_arguments(content, args, &[], None)
}

#[test]
fn placeholder_is_replaced_everywhere() {
    assert_eq!(
        sub("Deploy $ARGUMENTS now; confirm $ARGUMENTS.", "  staging "),
        "Deploy staging now; confirm staging."
    );
    assert_eq!(sub("Deploy $ARGUMENTS.", ""), "Deploy .");
}

#[test]
fn arguments_are_appended_without_placeholder() {
    assert_eq!(
        sub("Explain the code.", "src/main.rs"),
        "Explain the code.\n\nARGUMENTS: src/main.rs"
    );
    assert_eq!(sub("Explain the code.\n", "   "), "Explain the code.\n");
    assert_eq!(
        sub("Explain the code.\n\n", "x"),
        "Explain the code.\n\nARGUMENTS: x"
    );
}

#[test]
fn positions_are_zero_based_and_split_as_a_shell_splits_words() {
    // The documented example: `/migrate-component "search bar" React Vue`.
    let body = "Migrate the $0 component from $ARGUMENTS[1] to $2.";
    assert_eq!(
        sub(body, r#""search bar" React Vue"#),
        "Migrate the search bar component from React to Vue."
    );
    // A position with no argument is empty; the whole string stays as typed, quotes included.
    assert_eq!(
        sub("[$0][$3][$ARGUMENTS]", r#"'a b' c"#),
        "[a b][][\'a b\' c]"
    );
    // Unbalanced quotes fall back to whitespace.
    assert_eq!(sub("$0|$1", r#"it"s x"#), r#"it"s|x"#);
}

#[test]
fn a_dollar_that_is_no_placeholder_is_left_alone() {
    assert_eq!(sub("costs $5x and $ $HOME", ""), "costs $5x and $ $HOME");
    // No placeholder was replaced: the arguments are appended.
    assert_eq!(sub("costs $5x", "a"), "costs $5x\n\nARGUMENTS: a");
    // `$1` is replaced even before punctuation.
    assert_eq!(sub("($1).", "a b"), "(b).");
}

#[test]
fn named_arguments_take_their_positions() {
    let names = vec![
        "issue".to_string(),
        "branch".to_string(),
        "old-name".to_string(),
    ];
    assert_eq!(
        substitute_arguments(
            "Fix issue $issue on branch $branch; rename $old-name; keep $issues and $issue[0].",
            "42 hotfix-auth Foo",
            &names,
            None
        ),
        "Fix issue 42 on branch hotfix-auth; rename Foo; keep $issues and $issue[0]."
    );
    // A name with no argument is empty.
    assert_eq!(substitute_arguments("[$branch]", "42", &names, None), "[]");
}

#[test]
fn the_skill_directory_is_filled_in_and_is_no_argument() {
    let dir = Path::new("/home/u/.agentctx/skills/lint");
    assert_eq!(
        substitute_arguments(
            "Run ${CLAUDE_SKILL_DIR}/scripts/check.sh",
            "src",
            &[],
            Some(dir)
        ),
        "Run /home/u/.agentctx/skills/lint/scripts/check.sh\n\nARGUMENTS: src"
    );
    // Without a directory (a builtin) the placeholder stays.
    assert_eq!(
        substitute_arguments("${CLAUDE_SKILL_DIR}", "", &[], None),
        "${CLAUDE_SKILL_DIR}"
    );
}
