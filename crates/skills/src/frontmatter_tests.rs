use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn parse(yaml: &str) -> SkillFrontmatter {
    parse_skill_frontmatter(yaml).expect("valid frontmatter")
}

/// The parser message of frontmatter that must be rejected as invalid YAML.
#[track_caller]
fn yaml_error(yaml: &str) -> String {
    match parse_skill_frontmatter(yaml) {
        Err(FrontmatterError::Yaml { message }) => message,
        other => panic!("expected a yaml error for {yaml:?}, got {other:?}"),
    }
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
    // `name` is one word: both styles spell it the same, so check a quoted value instead.
    both_styles("name: deploy", "name: \"deploy\"", &expected);
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
    assert_eq!(
        yaml_error("context: sideways"),
        "unknown variant `sideways`, expected one of main, fork at line 1, column 10"
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
    assert_eq!(
        yaml_error("user_invocable: true\nuser-invocable: false"),
        "duplicate field `user_invocable`"
    );
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
fn wrong_types_and_bad_yaml_are_yaml_errors_with_the_parser_message() {
    assert_eq!(
        yaml_error("user_invocable: [1, 2]"),
        "expected string scalar at line 1, column 17"
    );
    // A list where a string belongs is a type error before the missing `]` is seen.
    assert_eq!(
        yaml_error("description: [unclosed"),
        "expected string scalar at line 1, column 14"
    );
    assert_eq!(
        yaml_error("description: \"unclosed"),
        "unclosed quote at line 1, column 14"
    );
    assert_eq!(
        yaml_error("just a string"),
        "expected mapping start at line 1, column 1"
    );
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

/// How a generated key is spelled.
#[derive(Debug, Clone, Copy)]
enum KeyStyle {
    Snake,
    Kebab,
    Camel,
}

impl KeyStyle {
    fn spell(self, snake: &str) -> String {
        match self {
            Self::Snake => snake.to_string(),
            Self::Kebab => snake.replace('_', "-"),
            Self::Camel => {
                let mut words = snake.split('_');
                let mut key = words.next().unwrap_or_default().to_string();
                for word in words {
                    let mut chars = word.chars();
                    if let Some(first) = chars.next() {
                        key.extend(first.to_uppercase());
                        key.push_str(chars.as_str());
                    }
                }
                key
            }
        }
    }
}

fn key_style() -> impl proptest::strategy::Strategy<Value = KeyStyle> {
    proptest::prop_oneof![
        proptest::strategy::Just(KeyStyle::Snake),
        proptest::strategy::Just(KeyStyle::Kebab),
        proptest::strategy::Just(KeyStyle::Camel),
    ]
}

/// A plain YAML scalar that reads as a string: the leading word keeps it from being read
/// as a number, a boolean, `null`, an anchor or a list.
const SCALAR: &str = "(Run|Use|Ship) [a-z0-9 .]{0,20}[a-z0-9]";

/// A line of frontmatter text that is not a closing `---` (dashes, but more or indented).
fn yaml_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    "[a-z#: -]{0,12}|-{4,6}| ---".prop_map(|line| {
        if line.trim_end() == "---" {
            format!("{line}-")
        } else {
            line
        }
    })
}

proptest::proptest! {
    /// Frontmatter written from known fields, in any key spelling and any field order, reads
    /// back as exactly those fields, and the body after it is untouched.
    #[test]
    fn generated_frontmatter_reads_back_as_written(
        name in proptest::option::of("skill-[a-z0-9-]{0,12}"),
        description in proptest::option::of(SCALAR),
        when_to_use in proptest::option::of((key_style(), SCALAR)),
        user_invocable in proptest::option::of((key_style(), proptest::bool::ANY)),
        allowed_tools in proptest::option::of((key_style(), proptest::collection::vec("(Bash|Read|Grep|Edit)[a-z]{0,4}", 1..4), proptest::bool::ANY)),
        context in proptest::option::of(proptest::bool::ANY),
        order in proptest::collection::vec(proptest::num::usize::ANY, 6),
        body in "(\\PC|\n){0,60}",
        crlf in proptest::bool::ANY,
    ) {
        let mut lines: Vec<String> = Vec::new();
        if let Some(name) = &name {
            lines.push(format!("name: {name}"));
        }
        if let Some(description) = &description {
            lines.push(format!("description: {description}"));
        }
        if let Some((style, text)) = &when_to_use {
            lines.push(format!("{}: {text}", style.spell("when_to_use")));
        }
        if let Some((style, value)) = user_invocable {
            lines.push(format!("{}: {value}", style.spell("user_invocable")));
        }
        if let Some((style, tools, as_list)) = &allowed_tools {
            let key = style.spell("allowed_tools");
            if *as_list {
                lines.push(format!("{key}:"));
                lines.extend(tools.iter().map(|tool| format!("  - {tool}")));
            } else {
                lines.push(format!("{key}: {}", tools.join(", ")));
            }
        }
        if let Some(fork) = context {
            lines.push(format!("context: {}", if fork { "fork" } else { "main" }));
        }
        // Shuffle whole fields (a list field's items stay under their key).
        let mut fields: Vec<String> = Vec::new();
        for line in lines {
            match (line.starts_with("  - "), fields.last_mut()) {
                (true, Some(last)) => {
                    last.push('\n');
                    last.push_str(&line);
                }
                _ => fields.push(line),
            }
        }
        for (index, pick) in order.iter().enumerate().take(fields.len()) {
            let other = index + pick % (fields.len() - index);
            fields.swap(index, other);
        }
        let yaml: String = fields.iter().map(|field| format!("{field}\n")).collect();
        let newline = if crlf { "\r\n" } else { "\n" };
        let text = format!("---\n{yaml}---\n").replace('\n', newline) + &body;

        let split = split_frontmatter(&text).expect("closed frontmatter");
        let frontmatter = split.frontmatter.expect("frontmatter found");
        proptest::prop_assert_eq!(frontmatter, yaml.replace('\n', newline));
        proptest::prop_assert_eq!(split.body, body.as_str());

        let expected = SkillFrontmatter {
            name,
            description,
            when_to_use: when_to_use.map(|(_, text)| text),
            user_invocable: user_invocable.map(|(_, value)| value),
            allowed_tools: allowed_tools.map(|(_, tools, _)| tools),
            context: context.map(|fork| if fork { SkillContext::Fork } else { SkillContext::Main }),
            ..Default::default()
        };
        proptest::prop_assert_eq!(parse_skill_frontmatter(frontmatter).expect("valid yaml"), expected);
    }

    /// Whatever follows an opening `---` line: the block ends at the first `---` line, what
    /// is between is the frontmatter and what follows is the body, byte for byte; without a
    /// closing line the file is rejected as unclosed.
    #[test]
    fn split_cuts_at_the_first_closing_line(
        bom in proptest::bool::ANY,
        yaml_lines in proptest::collection::vec(yaml_line(), 0..6),
        closed in proptest::bool::ANY,
        body in "(\\PC|\n|---\n){0,60}",
    ) {
        let yaml: String = yaml_lines.iter().map(|line| format!("{line}\n")).collect();
        let closing = if closed { "---\n" } else { "" };
        let bom = if bom { "\u{feff}" } else { "" };
        let rest = if closed { body.as_str() } else { "" };
        let text = format!("{bom}---\n{yaml}{closing}{rest}");
        match split_frontmatter(&text) {
            Ok(split) => {
                proptest::prop_assert!(closed, "an unclosed block was accepted: {:?}", split);
                proptest::prop_assert_eq!(split.frontmatter, Some(yaml.as_str()));
                proptest::prop_assert_eq!(split.body, body.as_str());
            }
            Err(err) => {
                proptest::prop_assert!(!closed, "a closed block was rejected: {}", err);
                proptest::prop_assert!(matches!(err, FrontmatterError::Unclosed), "{}", err);
            }
        }
    }

    /// Text that does not open with a `---` line is all body; the helpers never panic on any
    /// text, newlines included.
    #[test]
    fn text_without_an_opening_line_is_all_body(text in "(\\PC|\n){0,200}") {
        let opens = text
            .strip_prefix('\u{feff}')
            .unwrap_or(&text)
            .split_inclusive('\n')
            .next()
            .is_some_and(|first| first.trim_end() == "---");
        if !opens {
            let split = split_frontmatter(&text).expect("no frontmatter to close");
            proptest::prop_assert_eq!(split, SplitSkillFile { frontmatter: None, body: text.as_str() });
        }
        if let Some(title) = first_heading(&text) {
            proptest::prop_assert!(!title.is_empty() && text.contains(title.as_str()));
        }
        for tool in split_tool_list(&text) {
            proptest::prop_assert!(!tool.is_empty() && tool.trim() == tool);
        }
    }
}
