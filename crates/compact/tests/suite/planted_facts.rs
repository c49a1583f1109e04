//! The planted facts of `full_compact.rs` through the two cheaper tiers: a long scripted session
//! (Claude Code tool names, so micro-compaction has results to clear) holds a critical
//! instruction, a plan file, open todos, five recently read files and a last user request, and
//! after micro-compaction, and after session-memory compaction with the host's restoration,
//! every one of them is in the next prompt.

use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_compact::CompactionMode;
use agentctx_compact::ContextRestorationConfig;
use agentctx_compact::FileCache;
use agentctx_compact::HistoryItemId;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::MicroCompactIndex;
use agentctx_compact::MicroCompactResult;
use agentctx_compact::MicroPersistence;
use agentctx_compact::PlanFile;
use agentctx_compact::ReadLedger;
use agentctx_compact::RestorationInput;
use agentctx_compact::SessionMemoryCompaction;
use agentctx_compact::SessionMemoryMetadata;
use agentctx_compact::SessionMemoryStore;
use agentctx_compact::micro_compact;
use agentctx_compact::restore_context;
use agentctx_compact::try_session_memory_compact;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

const CRITICAL_INSTRUCTION: &str = "Never run `git push`; the user pushes.";
const PLAN_PATH: &str = "/repo/.agentctx/plans/tokenizer.md";
const PLAN: &str = "1. Split the lexer out of parser.rs\n2. Add token spans\n3. Port the tests";
const LAST_REQUEST: &str = "Now port the remaining span tests in tests/spans.rs and stop there.";
const TURNS: usize = 300;
const RECENT_FILES: [&str; 5] = [
    "src/lexer.rs",
    "src/span.rs",
    "src/parser.rs",
    "tests/spans.rs",
    "src/lib.rs",
];

/// A host's view of the session: the history, the initial context it injects, and the state it
/// tracks beside the history.
struct Session {
    initial_context: Vec<ResponseItem>,
    history: Vec<ResponseItem>,
    cache: FileCache,
    ledger: ReadLedger,
    todos: Vec<TodoItem>,
}

fn todo(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
        active_form: String::new(),
    }
}

/// A file body of about 1,500 tokens, unique to the path and the turn it was read on.
fn file_content(path: &str, turn: usize) -> String {
    format!(
        "// {path} as of turn {turn}\n{}",
        format!("pub fn item_{turn}() -> usize {{ {turn} }}\n").repeat(150)
    )
}

