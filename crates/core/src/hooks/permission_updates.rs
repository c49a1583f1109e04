//! The session's permission updates: the `updatedPermissions` entries of a `PermissionRequest`
//! hook that allows a call (Claude Code's hooks reference, "PermissionRequest decision control"
//! and "Permission update entries", <https://code.claude.com/docs/en/hooks>), kept for the rest
//! of the session and consulted before anyone is asked again.
//!
//! Our approval model ([`crate::approval`]) is a policy and an approver, without rules or
//! modes; these updates add the counterparts it can have, for the session:
//!
//! - `addRules` / `replaceRules` / `removeRules` with `behavior` `allow`, `deny` or `ask`:
//!   rules in Claude Code's syntax (<https://code.claude.com/docs/en/permissions>): a tool name
//!   (`Bash`, `Write`) alone, or with `ruleContent`: for `Bash` a command (`npm test`), a prefix
//!   rule (`git add:*`) or a wildcard rule (`npm run *`); for the file tools a path pattern
//!   (`src/**`, `./a.txt`, `/docs/*.md` from the working directory, `//tmp/x` absolute), an
//!   `Edit` rule covering `Write` too. `deny` beats `ask`, which beats `allow`.
//! - `setMode`: `default`, `acceptEdits` (writes and edits approved, commands asked),
//!   `bypassPermissions` (everything approved), `dontAsk` (everything no rule allows refused).
//!
//! Not mapped (logged and warned about): `addDirectories` / `removeDirectories` (the file tools
//! work inside the working directory only), the modes `plan` (plan mode is the model's to
//! enter) and `auto` (no classifier). Every `destination` applies to the session; none is
//! written to a settings file, as agentctx reads no permission rules from them.

use std::path::Path;

use serde_json::Value;

/// What a rule does to a matching request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RuleBehavior {
    /// Approved without asking.
    Allow,
    /// Asked, whatever the mode says.
    Ask,
    /// Refused.
    Deny,
}

impl RuleBehavior {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }
}

/// One rule: a tool, by Claude Code's name (or ours), and what of its input it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PermissionRule {
    tool: String,
    content: Option<String>,
}

/// The permission modes that have a counterpart here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum SessionMode {
    /// The session's approval policy decides.
    #[default]
    Default,
    /// Writes and edits are approved without asking.
    AcceptEdits,
    /// Every request is approved without asking.
    BypassPermissions,
    /// Every request no rule allows is refused.
    DontAsk,
}

/// What the session's permissions say about a request before the hooks and the user are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prejudged {
    /// Approved without asking.
    Approved,
    /// Refused without asking.
    Denied,
    /// The `PermissionRequest` hooks, then the user, decide.
    Undecided,
}

/// A request as the rules see it: Claude Code's tool name and the input it shows hooks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subject<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// The working directory, against which relative paths resolve.
    pub cwd: &'a Path,
}

/// The rules and mode the session's `PermissionRequest` hooks set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionPermissions {
    rules: Vec<(RuleBehavior, PermissionRule)>,
    mode: SessionMode,
}

impl SessionPermissions {
    /// Applies the `updatedPermissions` `entries`; what could not be applied, one line each.
    pub(crate) fn apply(&mut self, entries: &[Value]) -> Vec<String> {
        entries
            .iter()
            .filter_map(|entry| self.apply_one(entry).err())
            .collect()
    }

