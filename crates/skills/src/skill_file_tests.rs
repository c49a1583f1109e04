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
