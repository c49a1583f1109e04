//! Full compaction on a long scripted session: the compacted history as the model sees it
//! next, and the planted facts (critical instruction, plan file, open todos, recently read
//! files, last user request) that must all survive it, through the model and offline.

use std::path::PathBuf;

use agentctx_compact::BackgroundTask;
use agentctx_compact::ContextRestorationConfig;
use agentctx_compact::FileCache;
use agentctx_compact::FullCompactConfig;
use agentctx_compact::FullCompactOutcome;
use agentctx_compact::FullCompactRequest;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::PlanFile;
use agentctx_compact::ReadLedger;
use agentctx_compact::RestorationInput;
use agentctx_compact::SummaryPath;
use agentctx_compact::full_compact;
use agentctx_compact::render_history;
use agentctx_compact::restore_context;
use agentctx_context::ApproxTokenEstimator;
use agentctx_model::ModelClient;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::BackgroundTaskStatus;
use agentctx_protocol::BackgroundTaskType;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;

const CRITICAL_INSTRUCTION: &str = "Never run `git push`; the user pushes.";
const PLAN_PATH: &str = "/repo/.agentctx/plans/tokenizer.md";
const PLAN: &str = "1. Split the lexer out of parser.rs\n2. Add token spans\n3. Port the tests";
const LAST_REQUEST: &str = "Now port the remaining span tests in tests/spans.rs and stop there.";

