//! One engine decides: a live session and the replay of the rollout it recorded take the same
//! decisions at every request (pre-turn, mid-turn and blocking compactions included), and a
//! subagent in a long run compacts and finishes.

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_engine::Action;
use agentctx_engine::CompactReason;
use agentctx_engine::Decision;
use agentctx_engine::DecisionPoint;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::engine_at_compaction;
use agentctx_engine::replay::replay_file;
use agentctx_model::ModelInfo;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
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

fn summary() -> ScriptedResponse {
    ScriptedResponse::text("<summary>The user reads notes and asks about them.</summary>")
}

/// What both sides must agree on: where, on how many tokens against which limit, and what.
fn key(decision: &Decision) -> (DecisionPoint, u64, u64, Action, bool) {
    (
        decision.point,
        decision.tokens,
        decision.limit,
        decision.action,
        decision.compaction.is_some(),
    )
}

#[tokio::test]
async fn a_live_session_and_the_replay_of_its_rollout_take_the_same_decisions() {
    let dirs = dirs();
    // Notes of about 2,600 tokens: two reads fill the 12,000-token window past its trigger.
    let notes: String = (0..260)
        .map(|n| format!("note {n}: the parser keeps its state per file\n"))
        .collect();
    std::fs::write(dirs.cwd.join("notes.txt"), &notes).unwrap();
    std::fs::write(dirs.cwd.join("more.txt"), &notes).unwrap();
    let model = ScriptedModelClient::new("test-model").with_model_info(ModelInfo {
        max_output_tokens: Some(2_000),
        ..ModelInfo::with_context_window(12_000)
    });
    let read = |id: &str, path: &str| {
        ScriptedResponse::new()
            .with_function_call(id, "read_file", format!(r#"{{"path":"{path}"}}"#))
            .with_usage(usage(1_500))
    };
    // Turn 1: two reads, a mid-turn compaction after the second, the answer.
    model.push(read("c1", "notes.txt"));
    model.push(read("c2", "more.txt").with_usage(usage(6_200)));
    model.push(summary());
    model.push(ScriptedResponse::text("Read both.").with_usage(usage(1_200)));
    // Turn 2: the answer reports a context over the trigger.
    model.push(ScriptedResponse::text("Noted.").with_usage(usage(9_500)));
    // Turn 3: compacted before it starts; its long message then fills the window past the
    // blocking limit, and the request is compacted before it is sent.
    model.push(summary());
    model.push(summary());
    model.push(ScriptedResponse::text("Done.").with_usage(usage(3_000)));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    options.compact.micro_compact = false;
    // Nothing restored after a compaction: the figures stay small and easy to follow.
    options.compact.restoration.total_budget_tokens = 0;
    let compact_config = options.compact.clone();
    let reminders = options.reminders.clone();
    let (mut session, mut events) = Session::new(options).unwrap();

    let cancel = CancellationToken::new();
    session
        .run_turn("Read notes.txt and more.txt", &cancel)
        .await
        .unwrap();
    session.run_turn("Remember them", &cancel).await.unwrap();
    // A message that alone takes the window from under the trigger to past the blocking limit.
    let long = "please keep this in mind: ".repeat(1_230);
    let last = session.run_turn(&long, &cancel).await;
    assert!(last.is_ok(), "{last:?}");
    session.wait_for_background().await;

    let live: Vec<Decision> = drain(&mut events)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::Decision(decision) => Some(decision),
            _ => None,
        })
        .collect();
    let reasons: Vec<CompactReason> = live.iter().filter_map(Decision::compact_reason).collect();
    assert_eq!(
        reasons,
        [
            CompactReason::MidTurn,
            CompactReason::PreTurn,
            CompactReason::Blocking
        ],
        "{live:#?}"
    );
    assert!(
        live.iter()
            .all(|decision| decision.compact_reason().is_none() || decision.compaction.is_some())
    );

    // The replay of the rollout, under the same configuration (on a thread of its own: the
    // replay runs its own runtime).
    let rollout = session.rollout_path().to_path_buf();
    let replay_options = ReplayOptions {
        home: dirs.home.clone(),
        reminders: Some(reminders),
        compact: compact_config,
        ..ReplayOptions::default()
    };
    let replay = {
        let replay_options = replay_options.clone();
        tokio::task::spawn_blocking(move || replay_file(&rollout, &replay_options, None))
    }
    .await
    .unwrap()
    .unwrap();
    assert!(replay.recorded_by_agentctx);
    assert_eq!(replay.compactions, 3);
    // Every decision is the live one, from the first request's check on (the first turn's
    // pre-turn check, on an empty history, is kept by neither).
    let replayed: Vec<Decision> = replay
        .requests
        .iter()
        .flat_map(|request| request.decisions.iter().copied())
        .collect();
    assert_eq!(
        replayed.iter().map(key).collect::<Vec<_>>(),
        live.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(live[0].point, DecisionPoint::BeforeRequest, "{live:#?}");
    // `auto_compact` stands at the requests after which the live session compacted, and
    // nowhere else.
    let compacted: Vec<usize> = replay
        .requests
        .iter()
        .filter(|request| request.auto_compact.is_some())
        .map(|request| request.request)
        .collect();
    let live_compacted: Vec<usize> = replay
        .requests
        .iter()
        .filter(|request| {
            request
                .decisions
                .iter()
                .any(|decision| decision.compact_reason().is_some())
        })
        .map(|request| request.request)
        .collect();
    // Turn 3's compaction before the turn and its blocked first request stand before the same
    // request.
    assert_eq!(compacted.len(), 2, "{:#?}", replay.requests);
    assert_eq!(compacted, live_compacted);

    // `agentctx compact --at-compaction N` of the rollout: the replay stopped before the
    // session's Nth compaction, the engine compacts there with the reason it decides and the
    // same summary, and gets the compaction the live session got.
    let live_compactions: Vec<&Decision> = live
        .iter()
        .filter(|decision| decision.compaction.is_some())
        .collect();
    for (n, live) in live_compactions.iter().enumerate() {
        let rollout = session.rollout_path().to_path_buf();
        let options = replay_options.clone();
        let mut at = tokio::task::spawn_blocking(move || {
            engine_at_compaction(&rollout, n + 1, &options).unwrap()
        })
        .await
        .unwrap();
        let decided = at.decision.expect("a decision at every compaction");
        assert_eq!(
            (decided.point, decided.tokens, decided.limit, decided.action),
            (live.point, live.tokens, live.limit, live.action),
            "compaction {}",
            n + 1
        );
        let summarizer = ScriptedModelClient::new("test-model").with_model_info(ModelInfo {
            max_output_tokens: Some(2_000),
            ..ModelInfo::with_context_window(12_000)
        });
        summarizer.push(summary());
        let compacted = at.compact(Some(&summarizer)).await.unwrap().compaction;
        let figures = live.compaction.unwrap();
        assert_eq!(
            (
                compacted.tier,
                compacted.tokens_before,
                compacted.tokens_after
            ),
            (figures.tier, figures.tokens_before, figures.tokens_after),
            "compaction {}",
            n + 1
        );
    }
}

#[tokio::test]
async fn a_subagent_in_a_long_run_compacts_and_finishes() {
    let dirs = dirs();
    let notes: String = (0..260)
        .map(|n| format!("note {n}: the parser keeps its state per file\n"))
        .collect();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(dirs.cwd.join(name), &notes).unwrap();
    }
    let model = ScriptedModelClient::new("test-model").with_model_info(ModelInfo {
        max_output_tokens: Some(2_000),
        ..ModelInfo::with_context_window(12_000)
    });
    model.push(ScriptedResponse::new().with_function_call(
        "t1",
        "task",
        r#"{"agent":"Explore","prompt":"Read a.txt, b.txt and c.txt and report"}"#,
    ));
    // The subagent reads three files of about 2,900 tokens each: its history passes the
    // session's trigger scaled to its window after the second, and it compacts there.
    for (id, path, input) in [("s1", "a.txt", 1_500), ("s2", "b.txt", 6_200)] {
        model.push(
            ScriptedResponse::new()
                .with_function_call(id, "read_file", format!(r#"{{"path":"{path}"}}"#))
                .with_usage(usage(input)),
        );
    }
    model.push(summary());
    model.push(
        ScriptedResponse::new()
            .with_function_call("s3", "read_file", r#"{"path":"c.txt"}"#)
            .with_usage(usage(1_000)),
    );
    model.push(ScriptedResponse::text("Report: three files of notes.").with_usage(usage(4_000)));
    model.push(ScriptedResponse::text("The agent read all three.").with_usage(usage(2_000)));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.compact.session_memory.extraction_enabled = false;
    options.compact.micro_compact = false;
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("Have an agent read the notes", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.last_message.as_deref(),
        Some("The agent read all three.")
    );
    // The subagent's report reached the session, and its summary request was made: the
    // compaction happened in the subagent's run.
    let report = session
        .history()
        .iter()
        .find_map(|item| match item {
            agentctx_protocol::ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } if call_id == "t1" => Some(output.text_content()),
            _ => None,
        })
        .unwrap();
    assert!(report.contains("Report: three files of notes."), "{report}");
    // Every scripted answer was taken, the summary among them: without the compaction the
    // summary would have been the agent's report.
    assert_eq!(model.remaining(), 0);
}
