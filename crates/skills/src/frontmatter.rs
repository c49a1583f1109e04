//! The YAML frontmatter of a `SKILL.md` file.
//!
//! Every key is accepted in snake_case (`user_invocable`), kebab-case (`user-invocable`)
//! and Claude Code's camelCase (`userInvocable`). This is done by serde aliases on each
//! field, so a key is matched as a whole and nothing in values is ever rewritten.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;

/// Execution context of a skill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SkillContext {
    /// Run in the current conversation (the default).
    #[default]
    Main,
    /// Run as a subagent with its own context.
    Fork,
}

impl SkillContext {
    /// The value as written in frontmatter: `main` or `fork`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Main => "main",
            Self::Fork => "fork",
        }
    }
}

/// Skill-level hooks: event name (`PreToolUse`, `PostToolUse`, ...) to matchers.
pub type SkillHooksConfig = BTreeMap<String, Vec<HookMatcher>>;

/// One matcher of a hook event and the hooks it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookMatcher {
    /// Tool-name pattern the hooks apply to; absent means every tool.
    #[serde(default)]
    pub matcher: Option<String>,
    /// The hooks to run.
    #[serde(default)]
    pub hooks: Vec<HookDefinition>,
}

/// One hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookDefinition {
    /// The hook kind, `command` for a shell command.
    #[serde(rename = "type")]
    pub hook_type: String,
    /// Shell command of a `command` hook.
    #[serde(default)]
    pub command: Option<String>,
    /// Run only once per session.
    #[serde(default)]
    pub once: bool,
    /// Timeout in seconds.
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// The parsed frontmatter of a `SKILL.md`. Every field is optional; unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub(crate) struct SkillFrontmatter {
    /// Command name; defaults to the skill's directory name.
    pub(crate) name: Option<String>,
    /// Description; falls back to the first markdown heading.
    pub(crate) description: Option<String>,
    /// Guidance telling the model when to use the skill.
    #[serde(alias = "when-to-use", alias = "whenToUse")]
    pub(crate) when_to_use: Option<String>,
    /// `false` blocks `/name` invocation by the user (default `true`).
    #[serde(alias = "user-invocable", alias = "userInvocable")]
    pub(crate) user_invocable: Option<bool>,
    /// `true` keeps the model from invoking the skill (default `false`).
    #[serde(alias = "disable-model-invocation", alias = "disableModelInvocation")]
    pub(crate) disable_model_invocation: Option<bool>,
    /// Usage hint shown in `/help`.
    #[serde(alias = "argument-hint", alias = "argumentHint")]
    pub(crate) argument_hint: Option<String>,
    /// Names of the positional arguments, as a list or a space-separated string
    /// (`arguments: [issue, branch]`): `$issue` in the prompt is the first argument.
    #[serde(deserialize_with = "one_or_many_names")]
    pub(crate) arguments: Option<Vec<String>>,
    /// Tools the skill may use, as a list or a comma-separated string.
    #[serde(
        alias = "allowed-tools",
        alias = "allowedTools",
        deserialize_with = "one_or_many_tools"
    )]
    pub(crate) allowed_tools: Option<Vec<String>>,
    /// Model override: `haiku`, `sonnet`, `opus` or `inherit`.
    pub(crate) model: Option<String>,
    /// Execution context: `main` (default) or `fork`.
    pub(crate) context: Option<SkillContext>,
    /// Agent type for the `fork` context.
    pub(crate) agent: Option<String>,
    /// Alternative command names, as a list or a single string.
    #[serde(deserialize_with = "one_or_many_names")]
    pub(crate) aliases: Option<Vec<String>>,
    /// Skill-level hooks.
    pub(crate) hooks: Option<SkillHooksConfig>,
    /// Base directory override; relative paths are resolved against the skill directory.
    #[serde(alias = "base-dir", alias = "baseDir")]
    pub(crate) base_dir: Option<PathBuf>,
}

/// Why a `SKILL.md` could not be parsed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrontmatterError {
    /// The file opens a `---` frontmatter block that is never closed.
    #[error("frontmatter opened with `---` on line 1 is not closed by a `---` line")]
    Unclosed,
    /// The frontmatter is not valid YAML for the fields of a skill.
    #[error("invalid frontmatter yaml: {message}")]
    Yaml {
        /// The YAML parser's message (with line and column).
        message: String,
    },
}

/// A `SKILL.md` split into its frontmatter text (if any) and its markdown body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitSkillFile<'a> {
    /// The YAML between the `---` lines, `None` when the file has no frontmatter.
    pub(crate) frontmatter: Option<&'a str>,
    /// The markdown after the frontmatter.
    pub(crate) body: &'a str,
}

/// Splits a `SKILL.md` into frontmatter and body.
///
/// A frontmatter block starts with a `---` line as the first line of the file (after an
/// optional byte-order mark) and ends with the next `---` line.
pub(crate) fn split_frontmatter(text: &str) -> Result<SplitSkillFile<'_>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Ok(SplitSkillFile {
            frontmatter: None,
            body: text,
        });
    };
    if first.trim_end() != "---" {
        return Ok(SplitSkillFile {
            frontmatter: None,
            body: text,
        });
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if line.trim_end() == "---" {
            let frontmatter = text.get(yaml_start..offset).unwrap_or_default();
            let body = text.get(offset + line.len()..).unwrap_or_default();
            return Ok(SplitSkillFile {
                frontmatter: Some(frontmatter),
                body,
            });
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

/// Parses frontmatter YAML. Empty frontmatter gives all defaults.
pub(crate) fn parse_skill_frontmatter(yaml: &str) -> Result<SkillFrontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(SkillFrontmatter::default());
    }
    // One-line messages (no source snippet): they end up in load diagnostics. The
    // default budget of the parser bounds alias expansion and nesting.
    let options = serde_saphyr::options! { with_snippet: false };
    serde_saphyr::from_str_with_options(yaml, options).map_err(|err| FrontmatterError::Yaml {
        message: err.to_string(),
    })
}

/// The text of the first markdown heading (`# Title`, `## Title`, ...) outside code fences.
pub(crate) fn first_heading(body: &str) -> Option<String> {
    let mut in_fence = false;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) {
            let rest = trimmed.get(hashes..).unwrap_or_default();
            if rest.starts_with([' ', '\t']) {
                let title = rest.trim().trim_end_matches('#').trim();
                if !title.is_empty() {
                    return Some(title.to_string());
                }
            }
        }
    }
    None
}

/// A YAML value that may be a single string or a list of strings.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

fn one_or_many_tools<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Option::<OneOrMany>::deserialize(deserializer)?;
    Ok(value.map(|value| match value {
        OneOrMany::One(text) => split_tool_list(&text),
        OneOrMany::Many(list) => list,
    }))
}

fn one_or_many_names<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Option::<OneOrMany>::deserialize(deserializer)?;
    Ok(value.map(|value| match value {
        OneOrMany::One(text) => text
            .split([',', ' '])
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect(),
        OneOrMany::Many(list) => list,
    }))
}

/// Splits `Bash(git add:*), Read` on commas outside parentheses.
pub(crate) fn split_tool_list(text: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => {
                let tool = current.trim();
                if !tool.is_empty() {
                    tools.push(tool.to_string());
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    let tool = current.trim();
    if !tool.is_empty() {
        tools.push(tool.to_string());
    }
    tools
}

#[cfg(test)]
#[path = "frontmatter_tests.rs"]
mod tests;