/// A host's view of a session: the history and the state it tracks beside it.
struct Session {
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

fn file_content(path: &str, turn: usize) -> String {
    format!("// {path} as of turn {turn}\npub fn item_{turn}() -> usize {{ {turn} }}\n")
}

/// A 300-turn session: every turn reads a file, runs a command or edits; the user speaks
/// every 25 turns; the plan is written early, todos are updated along the way, and the last
/// five turns read five distinct files.
fn long_session(turns: usize) -> Session {
    let mut session = Session {
        history: Vec::new(),
        cache: FileCache::default(),
        ledger: ReadLedger::new(),
        todos: Vec::new(),
    };
    let recent_files = [
        "src/lexer.rs",
        "src/span.rs",
        "src/parser.rs",
        "tests/spans.rs",
        "src/lib.rs",
    ];
    for turn in 0..turns {
        if turn % 25 == 0 {
            let text = if turn == 0 {
                "Split the tokenizer out of the parser, following a plan.".to_string()
            } else {
                format!("Keep going (checkpoint {turn}).")
            };
            session.history.push(ResponseItem::user_text(text));
        }
        let call_id = format!("call_{turn}");
        let (name, path) = if turns - turn <= recent_files.len() {
            ("read", recent_files[turns - turn - 1].to_string())
        } else if turn == 3 {
            ("write", PLAN_PATH.to_string())
        } else {
            match turn % 3 {
                0 => ("read", format!("src/old_{}.rs", turn % 40)),
                1 => ("shell", String::new()),
                _ => ("todo_write", String::new()),
            }
        };
        match name {
            "read" => {
                let content = file_content(&path, turn);
                session.history.push(ResponseItem::function_call(
                    &call_id,
                    "read",
                    format!(r#"{{"path":"{path}"}}"#),
                ));
                session
                    .history
                    .push(ResponseItem::function_call_output(&call_id, &content));
                session.cache.record_read(&path, &content);
                session.ledger.record_read(&path, &content);
            }
            "write" => {
                session.history.push(ResponseItem::function_call(
                    &call_id,
                    "write",
                    format!(r#"{{"path":"{path}"}}"#),
                ));
                session
                    .history
                    .push(ResponseItem::function_call_output(&call_id, "written"));
            }
            "shell" => {
                session.history.push(ResponseItem::function_call(
                    &call_id,
                    "shell",
                    r#"{"command":["cargo","test"]}"#,
                ));
                session.history.push(ResponseItem::function_call_output(
                    &call_id,
                    format!(
                        "test result: ok. {turn} passed; 0 failed\n{}",
                        "log ".repeat(50)
                    ),
                ));
            }
            _ => {
                session.todos = vec![
                    todo("Split the lexer out of parser.rs", TodoStatus::Completed),
                    todo("Add token spans", TodoStatus::Completed),
                    todo("Port the span tests", TodoStatus::InProgress),
                    todo("Update the changelog", TodoStatus::Pending),
                ];
                session.history.push(ResponseItem::function_call(
                    &call_id,
                    "todo_write",
                    r#"{"todos":"…"}"#,
                ));
                session.history.push(ResponseItem::function_call_output(
                    &call_id,
                    "todos updated",
                ));
            }
        }
        session.history.push(ResponseItem::assistant_text(format!(
            "Done with step {turn}."
        )));
    }
    session.history.push(ResponseItem::user_text(LAST_REQUEST));
    session
}

async fn compact_and_restore(
    session: &Session,
    model: Option<&dyn ModelClient>,
) -> FullCompactOutcome {
    let request = FullCompactRequest {
        history: &session.history,
        initial_context: vec![
            ResponseItem::developer_text(
                "<permissions instructions>workspace-write</permissions instructions>",
            ),
            ResponseItem::user_text(
                "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse cargo nextest.\n</INSTRUCTIONS>",
            ),
        ],
        injection: InitialContextInjection::BeforeLastUserMessage,
        base_instructions: "You are a coding agent.",
        prompt_override: None,
        reserved_output_tokens: 20_000,
        session_id: Some("s1".to_string()),
        reasoning: None,
    };
    let mut outcome = full_compact(
        model,
        request,
        &FullCompactConfig::default(),
        &ApproxTokenEstimator,
    )
    .await;
    let plan = PlanFile {
        path: PathBuf::from(PLAN_PATH),
        content: PLAN.to_string(),
    };
    let tasks = [BackgroundTask {
        task_id: "bash_7".to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo build --release".to_string()),
        description: "cargo build --release".to_string(),
        status: BackgroundTaskStatus::Running,
        exit_code: None,
        output_len: 0,
        delta_summary: None,
        progress_message: None,
    }];
    let input = RestorationInput {
        file_cache: Some(&session.cache),
        read_ledger: Some(&session.ledger),
        todos: &session.todos,
        plan: Some(&plan),
        invoked_skills: &[],
        background_tasks: &tasks,
        critical_instruction: Some(CRITICAL_INSTRUCTION),
        user_messages: &[],
    };
    let restored = restore_context(&input, &ContextRestorationConfig::default());
    outcome.append_restoration(restored, &ApproxTokenEstimator);
    outcome
}

fn assert_planted_facts_survive(outcome: &FullCompactOutcome) {
    let texts: Vec<String> = outcome
        .history
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect();
    let present = |needle: &str| texts.iter().any(|text| text.contains(needle));
    assert!(present(CRITICAL_INSTRUCTION), "critical instruction lost");
    assert!(present(PLAN_PATH) && present(PLAN), "plan file lost");
    assert!(
        present("[in_progress] Port the span tests"),
        "open todo lost"
    );
    assert!(present("[pending] Update the changelog"), "open todo lost");
    let recent = [
        "src/lexer.rs",
        "src/span.rs",
        "src/parser.rs",
        "tests/spans.rs",
        "src/lib.rs",
    ];
    for (index, path) in recent.iter().enumerate() {
        // Read on turns 295..=299, newest last.
        let turn = 299 - index;
        assert!(
            present(&file_content(path, turn)),
            "contents of {path} lost"
        );
    }
    let restored: Vec<PathBuf> = recent.iter().map(PathBuf::from).collect();
    assert_eq!(outcome.restored_files, restored);
    assert!(
        texts.iter().any(|text| text == LAST_REQUEST),
        "the last user request is not kept verbatim"
    );
}

#[tokio::test]
async fn planted_facts_survive_a_model_full_compaction() {
    let session = long_session(300);
    // The summary mentions none of the planted facts: restoration must carry them.
    let model = ScriptedModelClient::new("scripted");
    model.push_text("<summary>Refactoring the tokenizer; tests are green.</summary>");
    let outcome = compact_and_restore(&session, Some(&model)).await;
    assert_eq!(outcome.path, SummaryPath::Model);
    assert!(
        outcome.tokens_after < outcome.tokens_before / 2,
        "{outcome:?}"
    );
    assert_planted_facts_survive(&outcome);
}

#[tokio::test]
async fn planted_facts_survive_an_offline_full_compaction() {
    let session = long_session(300);
    let outcome = compact_and_restore(&session, None).await;
    assert_eq!(outcome.path, SummaryPath::Offline);
    assert_planted_facts_survive(&outcome);
}

#[tokio::test]
async fn compacted_history_of_a_long_session() {
    let session = long_session(300);
    let model = ScriptedModelClient::new("scripted");
    model.push_text("<summary>Refactoring the tokenizer; tests are green.</summary>");
    let outcome = compact_and_restore(&session, Some(&model)).await;
    insta::assert_snapshot!(render_history(&outcome.history));
}
