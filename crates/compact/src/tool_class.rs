//! What a tool is, as compaction sees it: [`ToolClass`], and the classes of the tools a host
//! offers ([`ToolClasses`]), with the names Codex and Claude Code record for the sessions a host
//! did not run itself (see docs/design/compaction.md, "Micro-compaction").

use std::collections::BTreeMap;

/// What a tool does, for the tiers that treat results by kind: micro-compaction clears old
/// results of reads, searches, listings, shell commands and web tools, and keeps the short
/// confirmations of edits and writes. A tool of no class (MCP tools, todo and plan tools,
/// subagents, …) is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    /// Reads a file (`Read`; codex `read_file`): a later read of the same path supersedes it.
    Read,
    /// Searches file contents (`Grep`; codex `grep_files`).
    Search,
    /// Lists files (`Glob`, `LS`; codex `list_dir`).
    List,
    /// Runs a command, or reads what a running one printed (`Bash`, `BashOutput`; codex `shell`,
    /// `exec_command`, …; codex code-mode cells).
    Shell,
    /// Searches the web (`WebSearch`; codex `web_search`).
    WebSearch,
    /// Fetches a web page (`WebFetch`).
    WebFetch,
    /// Edits a file (`Edit`, `MultiEdit`, `NotebookEdit`; codex `apply_patch`).
    Edit,
    /// Writes a whole file (`Write`).
    Write,
}

impl ToolClass {
    /// The class of the tool Claude Code or Codex records as `name`, `None` for every other
    /// tool (MCP tools, todo and plan tools, …). A host's own tools declare their class instead
    /// ([`ToolClasses`]).
    pub fn of_recorded_name(name: &str) -> Option<Self> {
        Some(match name {
            "Read" | "NotebookRead" | "read_file" => Self::Read,
            "Bash" | "BashOutput" | "shell" | "shell_command" | "local_shell"
            | "container.exec" | "exec_command" | "write_stdin" => Self::Shell,
            // Codex code mode (0.12x+): `exec` is a freeform tool whose input is JavaScript that
            // calls the other tools (`await tools.exec_command({cmd: …})`), recorded as a
            // `custom_tool_call` named `exec` and answered by a `custom_tool_call_output` led by
            // `Script completed` / `Script failed` / `Script running with cell ID N`; `wait`
            // resumes a running cell, as `write_stdin` resumes an `exec_command` session.
            // codex-rs `code-mode/src/lib.rs` (`PUBLIC_TOOL_NAME = "exec"`, `WAIT_TOOL_NAME =
            // "wait"`), `core/src/tools/code_mode/execute_spec.rs` (the freeform grammar: an
            // optional `// @exec: {…}` pragma line, then the source) and
            // `core/src/tools/code_mode/mod.rs` (`prepend_script_status`);
            // `core/src/tools/code_mode/wait_spec.rs` (`wait` takes the `cell_id`).
            "exec" | "wait" => Self::Shell,
            "Grep" | "grep_files" => Self::Search,
            "Glob" | "LS" | "list_dir" => Self::List,
            "WebSearch" | "web_search" => Self::WebSearch,
            "WebFetch" => Self::WebFetch,
            "Edit" | "MultiEdit" | "NotebookEdit" | "apply_patch" => Self::Edit,
            "Write" => Self::Write,
            _ => return None,
        })
    }

    /// Edit and write results are short confirmations the model relies on to know what it
    /// changed: micro-compaction counts them and never clears them.
    pub(crate) fn is_protected(self) -> bool {
        matches!(self, Self::Edit | Self::Write)
    }
}

/// The classes of the tools a host offers, by name. A name the host offers has the class it
/// declared (none included); any other name — a session recorded by Codex or Claude Code — has
/// the class of its recorded name ([`ToolClass::of_recorded_name`]).
///
/// ```
/// use agentctx_compact::ToolClass;
/// use agentctx_compact::ToolClasses;
///
/// let classes = ToolClasses::from_iter([
///     ("grep".to_string(), Some(ToolClass::Search)),
///     ("todo_write".to_string(), None),
/// ]);
/// assert_eq!(classes.class_of("grep"), Some(ToolClass::Search));
/// assert_eq!(classes.class_of("todo_write"), None);
/// // Not the host's: the name Claude Code records.
/// assert_eq!(classes.class_of("Grep"), Some(ToolClass::Search));
/// ```
///
/// Serialized as an object from each declared name to its class (`null`: none), the form a
/// host records next to its tools so a replay of its session clears what it cleared.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ToolClasses {
    declared: BTreeMap<String, Option<ToolClass>>,
}

impl ToolClasses {
    /// No tool of the host's: every name has the class of its recorded name.
    pub fn new() -> Self {
        Self::default()
    }

    /// The class of the tool called `name`.
    pub fn class_of(&self, name: &str) -> Option<ToolClass> {
        match self.declared.get(name) {
            Some(class) => *class,
            None => ToolClass::of_recorded_name(name),
        }
    }

    /// The declared classes of the tools called `names` (a name not declared is left out).
    pub fn of_names<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Self {
        let declared = names
            .into_iter()
            .filter_map(|name| Some((name.to_string(), *self.declared.get(name)?)))
            .collect();
        Self { declared }
    }

    /// Whether no tool declared its class.
    pub fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }
}

impl FromIterator<(String, Option<ToolClass>)> for ToolClasses {
    fn from_iter<I: IntoIterator<Item = (String, Option<ToolClass>)>>(tools: I) -> Self {
        Self {
            declared: tools.into_iter().collect(),
        }
    }
}

#[cfg(test)]
#[path = "tool_class_tests.rs"]
mod tests;
