use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;
use crate::builtin::builtin_prompt_skills;
use crate::frontmatter::HookDefinition;
use crate::frontmatter::HookMatcher;
use crate::skill_file::parse_skill_file;

#[test]
fn budget_keeps_short_content_and_exact_limit() {
    let exact = "x".repeat(SKILL_PROMPT_MAX_CHARS);
    assert_eq!(apply_skill_token_budget("short"), "short");
    assert_eq!(apply_skill_token_budget(&exact), exact);
}

#[test]
fn budget_truncates_by_characters_with_notice() {
    // Multi-byte characters: a byte cut would split one.
    let long = "é".repeat(SKILL_PROMPT_MAX_CHARS + 10);
    let out = apply_skill_token_budget(&long);
    let (kept, notice) = out.split_at(out.find("\n\n[").expect("notice"));
    assert_eq!(kept.chars().count(), SKILL_PROMPT_MAX_CHARS);
    insta::assert_snapshot!("truncation_notice", notice);
}

#[test]
fn skill_prompt_with_base_dir_and_appended_arguments() {
    let skill = parse_skill_file(
        &PathBuf::from("/home/u/.agentctx/skills/explain"),
        "---\ndescription: Explain code\n---\n# Explain\n\nExplain the given code to a newcomer.\n",
        SkillSource::User,
    )
    .expect("valid");
    insta::assert_snapshot!(
        "prompt_appended_arguments",
        build_skill_prompt(&skill, "src/lib.rs")
    );
}

#[test]
fn skill_prompt_with_placeholder() {
    let skill = parse_skill_file(
        &PathBuf::from("/repo/.agentctx/skills/deploy"),
        "---\ndescription: Deploy\n---\nDeploy to $ARGUMENTS, then report the URL of $ARGUMENTS.\n",
        SkillSource::Project,
    )
    .expect("valid");
    insta::assert_snapshot!("prompt_placeholder", build_skill_prompt(&skill, "staging"));
}

#[test]
fn over_budget_skill_prompt_is_truncated() {
    let body = format!("Read this.\n{}\n$ARGUMENTS\n", "filler ".repeat(3000));
    let skill =
        parse_skill_file(&PathBuf::from("/s/big"), &body, SkillSource::User).expect("valid");
    let prompt = build_skill_prompt(&skill, "args");
    assert!(prompt.ends_with("\n\n[Content truncated - exceeded 15000 character limit]"));
    assert_eq!(
        prompt.chars().count(),
        SKILL_PROMPT_MAX_CHARS + "\n\n[Content truncated - exceeded 15000 character limit]".len()
    );
}

#[test]
fn builtin_prompts_as_the_model_sees_them() {
    let builtins = builtin_prompt_skills();
    for skill in &builtins {
        let name = skill.name.replace('-', "_");
        insta::assert_snapshot!(
            format!("builtin_{name}_no_args"),
            build_skill_prompt(skill, "")
        );
    }
    let commit = builtins
        .iter()
        .find(|s| s.name == "commit")
        .expect("commit");
    insta::assert_snapshot!(
        "builtin_commit_with_args",
        build_skill_prompt(commit, "only the parser changes; mention issue 12")
    );
    let review = builtins
        .iter()
        .find(|s| s.name == "review-pr")
        .expect("review-pr");
    insta::assert_snapshot!(
        "builtin_review_pr_with_args",
        build_skill_prompt(review, "42")
    );
}

#[test]
fn invocation_carries_execution_settings() {
    let skill = parse_skill_file(
        &PathBuf::from("/s/forked"),
        "---\ncontext: fork\nagent: Explore\nmodel: haiku\nallowed-tools: Read, Grep\nhooks:\n  PreToolUse:\n    - matcher: Read\n      hooks:\n        - type: command\n          command: ./check.sh\n          once: true\n---\nLook around.\n",
        SkillSource::User,
    )
    .expect("valid");
    let invocation = SkillInvocation::new(&skill, " here ");
    assert_eq!(
        invocation,
        SkillInvocation {
            name: "forked".to_string(),
            source: SkillSource::User,
            path: Some(PathBuf::from("/s/forked/SKILL.md")),
            args: "here".to_string(),
            prompt: "Base directory for this skill: /s/forked\n\nLook around.\n\nARGUMENTS: here"
                .to_string(),
            allowed_tools: Some(vec!["Read".to_string(), "Grep".to_string()]),
            model: Some("haiku".to_string()),
            context: SkillContext::Fork,
            agent: Some("Explore".to_string()),
            hooks: Some(
                [(
                    "PreToolUse".to_string(),
                    vec![HookMatcher {
                        matcher: Some("Read".to_string()),
                        hooks: vec![HookDefinition {
                            hook_type: "command".to_string(),
                            command: Some("./check.sh".to_string()),
                            once: true,
                            timeout: None,
                        }],
                    }],
                )]
                .into_iter()
                .collect()
            ),
        }
    );
}

#[test]
fn named_arguments_and_the_skill_directory_reach_the_prompt() {
    for frontmatter in ["arguments: [issue, branch]", "arguments: issue branch"] {
        let skill = parse_skill_file(
            &PathBuf::from("/repo/.agentctx/skills/fix-and-branch"),
            &format!(
                "---\ndescription: Fix an issue on a branch\n{frontmatter}\n---\nFix issue $issue on \
                 branch $branch, with ${{CLAUDE_SKILL_DIR}}/checklist.md.\n"
            ),
            SkillSource::Project,
        )
        .expect("valid");
        assert_eq!(skill.argument_names, ["issue", "branch"]);
        let invocation = SkillInvocation::new(&skill, "42 hotfix-auth");
        assert_eq!(
            invocation.prompt,
            "Base directory for this skill: /repo/.agentctx/skills/fix-and-branch\n\nFix issue 42 \
             on branch hotfix-auth, with /repo/.agentctx/skills/fix-and-branch/checklist.md.\n"
        );
    }
}

#[test]
fn the_session_id_is_filled_in_by_the_host() {
    let skill = parse_skill_file(
        &PathBuf::from("/repo/.agentctx/skills/note"),
        "---\ndescription: Note\n---\nWrite to /tmp/${CLAUDE_SESSION_ID}/$0.md\n",
        SkillSource::Project,
    )
    .expect("valid");
    let invocation = SkillInvocation::new(&skill, "todo").in_session("0199-abc");
    assert!(
        invocation
            .prompt
            .ends_with("Write to /tmp/0199-abc/todo.md\n"),
        "{}",
        invocation.prompt
    );
}
