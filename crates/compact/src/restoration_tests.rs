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
        user_messages: &[],
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
    // Five files and the note naming the three others.
    assert_eq!(restored.items.len(), 6);
    assert_eq!(restored.unrestored_files.len(), 3);
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

fn restored_paths(restored: &RestoredContext) -> Vec<String> {
    restored
        .restored_files
        .iter()
        .map(|path| path.display().to_string())
        .collect()
}

#[test]
fn an_edited_file_outranks_newer_reads() {
    let mut cache = FileCache::default();
    let mut ledger = ReadLedger::new();
    // Read then edited: the cache holds what the model wrote, the ledger its earlier read.
    cache.record_read("src/edited.rs", "fn before() {}");
    ledger.record_read("src/edited.rs", "fn before() {}");
    cache.record_read("src/edited.rs", "fn after() {}");
    for name in ["a", "b", "c"] {
        let path = format!("src/{name}.rs");
        cache.record_read(&path, name);
        ledger.record_read(&path, name);
    }
    let config = ContextRestorationConfig {
        max_files: 2,
        ..ContextRestorationConfig::default()
    };
    let input = RestorationInput {
        file_cache: Some(&cache),
        read_ledger: Some(&ledger),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &config);
    // 2 × 0.8³ = 1.02 beats the newest read's 1.0; the next read (0.8) comes after.
    assert_eq!(restored_paths(&restored), ["src/edited.rs", "src/c.rs"]);

    // The same file only read (cache and ledger agree) stays behind the newer reads.
    let mut ledger = ReadLedger::new();
    for path in ["src/edited.rs", "src/a.rs", "src/b.rs", "src/c.rs"] {
        let content = cache
            .get(std::path::Path::new(path))
            .unwrap()
            .content
            .clone();
        ledger.record_read(path, &content);
    }
    let input = RestorationInput {
        read_ledger: Some(&ledger),
        ..input
    };
    assert_eq!(
        restored_paths(&restore_context(&input, &config)),
        ["src/c.rs", "src/b.rs"]
    );
}

#[test]
fn files_named_in_open_todos_and_the_last_user_messages_come_first() {
    let mut cache = FileCache::default();
    for index in 0..8 {
        cache.record_read(format!("/repo/src/f{index}.rs"), "x");
    }
    let todos = [
        todo("Fix the parser in f1.rs", TodoStatus::InProgress),
        // A completed todo says nothing of what comes next.
        todo("Tidy f2.rs", TodoStatus::Completed),
    ];
    let user_messages = [
        "Look at src/f0.rs first".to_string(),
        "thanks".to_string(),
        "go on".to_string(),
        "and check f3.rs when you are done".to_string(),
    ];
    let config = ContextRestorationConfig {
        max_files: 3,
        ..ContextRestorationConfig::default()
    };
    let input = RestorationInput {
        file_cache: Some(&cache),
        todos: &todos,
        user_messages: &user_messages,
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &config);
    // f1 (todo) and f3 (last messages) first, oldest of the two by score, then the newest read;
    // f0 is named only by a message older than the last three.
    assert_eq!(
        restored_paths(&restored),
        ["/repo/src/f3.rs", "/repo/src/f1.rs", "/repo/src/f7.rs"]
    );
}

#[test]
fn files_read_but_not_restored_are_named_with_the_ways_back() {
    let mut cache = FileCache::default();
    let mut ledger = ReadLedger::new();
    ledger.record_read("/repo/README.md", "# readme");
    for index in 0..3 {
        let path = format!("/repo/src/f{index}.rs");
        cache.record_read(&path, "x");
        ledger.record_read(&path, "x");
    }
    let config = ContextRestorationConfig {
        max_files: 1,
        ..ContextRestorationConfig::default()
    };
    let input = RestorationInput {
        file_cache: Some(&cache),
        read_ledger: Some(&ledger),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &config);
    assert_eq!(restored_paths(&restored), ["/repo/src/f2.rs"]);
    assert_eq!(
        restored.unrestored_files,
        [
            PathBuf::from("/repo/src/f1.rs"),
            PathBuf::from("/repo/src/f0.rs"),
            PathBuf::from("/repo/README.md")
        ]
    );
    // The restored file, the note, then the ledger.
    assert_eq!(restored.items.len(), 3);
    let note = restored.items[1].message_text().unwrap_or_default();
    assert!(note.contains("read_file <path>") && note.contains("recall <path>"));
    insta::assert_snapshot!(note);
}

#[test]
fn the_note_names_at_most_ten_files() {
    let mut ledger = ReadLedger::new();
    for index in 0..25 {
        ledger.record_read(format!("f{index:02}.rs"), "x");
    }
    let input = RestorationInput {
        read_ledger: Some(&ledger),
        ..RestorationInput::default()
    };
    let restored = restore_context(&input, &ContextRestorationConfig::default());
    assert_eq!(restored.unrestored_files.len(), 25);
    let note = restored.items[0].message_text().unwrap_or_default();
    assert!(note.contains("- f24.rs\n"), "{note}");
    assert!(note.contains("- f15.rs\n"), "{note}");
    assert!(!note.contains("- f14.rs"), "{note}");
    assert!(note.contains("… and 15 more"), "{note}");
}

#[test]
fn a_file_is_named_by_its_file_name_as_a_word_of_its_own() {
    let path = std::path::Path::new("/repo/src/parser.rs");
    assert!(names_file("fix parser.rs", path));
    assert!(names_file("see src/parser.rs.", path));
    assert!(names_file("(parser.rs)", path));
    assert!(!names_file("fix myparser.rs", path));
    assert!(!names_file("fix parser.rs_old", path));
    assert!(!names_file("fix the parser", path));
    // Without an extension the folder is part of the name: "the build" is not `ci/build`.
    let build = std::path::Path::new("/repo/ci/build");
    assert!(!names_file("fix the build", build));
    assert!(names_file("run ci/build again", build));
}