/// 300 turns: every turn reads a file (twenty paths and the five recent files read over and
/// over, so older reads are superseded), runs a command or writes the todo list; the user speaks every 25 turns; the plan
/// is written on turn 3; the last five turns read five distinct files; the last user request
/// closes the history.
fn long_session() -> Session {
    let agents_md = format!(
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n{CRITICAL_INSTRUCTION}\n</INSTRUCTIONS>"
    );
    let mut session = Session {
        initial_context: vec![ResponseItem::user_text(agents_md)],
        history: Vec::new(),
        cache: FileCache::new(50_000, 5_000),
        ledger: ReadLedger::new(),
        todos: Vec::new(),
    };
    session.history = session.initial_context.clone();
    for turn in 0..TURNS {
        if turn % 25 == 0 {
            let text = if turn == 0 {
                "Split the tokenizer out of the parser, following a plan.".to_string()
            } else {
                format!("Keep going (checkpoint {turn}).")
            };
            session.history.push(ResponseItem::user_text(text));
        }
        let call_id = format!("call_{turn}");
        let (call, output) = if TURNS - turn <= RECENT_FILES.len() {
            let path = RECENT_FILES[TURNS - turn - 1];
            read(&mut session, &call_id, path, turn)
        } else if turn == 3 {
            let arguments = serde_json::json!({"file_path": PLAN_PATH, "content": PLAN});
            (
                ResponseItem::function_call(&call_id, "Write", arguments.to_string()),
                ResponseItem::function_call_output(&call_id, format!("File created: {PLAN_PATH}")),
            )
        } else {
            match turn % 3 {
                // The recent files were read before too: those reads are superseded.
                0 if turn % 30 == 0 => {
                    let path = RECENT_FILES[(turn / 30) % RECENT_FILES.len()];
                    read(&mut session, &call_id, path, turn)
                }
                0 => {
                    let path = format!("src/old_{}.rs", turn % 20);
                    read(&mut session, &call_id, &path, turn)
                }
                1 => (
                    ResponseItem::function_call(&call_id, "Bash", r#"{"command":"cargo test"}"#),
                    ResponseItem::function_call_output(
                        &call_id,
                        format!(
                            "test result: ok. {turn} passed\n{}",
                            "log line\n".repeat(300)
                        ),
                    ),
                ),
                _ => {
                    session.todos = vec![
                        todo("Split the lexer out of parser.rs", TodoStatus::Completed),
                        todo("Add token spans", TodoStatus::Completed),
                        todo("Port the span tests", TodoStatus::InProgress),
                        todo("Update the changelog", TodoStatus::Pending),
                    ];
                    let arguments = serde_json::json!({"todos": session.todos});
                    (
                        ResponseItem::function_call(&call_id, "TodoWrite", arguments.to_string()),
                        ResponseItem::function_call_output(&call_id, "Todos have been modified"),
                    )
                }
            }
        };
        session.history.push(call);
        session.history.push(output);
        session.history.push(ResponseItem::assistant_text(format!(
            "Done with step {turn}."
        )));
    }
    session.history.push(ResponseItem::user_text(LAST_REQUEST));
    session
}

fn read(
    session: &mut Session,
    call_id: &str,
    path: &str,
    turn: usize,
) -> (ResponseItem, ResponseItem) {
    let content = file_content(path, turn);
    session.cache.record_read(path, &content);
    session.ledger.record_read(path, &content);
    (
        ResponseItem::function_call(call_id, "Read", format!(r#"{{"file_path":"{path}"}}"#)),
        ResponseItem::function_call_output(call_id, content),
    )
}

/// Every text the model reads in `history`: messages, tool-call arguments and tool outputs.
fn prompt_texts(history: &[ResponseItem]) -> Vec<String> {
    history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { arguments, .. } => Some(arguments.clone()),
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            other => other.message_text(),
        })
        .collect()
}

/// Asserts the planted facts are in `history`. The plan and the todos may be there as the
/// `Write`/`TodoWrite` calls that made them (JSON-escaped) or as restored state.
fn assert_planted_facts_survive(history: &[ResponseItem]) {
    let texts = prompt_texts(history);
    let present = |needle: &str| texts.iter().any(|text| text.contains(needle));
    let escaped = |text: &str| {
        serde_json::to_string(text)
            .unwrap()
            .trim_matches('"')
            .to_string()
    };
    assert!(present(CRITICAL_INSTRUCTION), "critical instruction lost");
    assert!(
        present(PLAN_PATH) && (present(PLAN) || present(&escaped(PLAN))),
        "plan file lost"
    );
    for open in ["Port the span tests", "Update the changelog"] {
        assert!(present(open), "open todo `{open}` lost");
    }
    assert!(
        present("in_progress") && present("pending"),
        "the todos' status lost"
    );
    for (index, path) in RECENT_FILES.iter().enumerate() {
        // Read on turns 295..=299, the first of RECENT_FILES last.
        let turn = TURNS - 1 - index;
        assert!(
            present(&file_content(path, turn)),
            "contents of {path} lost"
        );
    }
    assert!(
        texts.iter().any(|text| text == LAST_REQUEST),
        "the last user request is not kept verbatim"
    );
}

#[test]
fn planted_facts_survive_micro_compaction() {
    let session = long_session();
    let home = tempfile::tempdir().unwrap();
    let mut manager = ContextManager::new();
    manager.replace(session.history.clone());
    let before = ApproxTokenEstimator.estimate_items(&session.history);
    let result = micro_compact(
        &mut manager,
        &mut MicroCompactIndex::new(),
        &CompactConfig::default(),
        CompactionMode::Normal,
        home.path(),
        MicroPersistence::Write,
    )
    .unwrap();
    let history = manager.raw_items();
    let MicroCompactResult::Applied(outcome) = result else {
        panic!("micro-compaction did not apply: {result:?}");
    };
    let after = ApproxTokenEstimator.estimate_items(history);
    assert!(after < before / 2, "{before} -> {after}");
    assert!(outcome.cleared_count() > 100, "{outcome:?}");
    // Micro-compaction removes no item: it only replaces tool outputs.
    assert_eq!(history.len(), session.history.len());
    // An earlier read of a recent file was cleared; its latest read was not.
    let texts = prompt_texts(history);
    assert!(!texts.contains(&file_content(RECENT_FILES[1], 30)));
    assert!(prompt_texts(&session.history).contains(&file_content(RECENT_FILES[1], 30)));
    assert_planted_facts_survive(history);
}

#[test]
fn planted_facts_survive_aggressive_micro_compaction() {
    let session = long_session();
    let home = tempfile::tempdir().unwrap();
    let mut history = ContextManager::new();
    history.replace(session.history);
    let result = micro_compact(
        &mut history,
        &mut MicroCompactIndex::new(),
        &CompactConfig::default(),
        CompactionMode::Aggressive,
        home.path(),
        MicroPersistence::Write,
    )
    .unwrap();
    assert!(
        matches!(result, MicroCompactResult::Applied(_)),
        "{result:?}"
    );
    assert_planted_facts_survive(history.raw_items());
}

#[test]
fn planted_facts_survive_session_memory_compaction_with_restoration() {
    let session = long_session();
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "planted-facts").unwrap();
    // The last extraction ran before the five recent reads; its summary mentions none of the
    // planted facts, so whatever keeps them is the tier's and the restoration's doing.
    let covered = session.history.len() - 1 - 3 * RECENT_FILES.len() - 1;
    let last_summarized = HistoryItemId::of(&session.history, covered).unwrap();
    let summary = "## Current Task\nRefactoring the tokenizer.\n\n## Key Decisions\n- Tests stay green at every step.";
    store
        .write(
            summary,
            &SessionMemoryMetadata {
                last_summarized_id: last_summarized.to_string(),
                last_extraction: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
                summary_token_count: ApproxTokenEstimator.estimate_text(summary),
                messages_summarized: u64::try_from(covered + 1).unwrap(),
            },
        )
        .unwrap();
    let result = try_session_memory_compact(
        &store,
        &CompactConfig::default(),
        &session.history,
        &session.initial_context,
        InitialContextInjection::BeforeLastUserMessage,
        &ApproxTokenEstimator,
    );
    let SessionMemoryCompaction::Applied(compacted) = result else {
        panic!("session-memory compaction did not apply: {result:?}");
    };
    assert!(
        compacted.outcome.tokens_after < compacted.outcome.tokens_before / 4,
        "{:?}",
        compacted.outcome
    );
    let mut history = compacted.history;
    // What the tier keeps on its own: the items after the extraction verbatim (the five recent
    // reads among them), the last request, and the initial context put back mid-turn.
    let texts = prompt_texts(&history);
    assert!(texts.iter().any(|text| text == LAST_REQUEST));
    assert!(texts.iter().any(|text| text.contains(CRITICAL_INSTRUCTION)));
    for (index, path) in RECENT_FILES.iter().enumerate() {
        let content = file_content(path, TURNS - 1 - index);
        assert!(texts.contains(&content), "{path} not kept verbatim");
    }
    // The plan and the todos are older than the extraction: the host restores them, as after a
    // full compaction.
    let plan = PlanFile {
        path: PathBuf::from(PLAN_PATH),
        content: PLAN.to_string(),
    };
    let restored = restore_context(
        &RestorationInput {
            file_cache: Some(&session.cache),
            read_ledger: Some(&session.ledger),
            todos: &session.todos,
            plan: Some(&plan),
            critical_instruction: Some(CRITICAL_INSTRUCTION),
            ..RestorationInput::default()
        },
        &ContextRestorationConfig::default(),
    );
    history.extend(restored.items);
    assert_planted_facts_survive(&history);
}
