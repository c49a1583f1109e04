//! Which memory files an agent's tool call read or searched, for the usage metric: reads of
//! `MEMORY.md`, `memory_summary.md`, `raw_memories.md`, `rollout_summaries/` and `skills/` in
//! the memory folder, through the shell (`cat`, `sed`, `rg`, `grep`, …) or a read tool. See
//! docs/design/memory.md, "Injection and usage".

use std::path::Path;

use serde_json::Value;

use crate::storage::MEMORY_FILE;
use crate::storage::MEMORY_SUMMARY_FILE;
use crate::storage::RAW_MEMORIES_FILE;
use crate::storage::ROLLOUT_SUMMARIES_DIR;
use crate::storage::SKILLS_DIR;

/// The metric name a host emits per usage (tags: kind, tool, success).
pub const MEMORIES_USAGE_METRIC: &str = "agentctx.memories.usage";

/// Programs that only read or search; a memory path in their arguments is a use of memory.
const READ_PROGRAMS: [&str; 16] = [
    "cat", "sed", "head", "tail", "less", "more", "nl", "grep", "rg", "egrep", "fgrep", "ls",
    "find", "wc", "bat", "awk",
];

/// What part of the memory folder was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoriesUsageKind {
    /// `MEMORY.md`.
    MemoryMd,
    /// `memory_summary.md`.
    MemorySummary,
    /// `raw_memories.md`.
    RawMemories,
    /// `rollout_summaries/*.md`.
    RolloutSummaries,
    /// `skills/*/`.
    Skills,
}

impl MemoriesUsageKind {
    /// The metric tag value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MemoryMd => "memory_md",
            Self::MemorySummary => "memory_summary",
            Self::RawMemories => "raw_memories",
            Self::RolloutSummaries => "rollout_summaries",
            Self::Skills => "skills",
        }
    }
}

/// The memory files a tool call (`tool` with its JSON `arguments`) reads or searches under
/// `memory_root`, each kind once, in a fixed order. Calls that write, and paths outside the
/// memory folder, count for nothing.
pub fn memories_usage(tool: &str, arguments: &str, memory_root: &Path) -> Vec<MemoriesUsageKind> {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let texts: Vec<String> = match tool {
        "shell" | "shell_command" | "exec_command" | "local_shell" | "container.exec" | "Bash" => {
            let command = command_text(args.get("command").or_else(|| args.get("cmd")));
            if !is_read_command(&command) {
                return Vec::new();
            }
            vec![command]
        }
        "Read" | "read_file" | "Grep" | "Glob" | "view" | "LS" | "list_dir" | "grep_files" => {
            ["file_path", "path", "pattern", "dir_path"]
                .iter()
                .filter_map(|key| args.get(key).and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        }
        _ => return Vec::new(),
    };
    let root = memory_root.display().to_string();
    let mut kinds = Vec::new();
    for text in &texts {
        for kind in kinds_in(text, &root) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
    }
    kinds.sort();
    kinds
}

fn command_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// True when every stage of the command line is a read or search program (a `bash -lc`
/// wrapper is looked through).
fn is_read_command(command: &str) -> bool {
    let inner = command
        .strip_prefix("bash -lc ")
        .or_else(|| command.strip_prefix("bash -c "))
        .or_else(|| command.strip_prefix("sh -c "))
        .unwrap_or(command)
        .trim_matches(|c| c == '\'' || c == '"');
    if inner.contains('>') {
        return false;
    }
    let stages: Vec<&str> = inner
        .split(['|', ';', '&'])
        .map(str::trim)
        .filter(|stage| !stage.is_empty())
        .collect();
    !stages.is_empty()
        && stages.iter().all(|stage| {
            let program = stage.split_whitespace().next().unwrap_or_default();
            let program = program.rsplit('/').next().unwrap_or(program);
            READ_PROGRAMS.contains(&program) || program == "cd"
        })
}

fn kinds_in(text: &str, root: &str) -> Vec<MemoriesUsageKind> {
    let mut kinds = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(root) {
        let after = rest.get(at + root.len()..).unwrap_or_default();
        let path = after
            .trim_start_matches(['/', '\\'])
            .split(|c: char| c.is_whitespace() || c == '\'' || c == '"')
            .next()
            .unwrap_or_default();
        let kind = if path.starts_with(MEMORY_SUMMARY_FILE) {
            Some(MemoriesUsageKind::MemorySummary)
        } else if path.starts_with(MEMORY_FILE) {
            Some(MemoriesUsageKind::MemoryMd)
        } else if path.starts_with(RAW_MEMORIES_FILE) {
            Some(MemoriesUsageKind::RawMemories)
        } else if path.starts_with(ROLLOUT_SUMMARIES_DIR) {
            Some(MemoriesUsageKind::RolloutSummaries)
        } else if path.starts_with(SKILLS_DIR) {
            Some(MemoriesUsageKind::Skills)
        } else {
            None
        };
        kinds.extend(kind);
        rest = after;
    }
    kinds
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
