use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;
use crate::frontmatter::SkillContext;

#[test]
fn defaults_name_to_directory_and_description_to_heading() {
    let skill = parse_skill_file(
        Path::new("/skills/lint"),
        "# Lint the code\n\nRun the linter on $ARGUMENTS.\n",
        SkillSource::Project,
    )
    .expect("valid");
    assert_eq!(skill.name, "lint");
    assert_eq!(skill.description, "Lint the code");
    assert!(!skill.has_description);
    assert!(skill.user_invocable);
    assert!(!skill.disable_model_invocation);
    assert_eq!(skill.context, SkillContext::Main);
    assert_eq!(skill.base_dir, Some(PathBuf::from("/skills/lint")));
    assert_eq!(skill.path, Some(PathBuf::from("/skills/lint/SKILL.md")));
    assert_eq!(skill.loaded_from, LoadedFrom::Skills);
    assert_eq!(
        skill.content,
        "# Lint the code\n\nRun the linter on $ARGUMENTS.\n"
    );
}

#[test]
fn frontmatter_values_are_used_and_trimmed() {
    let skill = parse_skill_file(
        Path::new("/skills/dir"),
        "---\nname: ship\ndescription: '  Ship it  '\nwhen-to-use: ''\nmodel: inherit\nbase_dir: tools\n---\n\nbody\n",
        SkillSource::Plugin {
            plugin_id: "acme".to_string(),
        },
    )
    .expect("valid");
    assert_eq!(skill.name, "ship");
    assert_eq!(skill.description, "Ship it");
    assert!(skill.has_description);
    assert_eq!(skill.when_to_use, None);
    assert_eq!(skill.model.as_deref(), Some("inherit"));
    assert_eq!(skill.model_override(), None);
    assert_eq!(skill.base_dir, Some(PathBuf::from("/skills/dir/tools")));
    assert_eq!(skill.loaded_from, LoadedFrom::Plugin);
    assert_eq!(skill.content, "body\n");
}

#[test]
fn invalid_names_and_aliases_are_rejected() {
    for (text, expected) in [
        (
            "---\nname: two words\n---\n",
            "invalid skill name `two words`: it contains whitespace",
        ),
        (
            "---\nname: a/b\n---\n",
            "invalid skill name `a/b`: it contains `/`",
        ),
        (
            "---\naliases: [ok, 'x y']\n---\n",
            "invalid skill name `x y`: it contains whitespace",
        ),
    ] {
        let err =
            parse_skill_file(Path::new("/skills/fine"), text, SkillSource::User).expect_err(text);
        assert_eq!(err.to_string(), expected);
    }
}

#[test]
fn frontmatter_errors_are_reported() {
    let err = parse_skill_file(Path::new("/s/x"), "---\nname: x\n", SkillSource::User)
        .expect_err("unclosed");
    assert!(matches!(
        err,
        SkillFileError::Frontmatter(FrontmatterError::Unclosed)
    ));
}

const KEYS: &[&str] = &[
    "name",
    "description",
    "when_to_use",
    "when-to-use",
    "whenToUse",
    "user_invocable",
    "user-invocable",
    "disable_model_invocation",
    "disable-model-invocation",
    "argument_hint",
    "argument-hint",
    "allowed_tools",
    "allowed-tools",
    "model",
    "context",
    "agent",
    "aliases",
    "hooks",
    "base_dir",
    "baseDir",
    "unknown",
];

const VALUES: &[&str] = &[
    "",
    "x",
    "true",
    "no",
    "42",
    "-1.5e300",
    "null",
    "~",
    "fork",
    "main",
    "[a, b]",
    "[]",
    "{}",
    "\"a b\"",
    "'Bash(git *), Read'",
    "\n  - one\n  - two",
    "\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo",
    "&anchor x",
    "*anchor",
    "|\n  block\n  text",
    "[unclosed",
    "{a: [b, {c: d}]}",
    "\"/abs/dir\"",
    "../up",
];

proptest::proptest! {
    /// Any combination of known keys (in every spelling) and values, valid or not, gives a
    /// skill or a typed error: never a panic.
    #[test]
    fn any_frontmatter_gives_a_skill_or_an_error(
        lines in proptest::collection::vec(
            (proptest::sample::select(KEYS), proptest::sample::select(VALUES)),
            0..8,
        ),
        body in "[ \\n]{0,2}\\PC{0,40}",
        crlf in proptest::bool::ANY,
    ) {
        let yaml: String = lines
            .iter()
            .map(|(key, value)| format!("{key}: {value}\n"))
            .collect();
        let mut text = format!("---\n{yaml}---\n{body}");
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        match parse_skill_file(Path::new("/skills/fuzz"), &text, SkillSource::Project) {
            Ok(skill) => {
                proptest::prop_assert!(validate_command_name(&skill.name).is_ok(), "{}", skill.name);
                for alias in &skill.aliases {
                    proptest::prop_assert!(validate_command_name(alias).is_ok(), "{}", alias);
                }
                // The body after the closing line, untouched.
                let body = if crlf { body.replace('\n', "\r\n") } else { body };
                proptest::prop_assert_eq!(skill.content, body.trim_start_matches(['\n', '\r']));
                proptest::prop_assert_eq!(skill.path, Some(Path::new("/skills/fuzz").join(SKILL_MD_FILE)));
                proptest::prop_assert_eq!(skill.source, SkillSource::Project);
            }
            // The block is always closed: only bad YAML or a name that cannot be typed is
            // rejected, and a rejected name really is one.
            Err(SkillFileError::Frontmatter(FrontmatterError::Yaml { message })) => {
                proptest::prop_assert!(!message.is_empty());
            }
            Err(SkillFileError::InvalidName { name, reason }) => {
                proptest::prop_assert!(validate_command_name(&name).is_err(), "{} rejected: {}", name, reason);
            }
            Err(err @ SkillFileError::Frontmatter(FrontmatterError::Unclosed)) => {
                proptest::prop_assert!(false, "closed frontmatter read as unclosed: {}", err);
            }
        }
    }
}
