use std::path::PathBuf;

use agentctx_protocol::BackgroundTaskStatus;
use agentctx_protocol::BackgroundTaskType;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;

use super::*;
use crate::compacted_history::render_history;
use crate::file_cache::MAX_TOKENS_PER_RESTORED_FILE;

fn todo(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
        active_form: String::new(),
    }
}

#[test]
fn every_kind_of_state_is_restored_in_order() {
    let mut cache = FileCache::default();
    let mut ledger = ReadLedger::new();
    for (path, content) in [("src/lib.rs", "pub fn a() {}"), ("PLAN.md", "1. do a")] {
        cache.record_read(path, content);
        ledger.record_read(path, content);
    }
    let todos = [
        todo("Write the parser", TodoStatus::Completed),
        todo("Test the parser", TodoStatus::InProgress),
    ];
    let plan = PlanFile {
        path: PathBuf::from("PLAN.md"),
        content: "1. do a".to_string(),
    };
    let skills = [InvokedSkill {
        name: "rust-style".to_string(),
        path: PathBuf::from("skills/rust-style/SKILL.md"),
        content: "Use one import per line.".to_string(),
    }];
    let tasks = [BackgroundTask {
        task_id: "bash_1".to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo test --workspace".to_string()),
        description: "cargo test --workspace".to_string(),
        status: BackgroundTaskStatus::Running,
        exit_code: None,
        output_len: 0,
        delta_summary: None,
        progress_message: None,
    }];
    let input = RestorationInput {
        file_cache: Some(&cache),
        read_ledger: Some(&ledger),
        todos: &todos,
        plan: Some(&plan),
        invoked_skills: &skills,
        background_tasks: &tasks,
        critical_instruction: Some("Never push to main."),
    };
    let restored = restore_context(&input, &ContextRestorationConfig::default());
    assert_eq!(restored.restored_files, vec![PathBuf::from("src/lib.rs")]);
    assert!(restored.items.iter().all(ResponseItem::is_injected));
    insta::assert_snapshot!(render_history(&restored.items));
}

#[test]
fn at_most_five_files_are_restored_newest_first() {
    let mut cache = FileCache::default();
    for index in 0..8 {
        cache.record_read(format!("f{index}.rs"), "x");
    }
    let input = RestorationInput {
        file_cache: Some(&cache),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &ContextRestorationConfig::default());
    let expected: Vec<PathBuf> = (3..8)
        .rev()
        .map(|i| PathBuf::from(format!("f{i}.rs")))
        .collect();
    assert_eq!(restored.restored_files, expected);
    assert_eq!(restored.items.len(), 5);
}

#[test]
fn a_file_past_the_total_budget_is_only_named() {
    let mut cache = FileCache::new(1_000, 100);
    cache.record_read("old.rs", &"o".repeat(200)); // 50 tokens
    cache.record_read("new.rs", &"n".repeat(200));
    let config = ContextRestorationConfig {
        total_budget_tokens: 60,
        ..ContextRestorationConfig::default()
    };
    let input = RestorationInput {
        file_cache: Some(&cache),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &config);
    assert_eq!(restored.restored_files, vec![PathBuf::from("new.rs")]);
    assert_eq!(restored.referenced_files, vec![PathBuf::from("old.rs")]);
    assert_eq!(restored.file_tokens, 50);
    insta::assert_snapshot!(restored.items[1].message_text().unwrap_or_default());
}

#[test]
fn a_file_over_the_per_file_limit_is_cut_to_it() {
    let mut cache = FileCache::new(100_000, 100_000);
    cache.record_read("big.rs", &"b".repeat(40_000)); // 10,000 tokens
    let input = RestorationInput {
        file_cache: Some(&cache),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &ContextRestorationConfig::default());
    assert!(restored.file_tokens <= MAX_TOKENS_PER_RESTORED_FILE + 20);
    assert!(restored.file_tokens >= MAX_TOKENS_PER_RESTORED_FILE);
}

#[test]
fn a_finished_todo_list_is_not_restored() {
    let todos = [todo("done", TodoStatus::Completed)];
    let input = RestorationInput {
        todos: &todos,
        ..RestorationInput::default()
    };
    assert_eq!(
        restore_context(&input, &ContextRestorationConfig::default()),
        RestoredContext::default()
    );
}

#[test]
fn a_restored_file_is_read_back_from_its_item() {
    let mut cache = FileCache::default();
    cache.record_read("/repo/src/a.rs", "fn a() {}\n\nfn b() {}\n");
    let restored = restore_context(
        &RestorationInput {
            file_cache: Some(&cache),
            ..RestorationInput::default()
        },
        &ContextRestorationConfig::default(),
    );
    let text = restored.items[0].message_text().unwrap();
    assert_eq!(
        restored_file_of(&text),
        Some((
            PathBuf::from("/repo/src/a.rs"),
            "fn a() {}\n\nfn b() {}\n".to_string()
        ))
    );
    // The ledger and any other text are not a restored file.
    assert_eq!(
        restored_file_of("<system-reminder>\nNote: hi\n</system-reminder>"),
        None
    );
    assert_eq!(restored_file_of("fn a() {}"), None);
}
