//! The unified registry over the fixture tree: filtering, lookup, dispatch and `/help`.

use agentctx_skills::CommandDispatch;
use agentctx_skills::CommandRegistry;
use agentctx_skills::LocalCommandKind;
use agentctx_skills::SkillError;
use agentctx_skills::SkillSource;
use agentctx_skills::SkillsConfig;
use agentctx_skills::SlashCommand;
use agentctx_skills::load_skills;
use agentctx_skills::render_help;
use pretty_assertions::assert_eq;

use crate::suite::fixture::fixture_roots;
use crate::suite::fixture::rel;

fn registry(config: &SkillsConfig) -> CommandRegistry {
    CommandRegistry::new(&load_skills(&fixture_roots()), config)
}

fn names<'a>(items: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    items.into_iter().collect()
}

#[test]
fn all_commands_are_skills_then_builtins_then_local_commands() {
    let registry = registry(&SkillsConfig::default());
    let all: Vec<String> = registry
        .get_all_commands()
        .iter()
        .map(|c| {
            let kind = match c {
                SlashCommand::Local(_) => "local",
                SlashCommand::Prompt(_) => "prompt",
            };
            format!("{} {kind} {}", c.name(), c.source())
        })
        .collect();
    assert_eq!(
        all,
        vec![
            "audit prompt policy",
            "bad-interface prompt user",
            "commit prompt user",
            "deploy prompt user",
            "explain prompt user",
            "internal prompt project",
            "lint prompt project",
            "hidden prompt project",
            "format prompt plugin:acme",
            "greet prompt bundled",
            "review-pr prompt builtin",
            "help local builtin",
            "clear local builtin",
            "compact local builtin",
        ]
    );
    // The user's `help` lost to the reserved local command; the builtin `commit` lost
    // to the user's.
    let lost: Vec<String> = registry
        .shadowed()
        .iter()
        .filter(|s| s.winner_source == SkillSource::Builtin)
        .map(|s| format!("{} {}", s.name, rel(&s.path)))
        .collect();
    assert_eq!(lost, vec!["help home/skills/help/SKILL.md"]);
}

#[test]
fn llm_invocable_skills_follow_the_filtering_rules() {
    let registry = registry(&SkillsConfig::default());
    let llm = registry.get_llm_invocable_skills();
    // Not `internal` (disable_model_invocation), not `lint` (heading description only),
    // not `review-pr` (builtin); `hidden` qualifies through `when_to_use`.
    assert_eq!(
        names(llm.iter().map(|s| s.name.as_str())),
        vec![
            "audit",
            "bad-interface",
            "commit",
            "deploy",
            "explain",
            "hidden",
            "format",
            "greet"
        ]
    );
}

#[test]
fn user_skills_follow_the_filtering_rules() {
    let registry = registry(&SkillsConfig::default());
    let user = registry.get_user_skills();
    // Not `hidden` (user_invocable false), not `lint` (no description), no builtins.
    assert_eq!(
        names(user.iter().map(|s| s.name.as_str())),
        vec![
            "audit",
            "bad-interface",
            "commit",
            "deploy",
            "explain",
            "internal",
            "format",
            "greet"
        ]
    );
}

#[test]
fn disabled_commands_are_not_enabled() {
    let config = SkillsConfig {
        disabled: vec![
            "deploy".to_string(),
            "compact".to_string(),
            "review-pr".to_string(),
        ],
        ..SkillsConfig::default()
    };
    let registry = registry(&config);
    for name in ["deploy", "ship", "compact", "review-pr"] {
        assert!(registry.find(name).is_none(), "{name} should be disabled");
    }
    assert_eq!(
        registry.dispatch_user_input("/deploy prod"),
        Err(SkillError::UnknownCommand {
            name: "deploy".to_string()
        })
    );
}

#[test]
fn lookup_by_name_alias_and_slash() {
    let registry = registry(&SkillsConfig::default());
    assert_eq!(
        registry.find("/ship").map(SlashCommand::name),
        Some("deploy")
    );
    assert_eq!(
        registry.find("why").map(SlashCommand::name),
        Some("explain")
    );
    assert_eq!(
        registry.find("help").map(SlashCommand::source),
        Some(SkillSource::Builtin)
    );
    assert!(registry.find("nope").is_none());
}

#[test]
fn user_dispatch() {
    let registry = registry(&SkillsConfig::default());
    assert_eq!(registry.dispatch_user_input("just text"), Ok(None));
    assert_eq!(registry.dispatch_user_input("/usr/bin/env ls"), Ok(None));
    assert_eq!(
        registry.dispatch_user_input("/compact keep the plan"),
        Ok(Some(CommandDispatch::Local {
            kind: LocalCommandKind::Compact,
            args: "keep the plan".to_string(),
        }))
    );
    assert_eq!(
        registry.dispatch_user_input("/hidden"),
        Err(SkillError::NotUserInvocable {
            name: "hidden".to_string()
        })
    );
    let Ok(Some(CommandDispatch::Prompt(invocation))) =
        registry.dispatch_user_input("  /ship staging")
    else {
        panic!("expected a prompt");
    };
    assert_eq!(invocation.name, "deploy");
    let prompt = invocation.prompt.replace(
        &crate::suite::fixture::fixtures_dir().display().to_string(),
        "<fixtures>",
    );
    insta::assert_snapshot!("deploy_prompt", prompt);
}

#[test]
fn model_invocation() {
    let registry = registry(&SkillsConfig::default());
    let hidden = registry
        .invoke_by_model("hidden", "")
        .expect("hidden is model-invocable");
    assert_eq!(hidden.source, SkillSource::Project);
    for (name, expected) in [
        (
            "internal",
            SkillError::NotModelInvocable {
                name: "internal".to_string(),
            },
        ),
        (
            "lint",
            SkillError::NotModelInvocable {
                name: "lint".to_string(),
            },
        ),
        (
            "review-pr",
            SkillError::NotModelInvocable {
                name: "review-pr".to_string(),
            },
        ),
        (
            "clear",
            SkillError::NotModelInvocable {
                name: "clear".to_string(),
            },
        ),
        (
            "nope",
            SkillError::UnknownCommand {
                name: "nope".to_string(),
            },
        ),
    ] {
        assert_eq!(registry.invoke_by_model(name, ""), Err(expected));
    }
}

#[test]
fn help_text() {
    let registry = registry(&SkillsConfig::default());
    insta::assert_snapshot!("help", render_help(&registry));
}

#[test]
fn help_text_without_skills() {
    let registry = CommandRegistry::new(&Default::default(), &SkillsConfig::default());
    insta::assert_snapshot!("help_no_skills", render_help(&registry));
}
