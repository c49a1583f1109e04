use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

const ROOT: &str = "/home/u/.agentctx/memories";

fn usage(tool: &str, args: serde_json::Value) -> Vec<MemoriesUsageKind> {
    memories_usage(tool, &args.to_string(), Path::new(ROOT))
}

#[test]
fn shell_reads_and_searches_of_memory_files_count() {
    assert_eq!(
        usage(
            "shell",
            serde_json::json!({"command": ["bash", "-lc", format!("rg -n login {ROOT}/MEMORY.md | head")]})
        ),
        vec![MemoriesUsageKind::MemoryMd]
    );
    assert_eq!(
        usage(
            "exec_command",
            serde_json::json!({"cmd": format!("cat {ROOT}/rollout_summaries/a.md {ROOT}/skills/x/SKILL.md")})
        ),
        vec![
            MemoriesUsageKind::RolloutSummaries,
            MemoriesUsageKind::Skills
        ]
    );
    assert_eq!(
        usage(
            "Bash",
            serde_json::json!({"command": format!("sed -n 1,40p {ROOT}/memory_summary.md; cat {ROOT}/raw_memories.md")})
        ),
        vec![
            MemoriesUsageKind::MemorySummary,
            MemoriesUsageKind::RawMemories
        ]
    );
}

#[test]
fn read_tools_count() {
    assert_eq!(
        usage(
            "Read",
            serde_json::json!({"file_path": format!("{ROOT}/MEMORY.md")})
        ),
        vec![MemoriesUsageKind::MemoryMd]
    );
}

#[test]
fn writes_other_tools_and_other_folders_do_not_count() {
    assert!(
        usage(
            "shell",
            serde_json::json!({"command": format!("echo x > {ROOT}/MEMORY.md")})
        )
        .is_empty()
    );
    assert!(
        usage(
            "shell",
            serde_json::json!({"command": format!("rm {ROOT}/MEMORY.md")})
        )
        .is_empty()
    );
    assert!(
        usage(
            "Write",
            serde_json::json!({"file_path": format!("{ROOT}/MEMORY.md")})
        )
        .is_empty()
    );
    assert!(
        usage(
            "shell",
            serde_json::json!({"command": "cat /src/app/MEMORY.md"})
        )
        .is_empty()
    );
    assert!(usage("shell", serde_json::json!("not an object")).is_empty());
}
