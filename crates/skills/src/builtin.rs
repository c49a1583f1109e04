//! Commands compiled into the binary: the prompt skills `commit` and `review-pr`, and the
//! local commands `help`, `clear` and `compact`.

use serde::Serialize;

use crate::frontmatter::SkillContext;
use crate::skill::SkillPromptCommand;
use crate::source::LoadedFrom;
use crate::source::SkillSource;

const COMMIT_PROMPT: &str = include_str!("builtin/commit.md");
const REVIEW_PR_PROMPT: &str = include_str!("builtin/review_pr.md");

/// What a local command does; it runs in the client, without the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalCommandKind {
    /// Show the available commands.
    Help,
    /// Clear the conversation history.
    Clear,
    /// Compact the conversation history into a summary.
    Compact,
}

/// A command handled locally (`type: 'local'`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalCommand {
    /// Command name, invoked as `/name`.
    pub name: String,
    /// What it does, shown in `/help`.
    pub description: String,
    /// Usage hint shown in `/help`.
    pub argument_hint: Option<String>,
    /// Alternative names.
    pub aliases: Vec<String>,
    /// Its handler.
    pub kind: LocalCommandKind,
}

/// The builtin local commands. Their names are reserved: a skill cannot replace them.
pub(crate) fn builtin_local_commands() -> Vec<LocalCommand> {
    vec![
        LocalCommand {
            name: "help".to_string(),
            description: "Show available commands and skills".to_string(),
            argument_hint: None,
            aliases: Vec::new(),
            kind: LocalCommandKind::Help,
        },
        LocalCommand {
            name: "clear".to_string(),
            description: "Clear the conversation history and free up context".to_string(),
            argument_hint: None,
            aliases: Vec::new(),
            kind: LocalCommandKind::Clear,
        },
        LocalCommand {
            name: "compact".to_string(),
            description: "Replace the conversation history with a summary, keeping it in context"
                .to_string(),
            argument_hint: Some("[instructions for the summary]".to_string()),
            aliases: Vec::new(),
            kind: LocalCommandKind::Compact,
        },
    ]
}

/// The builtin prompt skills. A loaded skill of the same name replaces them.
pub(crate) fn builtin_prompt_skills() -> Vec<SkillPromptCommand> {
    vec![
        builtin_prompt(
            "commit",
            "Create a git commit with an auto-generated message",
            "[instructions for the commit]",
            COMMIT_PROMPT,
            &["Bash(git *)", "Read", "Grep", "Glob"],
        ),
        builtin_prompt(
            "review-pr",
            "Review the changes of a pull request",
            "[pull request number, URL or branch]",
            REVIEW_PR_PROMPT,
            &["Bash(git *)", "Bash(gh pr *)", "Read", "Grep", "Glob"],
        ),
    ]
}

fn builtin_prompt(
    name: &str,
    description: &str,
    argument_hint: &str,
    content: &str,
    allowed_tools: &[&str],
) -> SkillPromptCommand {
    SkillPromptCommand {
        name: name.to_string(),
        description: description.to_string(),
        has_description: true,
        when_to_use: None,
        content: content.to_string(),
        source: SkillSource::Builtin,
        loaded_from: LoadedFrom::Builtin,
        user_invocable: true,
        disable_model_invocation: false,
        allowed_tools: Some(
            allowed_tools
                .iter()
                .map(|tool| (*tool).to_string())
                .collect(),
        ),
        aliases: Vec::new(),
        model: None,
        argument_hint: Some(argument_hint.to_string()),
        argument_names: Vec::new(),
        context: SkillContext::Main,
        agent: None,
        base_dir: None,
        path: None,
        hooks: None,
        interface: None,
    }
}
