use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn parse(yaml: &str) -> SkillFrontmatter {
    parse_skill_frontmatter(yaml).expect("valid frontmatter")
}

/// Each field, written in snake_case and in kebab-case, parses to the same value.
#[track_caller]
fn both_styles(snake: &str, kebab: &str, expected: &SkillFrontmatter) {
    assert_eq!(&parse(snake), expected, "snake_case: {snake}");
    assert_eq!(&parse(kebab), expected, "kebab-case: {kebab}");
}

#[test]
fn name_field() {
    let expected = SkillFrontmatter {
        name: Some("deploy".to_string()),
        ..Default::default()
    };
    // `name` is one word: both styles spell it the same.
    both_styles("name: deploy", "name: deploy", &expected);
}

#[test]
fn description_field() {
    let expected = SkillFrontmatter {
        description: Some("Deploy the service".to_string()),
        ..Default::default()
    };
    both_styles(
        "description: Deploy the service",
        "description: \"Deploy the service\"",
        &expected,
    );
}

#[test]
fn when_to_use_field() {
    let expected = SkillFrontmatter {
        when_to_use: Some("When the user asks to ship".to_string()),
        ..Default::default()
    };
    both_styles(
        "when_to_use: When the user asks to ship",
        "when-to-use: When the user asks to ship",
        &expected,
    );
    assert_eq!(parse("whenToUse: When the user asks to ship"), expected);
}

#[test]
fn user_invocable_field() {
    let expected = SkillFrontmatter {
        user_invocable: Some(false),
        ..Default::default()
    };
    both_styles("user_invocable: false", "user-invocable: false", &expected);
    assert_eq!(parse("userInvocable: false"), expected);
}

#[test]
fn disable_model_invocation_field() {
    let expected = SkillFrontmatter {
        disable_model_invocation: Some(true),
        ..Default::default()
    };
    both_styles(
        "disable_model_invocation: true",
        "disable-model-invocation: true",
        &expected,
    );
    assert_eq!(parse("disableModelInvocation: true"), expected);
}

#[test]
fn argument_hint_field() {
    let expected = SkillFrontmatter {
        argument_hint: Some("<environment>".to_string()),
        ..Default::default()
    };
    both_styles(
        "argument_hint: <environment>",
        "argument-hint: <environment>",
        &expected,
    );
    assert_eq!(parse("argumentHint: <environment>"), expected);
}

#[test]
fn allowed_tools_field_as_list_and_as_string() {
    let expected = SkillFrontmatter {
        allowed_tools: Some(vec![
            "Bash(git add:*, git commit:*)".to_string(),
            "Read".to_string(),
        ]),
        ..Default::default()
    };
    both_styles(
        "allowed_tools:\n  - Bash(git add:*, git commit:*)\n  - Read",
        "allowed-tools: Bash(git add:*, git commit:*), Read",
        &expected,
    );
    assert_eq!(
        parse("allowedTools: [\"Bash(git add:*, git commit:*)\", Read]"),
        expected
    );
}

#[test]
fn model_field() {
    let expected = SkillFrontmatter {
        model: Some("haiku".to_string()),
        ..Default::default()
    };
    both_styles("model: haiku", "model: 'haiku'", &expected);
}

#[test]
fn context_field() {
    let expected = SkillFrontmatter {
        context: Some(SkillContext::Fork),
        ..Default::default()
    };
    both_styles("context: fork", "context: \"fork\"", &expected);
    assert_eq!(parse("context: main").context, Some(SkillContext::Main));
    let err = parse_skill_frontmatter("context: sideways").expect_err("unknown context");
    assert!(
        err.to_string().contains("invalid frontmatter yaml"),
        "{err}"
    );
}

#[test]
fn agent_field() {
    let expected = SkillFrontmatter {
        agent: Some("Explore".to_string()),
        ..Default::default()
    };
    both_styles("agent: Explore", "agent: 'Explore'", &expected);
}

#[test]
fn aliases_field_as_list_and_as_string() {
    let expected = SkillFrontmatter {
        aliases: Some(vec!["ship".to_string(), "release".to_string()]),
        ..Default::default()
    };
    both_styles(
        "aliases:\n  - ship\n  - release",
        "aliases: ship, release",
        &expected,
    );
}

