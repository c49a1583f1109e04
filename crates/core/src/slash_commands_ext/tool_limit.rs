//! A skill's `allowed-tools` while its turn runs: the tools offered to the model are cut to the
//! allowed ones, and a call to any other (the model may still name one it saw earlier) is
//! refused with a tool error that says why.
//!
//! Entries are Claude Code permission rules (the `allowed-tools` of a `SKILL.md` or command,
//! <https://docs.claude.com/en/docs/claude-code/slash-commands#frontmatter> and
//! <https://docs.claude.com/en/docs/claude-code/iam#tool-specific-permission-rules>): a tool
//! name (`Read`, `Grep`), or `Bash(<rule>)` limiting the shell to commands matching the rule,
//! either a prefix rule `git add:*` or a wildcard rule `git *` (`*` matches any run of
//! characters). Claude Code's tool names map to ours; our own names (`read_file`) and MCP tool
//! names are taken as they are.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;

use crate::tools::BeforeCall;
use crate::tools::ToolCall;
use crate::tools::ToolCallInterceptor;
use crate::tools::ToolContext;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;

/// The tools a running skill allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolLimit {
    skill: String,
    /// Our tool names allowed, in the order first named.
    allowed: Vec<String>,
    /// Shell command rules; empty with `shell` allowed means any command.
    shell_rules: Vec<String>,
}

#[derive(Deserialize)]
struct ShellCall {
    command: String,
}

impl ToolLimit {
    /// The limit of `skill` from its `allowed-tools` entries.
    pub fn new(skill: &str, entries: &[String]) -> Self {
        let mut limit = Self {
            skill: skill.to_string(),
            allowed: Vec::new(),
            shell_rules: Vec::new(),
        };
        let mut any_shell = false;
        for entry in entries {
            let entry = entry.trim();
            let (tool, rule) = match entry.split_once('(') {
                Some((tool, rest)) => (tool.trim(), rest.strip_suffix(')').map(str::trim)),
                None => (entry, None),
            };
            // Claude Code's name of one of our tools, else one of ours by its own name.
            let name = crate::tools::tool_of_claude_code_name(tool).unwrap_or(tool);
            if name == "shell" {
                match rule.filter(|rule| !rule.is_empty() && *rule != "*") {
                    Some(rule) => limit.shell_rules.push(rule.to_string()),
                    None => any_shell = true,
                }
            }
            if !limit.allowed.iter().any(|allowed| allowed == name) {
                limit.allowed.push(name.to_string());
            }
        }
        if any_shell {
            limit.shell_rules.clear();
        }
        limit
    }

    /// This limit with the tool `name` allowed too (the `skill` tool, for a skill the model
    /// invoked: it may go on to invoke others).
    pub(crate) fn keeping(mut self, name: &str) -> Self {
        if !self.allowed.iter().any(|allowed| allowed == name) {
            self.allowed.push(name.to_string());
        }
        self
    }

    /// Our tool names allowed.
    pub fn allowed(&self) -> &[String] {
        &self.allowed
    }

    /// The shell command rules (empty: any command, when the shell is allowed).
    #[cfg(test)]
    pub(crate) fn shell_rules(&self) -> &[String] {
        &self.shell_rules
    }

    /// `tools` cut to the allowed ones, with this limit refusing calls to the others.
    pub(crate) fn apply(&self, tools: &ToolRegistry) -> ToolRegistry {
        let mut limited = tools.clone();
        for name in tools.names() {
            if !self.allowed.contains(&name) {
                limited.remove(&name);
            }
        }
        limited.add_interceptor(Arc::new(self.clone()));
        limited
    }

    /// The refusal of a call to `name` with `arguments`, or `None` when the skill allows it.
    pub(crate) fn refusal(&self, name: &str, arguments: &str) -> Option<String> {
        if !self.allowed.iter().any(|allowed| allowed == name) {
            return Some(format!(
                "Error: the tool `{name}` is not allowed while the skill `{}` runs; allowed tools: {}",
                self.skill,
                self.allowed.join(", ")
            ));
        }
        if name != "shell" || self.shell_rules.is_empty() {
            return None;
        }
        let command = serde_json::from_str::<ShellCall>(arguments)
            .map(|call| call.command)
            .unwrap_or_default();
        let command = command.trim();
        if self
            .shell_rules
            .iter()
            .any(|rule| shell_rule_matches(rule, command))
        {
            return None;
        }
        Some(format!(
            "Error: the skill `{}` allows only shell commands matching {}; `{command}` was not run",
            self.skill,
            self.shell_rules
                .iter()
                .map(|rule| format!("`{rule}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

#[async_trait]
impl ToolCallInterceptor for ToolLimit {
    async fn before_call(&self, _ctx: &ToolContext, call: ToolCall<'_>) -> BeforeCall {
        match self.refusal(call.name, call.arguments) {
            Some(refusal) => BeforeCall::Refuse(ToolOutput::error(refusal)),
            None => BeforeCall::Proceed,
        }
    }
}

/// Whether `command` matches a Claude Code shell rule: `prefix:*` (the command is the prefix
/// or starts with it and a blank), or a pattern where `*` matches any run of characters.
pub(crate) fn shell_rule_matches(rule: &str, command: &str) -> bool {
    if let Some(prefix) = rule.strip_suffix(":*") {
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace));
    }
    wildcard_matches(rule, command)
}

/// `*` matches any run of characters (blanks included); everything else literally.
fn wildcard_matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == text;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = rest.get(at + part.len()..).unwrap_or_default(),
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}
