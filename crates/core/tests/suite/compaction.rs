//! Compaction wiring in the session: pre-turn auto-compaction with its `PreCompact` hook,
//! micro-compaction before a request, and the background session-memory extraction.

use std::sync::Arc;
use std::sync::Mutex;

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_engine::CompactPoint;
use agentctx_engine::PreCompactHook;
use agentctx_model::ModelInfo;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::drain;
use super::support::options;

fn usage(input_tokens: i64) -> TokenUsage {
    TokenUsage {
        input_tokens,
        output_tokens: 10,
        total_tokens: input_tokens + 10,
        ..TokenUsage::default()
    }
}

fn small_model(window: i64) -> ScriptedModelClient {
    ScriptedModelClient::new("test-model").with_model_info(ModelInfo {
        max_output_tokens: Some(2_000),
        ..ModelInfo::with_context_window(window)
    })
}

#[derive(Default)]
struct Hook(Mutex<Vec<(CompactPoint, usize)>>);

impl PreCompactHook for Hook {
    fn pre_compact(&self, point: CompactPoint, history: &[ResponseItem]) {
        self.0.lock().unwrap().push((point, history.len()));
    }
}

#[tokio::test]
async fn a_full_context_compacts_before_the_next_turn_and_calls_the_hook() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() {}\n").unwrap();
    let model = small_model(30_000);
    model.push(ScriptedResponse::new().with_function_call(
        "call_read",
        "read_file",
        r#"{"path":"parser.rs"}"#,
    ));
    // Over the trigger of a 30,000-token window (28,000 effective, an eighth of it as the
    // buffer: 24,500).
    model.push(ScriptedResponse::text("First answer.").with_usage(usage(25_000)));
    model.push(ScriptedResponse::text(
        "<summary>The user asked two questions about the parser.</summary>",
    ));
    model.push(ScriptedResponse::text("Second answer.").with_usage(usage(3_000)));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    let hook = Arc::new(Hook::default());
    session.engine_mut().add_pre_compact_hook(hook.clone());

    session
        .run_turn("First question about the parser", &CancellationToken::new())
        .await
        .unwrap();
    let before = session.history().len();
    drain(&mut events);
    session
        .run_turn("Second question", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(
        *hook.0.lock().unwrap(),
        vec![(CompactPoint::PreTurn, before)]
    );
    let events = drain(&mut events);
    let kinds: Vec<&SessionEvent> = events
        .iter()
        .filter(|event| {
            matches!(
                event,
                SessionEvent::TurnStarted { .. } | SessionEvent::Loop(_)
            )
        })
        .collect();
    assert_eq!(kinds[0], &SessionEvent::TurnStarted { turn: 2 });
    assert_eq!(kinds[1], &SessionEvent::Loop(LoopEvent::CompactionStarted));
    assert!(matches!(
        kinds[2],
        SessionEvent::Loop(LoopEvent::CompactionCompleted { .. })
    ));

    let prompts = model.prompts();
    assert_eq!(prompts.len(), 4);
    let texts: Vec<String> = prompts[3]
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    // The first question survives verbatim, the summary follows, the initial context is
    // recorded in full once again, then the new question.
    assert!(
        texts
            .iter()
            .any(|text| text == "First question about the parser"),
        "{texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|text| text.contains("The user asked two questions about the parser.")),
        "{texts:#?}"
    );
    assert_eq!(
        texts
            .iter()
            .filter(|text| text.starts_with("<environment_context>"))
            .count(),
        1,
        "{texts:#?}"
    );
    assert!(
        texts.iter().any(|text| text.contains("fn parse() {}")),
        "restored file missing: {texts:#?}"
    );
    let question = texts
        .iter()
        .position(|text| text == "Second question")
        .unwrap();
    assert!(
        texts[question + 1..]
            .iter()
            .all(|text| text.starts_with("<system-reminder>")),
        "{texts:#?}"
    );

    // The rollout records the compaction with its replacement history.
    let file = agentctx_rollout::read_rollout(session.rollout_path()).unwrap();
    assert!(
        file.records
            .iter()
            .any(|record| record.line.item.kind() == "compacted")
    );
}

