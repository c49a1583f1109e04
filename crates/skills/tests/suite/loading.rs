//! Loading the fixture tree: priority, shadowing, diagnostics, inode de-duplication.

use std::fs;
use std::path::PathBuf;

use agentctx_skills::HookDefinition;
use agentctx_skills::HookMatcher;
use agentctx_skills::LoadedFrom;
use agentctx_skills::SkillContext;
use agentctx_skills::SkillHooksConfig;
use agentctx_skills::SkillInterface;
use agentctx_skills::SkillRoots;
use agentctx_skills::SkillSource;
use agentctx_skills::load_skills;
use pretty_assertions::assert_eq;

use crate::suite::fixture::fixture_roots;
use crate::suite::fixture::fixtures_dir;
use crate::suite::fixture::rel;

#[test]
fn skills_load_in_priority_order_one_per_name() {
    let outcome = load_skills(&fixture_roots());
    let loaded: Vec<(String, String, String)> = outcome
        .skills
        .iter()
        .map(|skill| {
            (
                skill.name.clone(),
                skill.source.to_string(),
                rel(skill.path.as_deref().expect("loaded skills have a path")),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = [
        ("audit", "policy", "policy/audit/SKILL.md"),
        (
            "bad-interface",
            "user",
            "home/skills/bad-interface/SKILL.md",
        ),
        ("commit", "user", "home/skills/commit/SKILL.md"),
        ("deploy", "user", "home/skills/deploy/SKILL.md"),
        ("explain", "user", "home/skills/explain/SKILL.md"),
        ("help", "user", "home/skills/help/SKILL.md"),
        (
            "internal",
            "project",
            "project/.agentctx/skills/internal/SKILL.md",
        ),
        ("lint", "project", "project/.agentctx/skills/lint/SKILL.md"),
        (
            "hidden",
            "project",
            "project/.claude/skills/hidden/SKILL.md",
        ),
        ("format", "plugin:acme", "plugins/acme/format/SKILL.md"),
        ("greet", "bundled", "home/skills-bundled/greet/SKILL.md"),
    ]
    .iter()
    .map(|(a, b, c)| ((*a).to_string(), (*b).to_string(), (*c).to_string()))
    .collect();
    assert_eq!(loaded, expected);
}

#[test]
fn later_definitions_of_a_name_are_shadowed() {
    let outcome = load_skills(&fixture_roots());
    let shadowed: Vec<String> = outcome
        .shadowed
        .iter()
        .map(|s| {
            format!(
                "{} ({}) {} <- shadowed by ({}) {}",
                s.name,
                s.source,
                rel(&s.path),
                s.winner_source,
                s.winner_path.as_deref().map(rel).unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        shadowed,
        vec![
            "deploy (project) project/.agentctx/skills/deploy/SKILL.md <- shadowed by (user) home/skills/deploy/SKILL.md",
            "lint (project) project/.claude/skills/lint/SKILL.md <- shadowed by (project) project/.agentctx/skills/lint/SKILL.md",
            "deploy (bundled) home/skills-bundled/deploy/SKILL.md <- shadowed by (user) home/skills/deploy/SKILL.md",
        ]
    );
}

#[test]
fn malformed_skills_are_reported_and_skipped_without_hiding_others() {
    let outcome = load_skills(&fixture_roots());
    let errors: Vec<String> = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", rel(&e.path), e.reason))
        .collect();
    insta::assert_snapshot!("load_errors", errors.join("\n"));
    // The broken skills are skipped; their neighbours in the same directory are loaded.
    let names: Vec<&str> = outcome.skills.iter().map(|s| s.name.as_str()).collect();
    for broken in ["bad-yaml", "unclosed", "lowercase", "notes"] {
        assert!(!names.contains(&broken), "{broken} should be skipped");
    }
    assert!(names.contains(&"deploy") && names.contains(&"hidden"));
}

#[test]
fn kebab_case_fixture_has_every_field() {
    let outcome = load_skills(&fixture_roots());
    let deploy = outcome
        .skills
        .iter()
        .find(|s| s.name == "deploy")
        .expect("deploy");
    let mut hooks = SkillHooksConfig::new();
    hooks.insert(
        "PreToolUse".to_string(),
        vec![HookMatcher {
            matcher: Some("Bash".to_string()),
            hooks: vec![HookDefinition {
                hook_type: "command".to_string(),
                command: Some("./check-branch.sh".to_string()),
                once: true,
                timeout: None,
            }],
        }],
    );
    assert_eq!(deploy.description, "Deploy the service to an environment");
    assert!(deploy.has_description);
    assert_eq!(
        deploy.when_to_use.as_deref(),
        Some("When the user asks to deploy or ship a build")
    );
    assert!(deploy.user_invocable);
    assert!(!deploy.disable_model_invocation);
    assert_eq!(deploy.argument_hint.as_deref(), Some("<environment>"));
    assert_eq!(
        deploy.allowed_tools,
        Some(vec!["Bash(./deploy.sh *)".to_string(), "Read".to_string()])
    );
    assert_eq!(deploy.model_override(), Some("sonnet"));
    assert_eq!(deploy.context, SkillContext::Fork);
    assert_eq!(deploy.agent.as_deref(), Some("general-purpose"));
    assert_eq!(deploy.aliases, vec!["ship".to_string()]);
    assert_eq!(deploy.hooks, Some(hooks));
    assert_eq!(deploy.loaded_from, LoadedFrom::Skills);
}

#[test]
fn snake_case_fixture_has_every_field_and_its_interface() {
    let outcome = load_skills(&fixture_roots());
    let explain = outcome
        .skills
        .iter()
        .find(|s| s.name == "explain")
        .expect("explain");
    let dir = fixtures_dir().join("home/skills/explain");
    assert_eq!(explain.description, "Explain code to a newcomer");
    assert_eq!(
        explain.when_to_use.as_deref(),
        Some("When the user asks how some code works")
    );
    assert_eq!(explain.argument_hint.as_deref(), Some("<file or symbol>"));
    assert_eq!(
        explain.allowed_tools,
        Some(vec!["Read".to_string(), "Grep".to_string()])
    );
    assert_eq!(explain.model.as_deref(), Some("haiku"));
    assert_eq!(explain.context, SkillContext::Main);
    assert_eq!(explain.aliases, vec!["why".to_string()]);
    assert_eq!(explain.base_dir, Some(dir.join(".")));
    assert_eq!(
        explain.interface,
        Some(SkillInterface {
            display_name: Some("Code Explainer".to_string()),
            short_description: Some("Explains code step by step".to_string()),
            icon_small: Some(dir.join("assets/icon-small.svg")),
            icon_large: None,
            brand_color: Some("#4A90D9".to_string()),
            default_prompt: Some("Explain src/main.rs".to_string()),
        })
    );
}

#[test]
fn invalid_interface_fields_are_dropped_but_the_skill_loads() {
    let outcome = load_skills(&fixture_roots());
    let skill = outcome
        .skills
        .iter()
        .find(|s| s.name == "bad-interface")
        .expect("bad-interface loads");
    assert_eq!(
        skill.interface,
        Some(SkillInterface {
            short_description: Some("Still a valid short description".to_string()),
            ..SkillInterface::default()
        })
    );
}

#[test]
fn heading_fallback_and_flags_from_fixtures() {
    let outcome = load_skills(&fixture_roots());
    let lint = outcome
        .skills
        .iter()
        .find(|s| s.name == "lint")
        .expect("lint");
    assert_eq!(lint.description, "Lint the workspace");
    assert!(!lint.has_description);
    let hidden = outcome
        .skills
        .iter()
        .find(|s| s.name == "hidden")
        .expect("hidden");
    assert!(hidden.is_hidden());
    let internal = outcome
        .skills
        .iter()
        .find(|s| s.name == "internal")
        .expect("internal");
    assert!(internal.disable_model_invocation);
    let format = outcome
        .skills
        .iter()
        .find(|s| s.name == "format")
        .expect("format");
    assert_eq!(
        format.source,
        SkillSource::Plugin {
            plugin_id: "acme".to_string()
        }
    );
    assert_eq!(format.loaded_from, LoadedFrom::Plugin);
    let greet = outcome
        .skills
        .iter()
        .find(|s| s.name == "greet")
        .expect("greet");
    assert_eq!(greet.loaded_from, LoadedFrom::Bundled);
}

#[test]
fn missing_roots_are_not_errors() {
    let empty = tempfile::tempdir().expect("tempdir");
    let outcome = load_skills(&SkillRoots::new(
        empty.path().join("no-home"),
        empty.path().join("no-project"),
    ));
    assert_eq!(outcome, Default::default());
}

fn write_skill(dir: &PathBuf, body: &str) {
    fs::create_dir_all(dir).expect("mkdir");
    fs::write(dir.join("SKILL.md"), body).expect("write");
}

#[cfg(unix)]
#[test]
fn the_same_file_reached_twice_is_loaded_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    write_skill(
        &home.join("skills/shared"),
        "---\ndescription: Shared\n---\n",
    );
    fs::create_dir_all(project.join(".agentctx/skills")).expect("mkdir");
    // The project links the user's skill directory under another name, so the name
    // would be `linked`; only the inode reveals it is the same file.
    std::os::unix::fs::symlink(
        home.join("skills/shared"),
        project.join(".agentctx/skills/linked"),
    )
    .expect("symlink");
    // The policy directory is the user's directory itself (overlapping roots).
    let roots = SkillRoots {
        policy_dir: Some(home.join("skills")),
        ..SkillRoots::new(&home, &project)
    };
    let outcome = load_skills(&roots);
    let loaded: Vec<(&str, SkillSource)> = outcome
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.source.clone()))
        .collect();
    assert_eq!(loaded, vec![("shared", SkillSource::Policy)]);
    assert_eq!(outcome.shadowed, vec![]);
    assert_eq!(outcome.errors, vec![]);
}

#[test]
fn a_hard_to_read_skill_directory_does_not_stop_the_others() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    write_skill(&home.join("skills/good"), "---\ndescription: Good\n---\n");
    // A file where a skill directory is expected is ignored.
    fs::write(home.join("skills/stray.md"), "not a skill").expect("write");
    // A SKILL.md that is a directory cannot be read.
    fs::create_dir_all(home.join("skills/weird/SKILL.md")).expect("mkdir");
    let outcome = load_skills(&SkillRoots::new(&home, tmp.path().join("project")));
    assert_eq!(
        outcome
            .skills
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        vec!["good"]
    );
    assert_eq!(outcome.errors.len(), 1);
    assert!(outcome.errors[0].path.ends_with("weird/SKILL.md"));
    assert!(
        outcome.errors[0].reason.starts_with("cannot read file: "),
        "{:?}",
        outcome.errors
    );
}