#[test]
fn hooks_field() {
    let yaml = "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo check\n          once: true\n";
    let mut hooks = SkillHooksConfig::new();
    hooks.insert(
        "PreToolUse".to_string(),
        vec![HookMatcher {
            matcher: Some("Bash".to_string()),
            hooks: vec![HookDefinition {
                hook_type: "command".to_string(),
                command: Some("echo check".to_string()),
                once: true,
                timeout: None,
            }],
        }],
    );
    let expected = SkillFrontmatter {
        hooks: Some(hooks),
        ..Default::default()
    };
    both_styles(
        yaml,
        &yaml.replace("PreToolUse:", "\"PreToolUse\":"),
        &expected,
    );
}

#[test]
fn base_dir_field() {
    let expected = SkillFrontmatter {
        base_dir: Some(PathBuf::from("scripts")),
        ..Default::default()
    };
    both_styles("base_dir: scripts", "base-dir: scripts", &expected);
    assert_eq!(parse("baseDir: scripts"), expected);
}

#[test]
fn kebab_keys_are_matched_whole_and_values_are_untouched() {
    // A string replacement would rewrite the value too; parsing must not.
    let parsed = parse(
        "when-to-use: mention user-invocable or allowed-tools in text\nargument-hint: when-to-use",
    );
    assert_eq!(
        parsed.when_to_use.as_deref(),
        Some("mention user-invocable or allowed-tools in text")
    );
    assert_eq!(parsed.argument_hint.as_deref(), Some("when-to-use"));
}

#[test]
fn the_same_field_twice_in_two_styles_is_an_error() {
    let err = parse_skill_frontmatter("user_invocable: true\nuser-invocable: false")
        .expect_err("duplicate field");
    assert!(err.to_string().contains("user_invocable"), "{err}");
}

#[test]
fn unknown_keys_are_ignored_and_empty_frontmatter_is_default() {
    assert_eq!(
        parse("version: 2\nlicense: MIT"),
        SkillFrontmatter::default()
    );
    assert_eq!(parse(""), SkillFrontmatter::default());
    assert_eq!(parse("  \n"), SkillFrontmatter::default());
}

#[test]
fn wrong_types_and_bad_yaml_are_errors() {
    assert!(parse_skill_frontmatter("user_invocable: [1, 2]").is_err());
    assert!(parse_skill_frontmatter("description: [unclosed").is_err());
    assert!(parse_skill_frontmatter("just a string").is_err());
}

#[test]
fn split_finds_frontmatter_and_body() {
    let split = split_frontmatter("---\nname: x\n---\n# Title\nbody\n").expect("closed");
    assert_eq!(
        split,
        SplitSkillFile {
            frontmatter: Some("name: x\n"),
            body: "# Title\nbody\n",
        }
    );
    let crlf = split_frontmatter("\u{feff}---\r\nname: x\r\n---\r\nbody").expect("closed");
    assert_eq!(crlf.frontmatter, Some("name: x\r\n"));
    assert_eq!(crlf.body, "body");
}

#[test]
fn split_without_frontmatter_returns_whole_body() {
    let text = "# Title\n---\nnot frontmatter\n";
    assert_eq!(
        split_frontmatter(text).expect("no frontmatter"),
        SplitSkillFile {
            frontmatter: None,
            body: text,
        }
    );
    assert_eq!(split_frontmatter("").expect("empty").body, "");
}

#[test]
fn unclosed_frontmatter_is_an_error() {
    let err = split_frontmatter("---\nname: x\n# body\n").expect_err("unclosed");
    assert!(matches!(err, FrontmatterError::Unclosed));
}

#[test]
fn first_heading_skips_code_fences_and_non_headings() {
    assert_eq!(
        first_heading("intro\n```\n# not this\n```\n#hashtag\n## Real Title ##\n"),
        Some("Real Title".to_string())
    );
    assert_eq!(first_heading("no heading here"), None);
}

#[test]
fn tool_list_splits_outside_parentheses() {
    assert_eq!(
        split_tool_list(" Bash(git add:*, git commit:*) , Read,,Grep "),
        vec!["Bash(git add:*, git commit:*)", "Read", "Grep"]
    );
}

proptest::proptest! {
    #[test]
    fn parsing_arbitrary_text_never_panics(text in "\\PC*") {
        if let Ok(split) = split_frontmatter(&text)
            && let Some(yaml) = split.frontmatter
        {
            let _ = parse_skill_frontmatter(yaml);
        }
        let _ = first_heading(&text);
        let _ = split_tool_list(&text);
    }
}
