//! The session-memory tier on a scripted long session: a host drives the extraction trigger
//! after every response, runs the extractions through a scripted model, then compacts from the
//! cached summary.

use std::time::Duration;
use std::time::Instant;

use agentctx_compact::CompactConfig;
use agentctx_compact::ExtractionOutcome;
use agentctx_compact::ExtractionTrigger;
use agentctx_compact::HistoryItemId;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::NotApplicable;
use agentctx_compact::SessionMemoryCompaction;
use agentctx_compact::SessionMemoryStore;
use agentctx_compact::TriggerObservation;
use agentctx_compact::render_history;
use agentctx_compact::run_extraction;
use agentctx_compact::try_session_memory_compact;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

/// Turns of the scripted session.
const TURNS: usize = 24;
/// Simulated time between two responses.
const RESPONSE_INTERVAL: Duration = Duration::from_secs(20);
/// Rendered tool outputs longer than this are cut, so the snapshot shows the shape, not file
/// bodies.
const LINE_CHARS: usize = 100;

fn summary_after(extraction: usize, turn: usize) -> String {
    format!(
        "## Current Task\nMake the lexer accept empty input (extraction {extraction}, through turn {turn}).\n\n\
         ## Key Decisions\n- Return an empty token list instead of an error.\n\n\
         ## Files Modified\n- src/lexer.rs: early return.\n\n\
         ## Open Items\n- Run the fuzz corpus.\n\n\
         ## Important Context\n- The CI runs on stable and nightly."
    )
}