#[tokio::test]
async fn old_tool_results_are_micro_compacted_before_a_request() {
    let dirs = dirs();
    // Thirty big command outputs in one turn (each kept at the history's 10,000-byte
    // truncation): the oldest are cleared once that saves enough.
    let big = "x".repeat(12_000);
    let mut calls = ScriptedResponse::new();
    for index in 0..30 {
        std::fs::write(dirs.cwd.join(format!("f{index}.txt")), &big).unwrap();
        calls = calls.with_function_call(
            format!("call_{index}"),
            "shell",
            format!(r#"{{"command":"cat f{index}.txt"}}"#),
        );
    }
    let model = small_model(1_000_000);
    model.push(calls);
    model.push(ScriptedResponse::text("Read them all."));
    model.push(ScriptedResponse::text("Summarised."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    let micro = |events: &[SessionEvent]| -> Vec<i32> {
        events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Loop(LoopEvent::MicroCompactionApplied { removed_results }) => {
                    Some(*removed_results)
                }
                _ => None,
            })
            .collect()
    };
    session
        .run_turn("Print f0.txt to f29.txt", &CancellationToken::new())
        .await
        .unwrap();
    // Results of the running turn are cleared too once three newer results follow them: one
    // prompt can drive a whole session. The turn's second request is the first with results.
    let cleared = micro(&drain(&mut events));
    assert_eq!(
        cleared.len(),
        1,
        "one micro-compaction, before the turn's second request"
    );
    let second = model.last_prompt().unwrap();
    let persisted = second
        .items()
        .filter(|item| {
            matches!(item, ResponseItem::FunctionCallOutput { output, .. } if output.text_content().contains("persisted-output"))
        })
        .count();
    assert_eq!(
        i32::try_from(persisted).unwrap(),
        cleared[0],
        "{:#?}",
        second.input
    );
    assert!(dirs.home.join("tool-results").is_dir());

    // Nothing new to clear before the next request, which tells the model what was cleared.
    session
        .run_turn("Summarise them", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(micro(&drain(&mut events)), Vec::<i32>::new());
    let texts: Vec<String> = model
        .last_prompt()
        .unwrap()
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    let notice = format!("Micro-compact cleared {} tool result(s)", cleared[0]);
    assert!(
        texts.iter().any(|text| text.contains(&notice)),
        "{texts:#?}"
    );
}

#[tokio::test]
async fn a_long_turn_starts_the_background_session_memory_extraction() {
    let dirs = dirs();
    let model = small_model(200_000);
    model.push(ScriptedResponse::text("Understood.").with_usage(usage(8_000)));
    model.push(ScriptedResponse::text(
        "# Session title\nThe user described the billing service.",
    ));
    let (mut session, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    let long = format!(
        "Here is the billing service: {}",
        "invoice line. ".repeat(2_500)
    );
    session
        .run_turn(&long, &CancellationToken::new())
        .await
        .unwrap();
    session.wait_for_background().await;

    assert_eq!(model.prompts().len(), 2);
    let dir = dirs.home.join("session-memory").join(session.session_id());
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("The user described the billing service."),
        "{summary}"
    );
    assert!(dir.join("metadata.json").is_file());
}

#[tokio::test]
async fn the_session_memory_summary_compacts_without_a_model_call() {
    let dirs = dirs();
    let model = small_model(60_000);
    model.push(ScriptedResponse::text("I have read the spec.").with_usage(usage(20_000)));
    model.push(ScriptedResponse::text(
        "# Billing\nThe user pasted the billing spec: invoices are monthly.",
    ));
    // Over the trigger of a 60,000-token window (58,000 effective, 50,750).
    model.push(ScriptedResponse::text("Looking at the tests.").with_usage(usage(52_000)));
    model.push(ScriptedResponse::text("The tests cover monthly invoices."));
    let (mut session, mut events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();

    let spec = format!(
        "The billing spec: {}",
        "invoices are issued monthly. ".repeat(5_000)
    );
    session
        .run_turn(&spec, &CancellationToken::new())
        .await
        .unwrap();
    session.wait_for_background().await;
    session
        .run_turn("Now look at the tests", &CancellationToken::new())
        .await
        .unwrap();
    drain(&mut events);
    session
        .run_turn("What do they cover?", &CancellationToken::new())
        .await
        .unwrap();

    let events = drain(&mut events);
    assert!(
        events.iter().any(|event| matches!(
            event,
            SessionEvent::Loop(LoopEvent::SessionMemoryCompactApplied { .. })
        )),
        "{events:#?}"
    );
    // No summary request: four model calls in all (three turns and one extraction).
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 4);
    let texts: Vec<String> = prompts[3]
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert!(
        texts
            .iter()
            .any(|text| text.contains("invoices are monthly")),
        "{texts:#?}"
    );
    assert!(
        texts.iter().any(|text| text == "Now look at the tests"),
        "{texts:#?}"
    );
    assert!(
        !texts
            .iter()
            .any(|text| text.starts_with("The billing spec:")),
        "the spec was summarised"
    );
}

#[tokio::test]
async fn a_context_window_error_compacts_and_sends_the_request_again() {
    let dirs = dirs();
    let model = small_model(200_000);
    model.push(ScriptedResponse::text("Earlier answer."));
    model.push(ScriptedResponse::error(
        agentctx_model::ModelError::ContextWindowExceeded {
            message: "Your input exceeds the context window of this model.".to_string(),
        },
    ));
    model.push(ScriptedResponse::text(
        "<summary>The user asked an earlier question.</summary>",
    ));
    model.push(ScriptedResponse::text("Answer after compaction."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("Earlier question", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = session
        .run_turn("Next question", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.last_message.as_deref(),
        Some("Answer after compaction.")
    );
    let events = drain(&mut events);
    assert!(
        events.contains(&SessionEvent::Loop(LoopEvent::CompactionStarted)),
        "{events:#?}"
    );
    let texts: Vec<String> = model
        .last_prompt()
        .unwrap()
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert!(
        texts.iter().any(|text| text == "Next question"),
        "{texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|text| text.contains("The user asked an earlier question.")),
        "{texts:#?}"
    );
}

#[tokio::test]
async fn compactions_that_free_too_little_raise_the_thrash_warning() {
    let dirs = dirs();
    let model = small_model(30_000);
    model.push(ScriptedResponse::text("Read it.").with_usage(usage(25_000)));
    model.push(ScriptedResponse::text(
        "<summary>A long spec was pasted.</summary>",
    ));
    model.push(ScriptedResponse::text("Still here.").with_usage(usage(25_000)));
    model.push(ScriptedResponse::text(
        "<summary>A long spec was pasted, twice summarised.</summary>",
    ));
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    options.compact.min_messages_before_compact = 1;
    // Instructions of about 17,000 tokens fill more than 60% of the 28,000-token effective
    // window by themselves, so no compaction can free it.
    options.base_instructions = "Every invoice has a due date. ".repeat(2_300);
    let (mut session, mut events) = Session::new(options).unwrap();
    let spec = format!("Spec: {}", "every invoice has a due date. ".repeat(100));
    session
        .run_turn(&spec, &CancellationToken::new())
        .await
        .unwrap();
    session
        .run_turn("Continue", &CancellationToken::new())
        .await
        .unwrap();
    session
        .run_turn("Continue again", &CancellationToken::new())
        .await
        .unwrap();

    let events = drain(&mut events);
    let compactions = events
        .iter()
        .filter(|event| {
            matches!(
                event,
                SessionEvent::Loop(LoopEvent::CompactionCompleted { .. })
            )
        })
        .count();
    assert_eq!(compactions, 2, "{events:#?}");
    // Every compaction also carries codex's accuracy warning; the thrash warning is its own.
    let warning = events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .find(|message| message != agentctx_core::COMPACTION_ACCURACY_WARNING)
        .unwrap_or_else(|| panic!("no thrash warning in {events:#?}"));
    assert!(warning.contains("2 compactions in a row"), "{warning}");
}