    fn apply_one(&mut self, entry: &Value) -> Result<(), String> {
        let kind = entry
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "addRules" | "replaceRules" | "removeRules" => {
                let behavior = entry
                    .get("behavior")
                    .and_then(Value::as_str)
                    .and_then(RuleBehavior::parse)
                    .ok_or_else(|| format!("`{kind}` without a valid `behavior`: {entry}"))?;
                let rules = parse_rules(entry.get("rules"))
                    .ok_or_else(|| format!("`{kind}` without valid `rules`: {entry}"))?;
                match kind {
                    "replaceRules" => {
                        self.rules.retain(|(kept, _)| *kept != behavior);
                        self.add(behavior, rules);
                    }
                    "removeRules" => self
                        .rules
                        .retain(|(kept, rule)| *kept != behavior || !rules.contains(rule)),
                    _ => self.add(behavior, rules),
                }
                Ok(())
            }
            "setMode" => {
                let mode = entry
                    .get("mode")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.mode = match mode {
                    "default" => SessionMode::Default,
                    "acceptEdits" => SessionMode::AcceptEdits,
                    "bypassPermissions" => SessionMode::BypassPermissions,
                    "dontAsk" => SessionMode::DontAsk,
                    _ => {
                        return Err(format!(
                            "the permission mode `{mode}` has no counterpart in agentctx"
                        ));
                    }
                };
                Ok(())
            }
            "addDirectories" | "removeDirectories" => Err(format!(
                "`{kind}` is not applied: agentctx's file tools work inside the working directory only"
            )),
            _ => Err(format!("unknown permission update: {entry}")),
        }
    }

    fn add(&mut self, behavior: RuleBehavior, rules: Vec<PermissionRule>) {
        for rule in rules {
            let entry = (behavior, rule);
            if !self.rules.contains(&entry) {
                self.rules.push(entry);
            }
        }
    }

    /// The strongest rule matching `subject` (`deny` > `ask` > `allow`).
    pub(crate) fn rule(&self, subject: Subject<'_>) -> Option<RuleBehavior> {
        self.rules
            .iter()
            .filter(|(_, rule)| rule.matches(subject))
            .map(|(behavior, _)| *behavior)
            .max()
    }

    /// What the rules and the mode say about an approval request for `subject`.
    pub(crate) fn prejudge(&self, subject: Subject<'_>) -> Prejudged {
        match self.rule(subject) {
            Some(RuleBehavior::Deny) => Prejudged::Denied,
            Some(RuleBehavior::Ask) => Prejudged::Undecided,
            Some(RuleBehavior::Allow) => Prejudged::Approved,
            None => match self.mode {
                SessionMode::Default => Prejudged::Undecided,
                SessionMode::AcceptEdits if is_edit(subject.tool) => Prejudged::Approved,
                SessionMode::AcceptEdits => Prejudged::Undecided,
                SessionMode::BypassPermissions => Prejudged::Approved,
                SessionMode::DontAsk => Prejudged::Denied,
            },
        }
    }
}

fn parse_rules(rules: Option<&Value>) -> Option<Vec<PermissionRule>> {
    rules?
        .as_array()?
        .iter()
        .map(|rule| {
            let tool = rule.get("toolName")?.as_str()?.trim();
            (!tool.is_empty()).then(|| PermissionRule {
                tool: tool.to_owned(),
                content: rule
                    .get("ruleContent")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|content| !content.is_empty())
                    .map(str::to_owned),
            })
        })
        .collect()
}

/// Our name of the tool Claude Code's (or our) `name` stands for.
fn ours(name: &str) -> &str {
    crate::tools::tool_of_claude_code_name(name).unwrap_or(name)
}

fn is_edit(tool: &str) -> bool {
    matches!(ours(tool), "write_file" | "edit_file")
}

impl PermissionRule {
    fn matches(&self, subject: Subject<'_>) -> bool {
        let (rule, tool) = (ours(&self.tool), ours(subject.tool));
        // An `Edit` rule covers every tool that edits files.
        let same_tool = rule == tool || (rule == "edit_file" && is_edit(tool));
        if !same_tool {
            return false;
        }
        let Some(content) = &self.content else {
            return true;
        };
        let text = |key: &str| subject.input.get(key).and_then(Value::as_str);
        match tool {
            "shell" => text("command").is_some_and(|command| {
                crate::slash_commands_ext::shell_rule_matches(content, command.trim())
            }),
            "write_file" | "edit_file" | "read_file" => text("file_path")
                .or_else(|| text("path"))
                .is_some_and(|path| path_matches(content, path, subject.cwd)),
            _ => false,
        }
    }
}

/// Whether `path` (relative to `cwd`, or absolute) matches the rule's path `pattern`: `//x`
/// absolute, `/x`, `./x` and `x` from the working directory; `*` within a path component,
/// `**` across them.
fn path_matches(pattern: &str, path: &str, cwd: &Path) -> bool {
    let pattern = match pattern.strip_prefix("//") {
        Some(absolute) => format!("/{absolute}"),
        None => {
            let relative = pattern.trim_start_matches("./").trim_start_matches('/');
            cwd.join(relative).display().to_string()
        }
    };
    let Ok(glob) = globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
    else {
        return false;
    };
    glob.compile_matcher().is_match(cwd.join(path))
}

#[cfg(test)]
#[path = "permission_updates_tests.rs"]
mod tests;