/// One turn: the user's request, two tool calls with their outputs (about 1,500 tokens each),
/// and the assistant's answer. Returns the items of each model response, with whether it made
/// tool calls.
fn turn(n: usize) -> Vec<(Vec<ResponseItem>, bool)> {
    let read = |k: usize| {
        let call_id = format!("t{n}-read{k}");
        vec![
            ResponseItem::function_call(
                call_id.clone(),
                "read_file",
                format!(r#"{{"path":"src/module_{n}_{k}.rs"}}"#),
            ),
            ResponseItem::function_call_output(
                call_id,
                format!("// module {n}.{k}\n{}", "fn f() {}\n".repeat(600)),
            ),
        ]
    };
    vec![
        (
            [
                vec![ResponseItem::user_text(format!(
                    "Step {n}: look at module {n}."
                ))],
                read(0),
            ]
            .concat(),
            true,
        ),
        (read(1), true),
        (
            vec![ResponseItem::assistant_text(format!(
                "Module {n} is fine; moving on."
            ))],
            false,
        ),
    ]
}

fn cut_lines(rendered: &str) -> String {
    rendered
        .lines()
        .map(|line| {
            if !line.contains(":function_call_output/") || line.chars().count() <= LINE_CHARS {
                line.to_string()
            } else {
                let head: String = line.chars().take(LINE_CHARS).collect();
                format!("{head}… ({} chars)", line.chars().count())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_long_session_compacts_from_its_background_summary() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "019a-long-session").unwrap();
    let config = CompactConfig::default();
    let estimator = ApproxTokenEstimator;
    let model = ScriptedModelClient::new("summariser");
    let mut trigger = ExtractionTrigger::new(&config.session_memory);
    let start = Instant::now();
    let mut now = start;
    let mut history: Vec<ResponseItem> = Vec::new();
    let mut extractions = 0;

    for n in 1..=TURNS {
        for (items, made_tool_calls) in turn(n) {
            let calls = items.iter().filter(|item| item.is_tool_call()).count();
            history.extend(items);
            trigger.record_tool_calls(u32::try_from(calls).unwrap());
            now += RESPONSE_INTERVAL;
            let observation = TriggerObservation {
                context_tokens: estimator.estimate_items(&history),
                last_response_had_tool_calls: made_tool_calls,
            };
            if trigger.should_extract(observation, now) {
                extractions += 1;
                model.push_text(summary_after(extractions, n));
                let ticket = trigger.extraction_started(observation.context_tokens, now);
                let at = Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap()
                    + chrono::Duration::seconds(i64::try_from(n).unwrap());
                let outcome = run_extraction(&model, &store, &history, at).await.unwrap();
                assert!(matches!(outcome, ExtractionOutcome::Updated { .. }));
                trigger.extraction_finished(ticket, true);
            }
        }
    }
    // A last turn goes on after the last extraction: the request and two reads, then
    // compaction is due.
    for (items, _) in turn(TURNS + 1).into_iter().take(2) {
        history.extend(items);
    }

    assert_eq!(model.served(), extractions);
    assert!(extractions >= 4, "{extractions} extractions");
    let metadata = store.read_metadata().unwrap().unwrap();
    let last_summarized: HistoryItemId = metadata.last_summarized_id.parse().unwrap();
    let kept_from = last_summarized.locate(&history).unwrap() + 1;

    trigger.begin_compaction();
    let observation = TriggerObservation {
        context_tokens: estimator.estimate_items(&history),
        last_response_had_tool_calls: false,
    };
    assert!(!trigger.should_extract(observation, now + Duration::from_secs(3_600)));
    let result = try_session_memory_compact(
        &store,
        &config,
        &history,
        &[],
        InitialContextInjection::DoNotInject,
        &estimator,
    );
    let SessionMemoryCompaction::Applied(compacted) = result else {
        panic!("not applied: {result:?}");
    };
    trigger.end_compaction(compacted.outcome.tokens_after);

    assert_eq!(
        model.served(),
        extractions,
        "no model call at compaction time"
    );
    assert_eq!(&compacted.history[1..], &history[kept_from..]);
    assert_eq!(compacted.outcome.removed_items, kept_from);
    assert!(compacted.outcome.saved_tokens >= 10_000);
    assert_eq!(
        compacted.outcome.loop_event(),
        LoopEvent::SessionMemoryCompactApplied {
            saved_tokens: i32::try_from(compacted.outcome.saved_tokens).unwrap(),
            summary_tokens: i32::try_from(compacted.outcome.summary_tokens).unwrap(),
        }
    );
    // The host installs the new history and moves the summary's mark into it: the next
    // extraction takes in only what the summary does not cover.
    compacted.rebase_store(&store).unwrap();
    let mut history = compacted.history.clone();
    for (items, _) in turn(TURNS + 1).into_iter().skip(2) {
        history.extend(items);
    }
    model.push_text(summary_after(extractions + 1, TURNS + 1));
    let outcome = run_extraction(
        &model,
        &store,
        &history,
        Utc.with_ymd_and_hms(2026, 11, 23, 13, 0, 0).unwrap(),
    )
    .await
    .unwrap();
    let ExtractionOutcome::Updated { new_items, .. } = outcome else {
        panic!("expected an update, got {outcome:?}");
    };
    assert_eq!(new_items, history.len() - 1);
    let request = model.last_prompt().unwrap().input[0]
        .message_text()
        .unwrap();
    assert!(
        !request.contains("[user] Another language model"),
        "{request}"
    );
    assert!(request.contains("src/module_25_0.rs"), "{request}");

    insta::assert_snapshot!(
        "session_memory_compacted_long_session",
        format!(
            "extractions: {extractions}\ntokens: {} -> {}\n\n{}",
            compacted.outcome.tokens_before,
            compacted.outcome.tokens_after,
            cut_lines(&render_history(&compacted.history))
        )
    );
}

#[tokio::test]
async fn a_session_without_an_extraction_falls_through_to_full_compaction() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "fresh").unwrap();
    let history: Vec<ResponseItem> = turn(1).into_iter().flat_map(|(items, _)| items).collect();
    let result = try_session_memory_compact(
        &store,
        &CompactConfig::default(),
        &history,
        &[],
        InitialContextInjection::DoNotInject,
        &ApproxTokenEstimator,
    );
    assert_eq!(
        result,
        SessionMemoryCompaction::NotApplicable(NotApplicable::NoSummary)
    );
}
