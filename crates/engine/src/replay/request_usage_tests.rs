//! The figures a replay gives per model request: the engine's usage prediction against what
//! the request recorded (its basis, the error percentiles, rollbacks, compactions and the codex
//! 0.5x order of counts), micro-compaction and the truncation of the tool outputs the
//! prediction counts. Ported from the unit tests of the CLI's own usage replay (gone since the
//! replay runs the engine); the estimates are the engine's (`ApproxTokenEstimator`) instead of
//! the old tests' flat 100 tokens per item, so the recorded figures that made a prediction
//! exact are now derived from them.

use std::io::Cursor;
use std::path::Path;

use agentctx_compact::CompactConfig;
use agentctx_compact::ThresholdLevel;
use agentctx_compact::summary_text;
use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_model::Prompt;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::PredictionBasis;
use super::PredictionError;
use super::RequestUsage;
use crate::Action;
use crate::CompactReason;
use crate::CompactionTier;
use crate::DecisionPoint;
use crate::replay::ReplayOptions;
use crate::replay::RequestSink;
use crate::replay::SessionReplay;
use crate::replay::replay_reader;

fn tokens(items: &[ResponseItem]) -> u64 {
    ApproxTokenEstimator.estimate_items(items)
}

fn line(kind: &str, payload: Value) -> String {
    json!({"timestamp": "t", "type": kind, "payload": payload}).to_string()
}

fn item(item: &ResponseItem) -> String {
    line("response_item", serde_json::to_value(item).unwrap())
}

fn options() -> ReplayOptions {
    ReplayOptions {
        reminders: None,
        ..ReplayOptions::default()
    }
}

fn replay_with(lines: &[String], options: &ReplayOptions) -> SessionReplay {
    let text = lines.join("\n");
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(text));
    replay_reader(reader, options, None).unwrap()
}

fn replay(lines: &[String]) -> SessionReplay {
    replay_with(lines, &options())
}

const INSTRUCTIONS: &str = "0123456789";

fn meta() -> String {
    line(
        "session_meta",
        json!({"id": "s1", "base_instructions": {"text": INSTRUCTIONS}}),
    )
}

fn instructions() -> u64 {
    ApproxTokenEstimator.estimate_text(INSTRUCTIONS)
}

fn user() -> ResponseItem {
    ResponseItem::user_text("fix the bug")
}

fn shell_call() -> ResponseItem {
    ResponseItem::function_call("c1", "shell", "{}")
}

fn shell_output() -> ResponseItem {
    ResponseItem::function_call_output("c1", "ok")
}

fn answer() -> ResponseItem {
    ResponseItem::assistant_text("done")
}

fn compacted() -> String {
    line(
        "compacted",
        json!({"message": "summary", "replacement_history": [ResponseItem::user_text("summary")]}),
    )
}

fn token_count(input_tokens: u64) -> String {
    line(
        "event_msg",
        json!({"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": input_tokens, "output_tokens": 5, "total_tokens": input_tokens},
            "model_context_window": 200_000
        }}),
    )
}

fn request(predicted: u64, recorded: Option<u64>, basis: PredictionBasis) -> RequestUsage {
    RequestUsage {
        request: 1,
        line: 1,
        predicted_tokens: predicted,
        basis,
        recorded_tokens: recorded,
        recorded_usage: None,
        recorded_billing: None,
        after_compaction: false,
        micro_compact: None,
        micro_cost: None,
        level: ThresholdLevel::Normal,
        auto_compact: None,
        recorded_offset: 0,
        decisions: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Prediction bases and errors.

#[test]
fn prediction_is_the_previous_recorded_input_plus_the_items_added_since() {
    // Request 1 sees [user] and records 1,000; it answers with a call, whose output comes back:
    // request 2 is predicted at 1,000 plus the call and its output, and records exactly that.
    let second = 1_000 + tokens(&[shell_call(), shell_output()]);
    let replay = replay(&[
        meta(),
        item(&user()),
        item(&shell_call()),
        token_count(1_000),
        item(&shell_output()),
        item(&answer()),
        token_count(second),
    ]);
    let requests = &replay.requests;
    assert_eq!(requests.len(), 2);
    // The first request has no previous one: the whole history (1 item) plus the instructions.
    assert_eq!(requests[0].basis, PredictionBasis::WholeHistory);
    assert_eq!(
        requests[0].predicted_tokens,
        tokens(&[user()]) + instructions()
    );
    assert_eq!(requests[0].recorded_tokens, Some(1_000));
    assert_eq!(requests[0].relative_error(), None);
    assert_eq!(requests[1].basis, PredictionBasis::PreviousRequest);
    assert_eq!(requests[1].predicted_tokens, second);
    assert_eq!(requests[1].recorded_tokens, Some(second));
    assert_eq!(
        replay.usage_prediction_error,
        PredictionError {
            median: Some(0.0),
            p95: Some(0.0),
            n: 1
        }
    );
    // The turn carries its requests too.
    assert_eq!(replay.turns[0].request_usage, replay.requests);
}

#[test]
fn pairs_across_a_recorded_compaction_are_left_out_of_the_error() {
    let replay = replay(&[
        meta(),
        item(&user()),
        item(&shell_call()),
        token_count(1_000),
        item(&shell_output()),
        compacted(),
        item(&answer()),
        token_count(5_000),
        item(&user()),
        item(&answer()),
        token_count(5_500),
    ]);
    let requests = &replay.requests;
    assert_eq!(requests.len(), 3);
    // After the compaction: the replacement history (1 item) plus the instructions, far from
    // the 5,000 recorded, and not counted.
    assert!(requests[1].after_compaction);
    assert_eq!(requests[1].basis, PredictionBasis::WholeHistory);
    assert_eq!(
        requests[1].predicted_tokens,
        tokens(&[ResponseItem::user_text("summary")]) + instructions()
    );
    assert_eq!(requests[1].recorded_tokens, Some(5_000));
    assert_eq!(requests[1].relative_error(), None);
    // The next pair counts again: 5,000 plus the answer and the user's message, against 5,500.
    let third = 5_000 + tokens(&[answer(), user()]);
    assert!(!requests[2].after_compaction);
    assert_eq!(requests[2].basis, PredictionBasis::PreviousRequest);
    assert_eq!(requests[2].predicted_tokens, third);
    assert_eq!(replay.usage_prediction_error.n, 1);
    assert_eq!(
        replay.usage_prediction_error.median,
        Some((5_500 - third) as f64 / 5_500.0)
    );
}

#[test]
fn error_percentiles_are_by_nearest_rank() {
    let requests: Vec<RequestUsage> = (1..=20u64)
        .map(|recorded| request(100, Some(100 + recorded), PredictionBasis::PreviousRequest))
        .collect();
    let error = PredictionError::over(&requests);
    assert_eq!(error.n, 20);
    // Rank 10 of 20 for the median, rank 19 for the 95th percentile.
    assert_eq!(error.median, Some(10.0 / 110.0));
    assert_eq!(error.p95, Some(19.0 / 119.0));
    // One pair: both percentiles are it.
    let one = PredictionError::over(&requests[..1]);
    assert_eq!(
        one,
        PredictionError {
            median: Some(1.0 / 101.0),
            p95: Some(1.0 / 101.0),
            n: 1
        }
    );
    assert_eq!(
        PredictionError::over(&[]),
        PredictionError {
            median: None,
            p95: None,
            n: 0
        }
    );
}

#[test]
fn only_previous_request_pairs_with_a_recorded_input_count() {
    let cases = [
        request(90, Some(100), PredictionBasis::PreviousRequest),
        // The whole history estimated: not a prediction from a measure.
        request(10, Some(100), PredictionBasis::WholeHistory),
        // Nothing, or nothing usable, recorded.
        request(90, None, PredictionBasis::PreviousRequest),
        request(90, Some(0), PredictionBasis::PreviousRequest),
    ];
    assert_eq!(
        cases
            .iter()
            .map(RequestUsage::relative_error)
            .collect::<Vec<_>>(),
        [Some(0.1), None, None, None]
    );
    assert_eq!(PredictionError::over(&cases).n, 1);
}

#[test]
fn a_rollback_cuts_the_history_and_the_next_pair_is_left_out() {
    let rollback = line(
        "event_msg",
        json!({"type": "thread_rolled_back", "num_turns": 1}),
    );
    let replay = replay(&[
        meta(),
        item(&user()),
        item(&answer()),
        token_count(1_000),
        item(&user()),
        rollback,
        item(&user()),
        item(&answer()),
        token_count(1_100),
    ]);
    let requests = &replay.requests;
    assert_eq!(requests.len(), 2);
    // The second user turn was rolled back: [user, answer, user] remain, estimated whole.
    assert_eq!(requests[1].basis, PredictionBasis::WholeHistory);
    assert!(!requests[1].after_compaction);
    assert_eq!(
        requests[1].predicted_tokens,
        tokens(&[user(), answer(), user()]) + instructions()
    );
    assert_eq!(requests[1].recorded_tokens, Some(1_100));
    assert_eq!(replay.usage_prediction_error.n, 0);
}

// ---------------------------------------------------------------------------------------------
// The codex 0.5x order of counts, and counts that measure no request.

/// A `token_count` as codex 0.5x wrote it: the request's usage and the session's total, the
/// rate limits it was sent for.
fn codex_05x_count(last: u64, total: u64) -> String {
    let usage = |tokens: u64| json!({"input_tokens": tokens, "cached_input_tokens": 0, "output_tokens": 40, "reasoning_output_tokens": 0, "total_tokens": tokens});
    line(
        "event_msg",
        json!({"type": "token_count",
            "info": {"total_token_usage": usage(total), "last_token_usage": usage(last), "model_context_window": 272_000},
            "rate_limits": {"primary": {"used_percent": 4.0, "window_minutes": 300, "resets_in_seconds": 9000}}}),
    )
}

#[test]
fn a_codex_05x_measure_goes_to_the_request_it_measures_and_its_copy_is_dropped() {
    // Codex 0.5x, per request (codex-rs `core/src/codex.rs`, `try_run_turn`): the
    // `turn_context`, a count sent when the rate limits arrived at the stream's start (the
    // usage of the request before: a copy; none yet before the first), the count of this
    // request when its stream completed, and only then its items (`run_task` records them once
    // `try_run_turn` returns).
    let turn_context = line(
        "turn_context",
        json!({"cwd": "/w", "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5-codex", "effort": "medium", "summary": "auto"}),
    );
    let no_usage_yet = line(
        "event_msg",
        json!({"type": "token_count", "info": null, "rate_limits": {"primary": {"used_percent": 4.0, "window_minutes": 300, "resets_in_seconds": 9000}}}),
    );
    let reasoning: ResponseItem = serde_json::from_value(
        json!({"type": "reasoning", "summary": [], "content": null, "encrypted_content": "gAAA"}),
    )
    .unwrap();
    let call_2 = ResponseItem::function_call("c2", "shell", "{}");
    let output_2 = ResponseItem::function_call_output("c2", "ok");
    // Request 1 sees [user] and records 1,000, then adds reasoning, a call and its output:
    // request 2 records that much more, adds a call and its output: request 3 records that.
    let first = 1_000;
    let second = first + tokens(&[reasoning.clone(), shell_call(), shell_output()]);
    let third = second + tokens(&[call_2.clone(), output_2.clone()]);
    let replay = replay(&[
        meta(),
        item(&user()),
        turn_context.clone(),
        no_usage_yet,
        codex_05x_count(first, first),
        item(&reasoning),
        item(&shell_call()),
        item(&shell_output()),
        turn_context.clone(),
        codex_05x_count(first, first),
        codex_05x_count(second, first + second),
        item(&call_2),
        item(&output_2),
        turn_context,
        codex_05x_count(second, first + second),
        codex_05x_count(third, first + second + third),
        item(&answer()),
    ]);
    let measured: Vec<(u64, Option<u64>)> = replay
        .requests
        .iter()
        .map(|request| (request.predicted_tokens, request.recorded_tokens))
        .collect();
    // Each measure is its own request's, and each prediction is the previous measure plus the
    // items added since: exact.
    assert_eq!(
        measured,
        vec![
            (tokens(&[user()]) + instructions(), Some(first)),
            (second, Some(second)),
            (third, Some(third))
        ]
    );
    assert_eq!(
        replay.usage_prediction_error,
        PredictionError {
            median: Some(0.0),
            p95: Some(0.0),
            n: 2
        }
    );
    // The copies are no requests' measures; they are counted.
    assert_eq!(replay.ignored.get("token_count:copy"), Some(&2));
    assert_eq!(replay.turns[0].request_usage, replay.requests);
    assert_eq!(replay.thresholds.window, 272_000);
}

#[test]
fn a_count_after_a_compaction_measures_the_compaction_not_the_next_request() {
    // Current codex records the summarisation request's count after the `compacted` line:
    // it measures no request of the conversation.
    let replay = replay(&[
        meta(),
        item(&user()),
        item(&answer()),
        token_count(1_000),
        compacted(),
        token_count(4_000),
        item(&user()),
        item(&answer()),
        token_count(1_200),
    ]);
    let recorded: Vec<Option<u64>> = replay
        .requests
        .iter()
        .map(|request| request.recorded_tokens)
        .collect();
    assert_eq!(recorded, vec![Some(1_000), Some(1_200)]);
    assert_eq!(replay.requests[1].basis, PredictionBasis::WholeHistory);
    assert!(replay.requests[1].after_compaction);
    // The largest recorded prompt counts the compaction's all the same.
    assert_eq!(replay.max_recorded_prompt_tokens, Some(4_000));
}

// ---------------------------------------------------------------------------------------------
// Micro-compaction.

fn shell_call_n(n: usize) -> ResponseItem {
    ResponseItem::function_call(
        format!("c{n}"),
        "shell",
        format!(r#"{{"command":["cat","c{n}.log"]}}"#),
    )
}

fn shell_output_n(n: usize, bytes: usize) -> ResponseItem {
    ResponseItem::function_call_output(format!("c{n}"), "x".repeat(bytes))
}

/// Five results of 40,000 bytes (about 10,000 tokens each) in turn 1, then `later_turns` turns
/// of one answer each.
///
/// Changed from the CLI's tests: the session records a `turn_context` (without a truncation
/// policy). The engine truncates tool outputs by the policy the turn recorded, and a turn that
/// recorded none as recorded; these results are meant to be the 10,000 tokens the session
/// recorded.
fn large_results_session(later_turns: &[&str]) -> Vec<String> {
    let mut lines = vec![
        meta(),
        line("turn_context", json!({"cwd": "/w", "model": "gpt-5-codex"})),
        item(&user()),
    ];
    for n in 1..=5 {
        lines.push(item(&shell_call_n(n)));
        lines.push(item(&shell_output_n(n, 40_000)));
    }
    lines.push(item(&answer()));
    for text in later_turns {
        lines.push(item(&ResponseItem::user_text(*text)));
        lines.push(item(&answer()));
    }
    lines
}

fn micro_options(min_savings_tokens: u64) -> ReplayOptions {
    let mut compact = CompactConfig::default();
    compact.micro.min_savings_tokens = min_savings_tokens;
    compact.micro.target_tool_result_tokens = 0;
    // The tier's own rule: on this small context under a warm cache (the records carry no
    // time, the wall clock runs) the cost model would keep the results.
    compact.micro.cost_aware = false;
    ReplayOptions {
        compact,
        ..options()
    }
}

#[test]
fn micro_compaction_triggers_where_its_plan_is_worthwhile_and_takes_its_savings_off() {
    // At the request after the fifth result the two oldest may be cleared: the three newest
    // are kept, though no new user turn has started (the engine keeps the newest results
    // regardless of the turn boundary).
    let lines = large_results_session(&["and now the docs"]);
    let replay = replay_with(&lines, &micro_options(15_000));
    // Requests 1 to 5 start before calls 1 to 5; request 6 (turn 1's answer) follows the
    // fifth result.
    assert_eq!(replay.requests.len(), 7);
    let sixth = &replay.requests[5];
    let micro = sixth.micro_compact.expect("micro-compaction triggers");
    assert_eq!(micro.tokens_before, sixth.predicted_tokens);
    // Before it: the instructions, the user's message and the five calls with their results.
    let mut history = vec![user()];
    for n in 1..=5 {
        history.extend([shell_call_n(n), shell_output_n(n, 40_000)]);
    }
    assert_eq!(micro.tokens_before, tokens(&history) + instructions());
    // Two results of about 10,000 tokens each become short markers.
    let saved = micro.tokens_before - micro.tokens_after;
    assert!((19_000..20_000).contains(&saved), "{saved}");
    // The level is judged after the clears.
    assert_eq!(sixth.level, ThresholdLevel::Normal);
    // Before it one result at most may be cleared (about 10,000 tokens, under the least
    // saving); after it nothing new came.
    for request in &replay.requests {
        assert_eq!(
            request.micro_compact.is_some(),
            request.request == 6,
            "request {}",
            request.request
        );
    }
    // The next request starts from the cleared history: what the clears saved stays off.
    assert_eq!(
        replay.requests[6].predicted_tokens,
        micro.tokens_after + tokens(&[answer(), ResponseItem::user_text("and now the docs")])
    );

    // Under the default 20,000-token least saving the same plan is not worth applying.
    let mut compact = CompactConfig::default();
    compact.micro.target_tool_result_tokens = 0;
    let replay = replay_with(
        &lines,
        &ReplayOptions {
            compact,
            ..options()
        },
    );
    assert!(
        replay
            .requests
            .iter()
            .all(|request| request.micro_compact.is_none())
    );
}

#[test]
fn micro_compaction_clears_a_result_once_and_waits_for_new_material() {
    let lines = large_results_session(&["and now the docs", "thanks"]);
    let replay = replay_with(&lines, &micro_options(15_000));
    let triggered: Vec<usize> = replay
        .requests
        .iter()
        .filter(|request| request.micro_compact.is_some())
        .map(|request| request.request)
        .collect();
    // The request after the fifth result (turn 1's answer) clears the two old results; turns 2
    // and 3 add no tool result, so nothing is left worth clearing.
    assert_eq!(triggered, vec![6]);
}

// ---------------------------------------------------------------------------------------------
// The auto-compaction trigger.

#[test]
fn the_replay_compacts_where_the_engine_decides_and_goes_on_from_it() {
    // A 10,000-token window (its trigger about two thirds in), one user message and tool
    // results of about 4,000 tokens each. After two results the history is over the trigger:
    // the engine decides a mid-turn compaction, as a live session would after those tool
    // outputs; the recorded session went on without one, so the replay runs the engine's own
    // (offline) there and goes on from the compacted history. Where the session recorded a
    // compaction at the point the engine decides one (after the fourth result), the recorded
    // one is the compaction taken.
    let user = ResponseItem::user_text("read the logs");
    let call = |n: usize| {
        ResponseItem::function_call(format!("c{n}"), "shell", r#"{"command":["cat","log"]}"#)
    };
    let output = |n: usize| ResponseItem::function_call_output(format!("c{n}"), "z".repeat(16_000));
    let summary = ResponseItem::user_text(summary_text("the logs were read"));
    let mut lines = vec![
        meta(),
        // No truncation policy recorded: the outputs are kept as recorded.
        line("turn_context", json!({"cwd": "/w", "model": "test-model"})),
        item(&user),
    ];
    for n in 1..=8 {
        lines.push(item(&call(n)));
        if n == 4 {
            lines.push(item(&output(n)));
            lines.push(line(
                "compacted",
                json!({"message": "", "replacement_history": [summary]}),
            ));
        } else if n < 8 {
            lines.push(item(&output(n)));
        }
    }
    let options = ReplayOptions {
        compact: CompactConfig {
            micro_compact: false,
            ..CompactConfig::default()
        },
        context_window: Some(10_000),
        ..options()
    };
    let replay = replay_with(&lines, &options);
    let thresholds = replay.thresholds;
    assert_eq!(thresholds.window, 10_000);
    let compacted: Vec<(usize, bool)> = replay
        .requests
        .iter()
        .map(|request| (request.request, request.auto_compact.is_some()))
        .collect();
    assert_eq!(
        compacted,
        vec![
            (1, false),
            (2, false),
            (3, true),
            (4, false),
            (5, true),
            (6, false),
            (7, true),
            (8, false),
        ],
        "{thresholds:?}"
    );
    // Our compactions (before requests 3 and 7): the history of two calls and their results
    // after the user's message (or the summary) is over the trigger after the second result.
    for (request, first) in [(3, user), (7, summary)] {
        let history = [
            first,
            call(request - 2),
            output(request - 2),
            call(request - 1),
            output(request - 1),
        ];
        let usage = &replay.requests[request - 1];
        let auto = usage.auto_compact.unwrap();
        assert_eq!(auto.tokens_before, tokens(&history) + instructions());
        assert!(auto.tokens_after < auto.tokens_before / 2, "{auto:?}");
        let decision = usage.decisions[0];
        assert_eq!(decision.point, DecisionPoint::AfterToolOutputs);
        assert_eq!(decision.tokens, auto.tokens_before);
        assert_eq!(decision.limit, thresholds.auto_compact);
        assert_eq!(
            decision.action,
            Action::Compact {
                reason: CompactReason::MidTurn
            }
        );
        let figures = decision.compaction.unwrap();
        assert_eq!(figures.tier, CompactionTier::FullOffline);
        assert_eq!(
            (figures.tokens_before, figures.tokens_after),
            (auto.tokens_before, auto.tokens_after)
        );
        // The request is built on the compacted history; the recorded measures after it are of
        // a history larger by what our compaction removed.
        assert_eq!(usage.predicted_tokens, auto.tokens_after);
        assert_eq!(
            usage.recorded_offset,
            auto.tokens_before - auto.tokens_after
        );
        let next = &replay.requests[request];
        assert_eq!(next.recorded_offset, usage.recorded_offset);
        assert!(next.predicted_tokens < thresholds.auto_compact);
        assert_eq!(usage.decisions[1].action, Action::Send);
    }
    // The session's own compaction stands where the engine decided one: it is the one taken.
    let fifth = &replay.requests[4];
    assert!(fifth.after_compaction);
    assert_eq!(fifth.recorded_offset, 0);
    let figures = fifth.decisions[0].compaction.unwrap();
    assert_eq!(
        fifth.decisions[0].compact_reason(),
        Some(CompactReason::MidTurn)
    );
    assert_eq!(figures.tier, CompactionTier::FullModel);
    assert_eq!(
        fifth.auto_compact.map(|auto| auto.tokens_after),
        Some(figures.tokens_after)
    );
}

// ---------------------------------------------------------------------------------------------
// Tool outputs as the recorded turns truncated them.

/// The text of every tool output of each request the engine would send.
#[derive(Default)]
struct Outputs(Vec<Vec<usize>>);

impl RequestSink for Outputs {
    fn request(&mut self, _request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        self.0.push(
            prompt
                .items()
                .filter_map(|item| match item {
                    ResponseItem::FunctionCallOutput { output, .. } => {
                        Some(output.text_content().len())
                    }
                    _ => None,
                })
                .collect(),
        );
        Ok(())
    }
}

/// The lengths of the tool outputs of the last request of a session whose one turn recorded
/// `turn_context` (none when `None`) and a 20,000-byte result.
fn output_lengths(turn_context: Option<Value>) -> Vec<usize> {
    let mut lines = vec![meta()];
    lines.extend(turn_context.map(|context| line("turn_context", context)));
    lines.extend([
        item(&user()),
        item(&shell_call()),
        item(&ResponseItem::function_call_output(
            "c1",
            "y".repeat(20_000),
        )),
        item(&answer()),
    ]);
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(lines.join("\n")));
    let mut sink = Outputs::default();
    replay_reader(reader, &options(), Some(&mut sink)).unwrap();
    sink.0.pop().unwrap_or_default()
}

#[test]
fn tool_outputs_are_truncated_by_the_policy_their_turn_recorded() {
    // Changed from the CLI's replay, which counted outputs as recorded: the engine truncates
    // them as the agent did, by the turn's recorded `truncation_policy`.
    let cut = output_lengths(Some(
        json!({"cwd": "/w", "model": "gpt-5-codex", "truncation_policy": {"mode": "bytes", "limit": 1_000}}),
    ));
    assert_eq!(cut.len(), 1);
    assert!(cut[0] < 2_000, "{cut:?}");
    // A turn that recorded no policy is from a writer that truncated nothing when recording:
    // its output is kept as recorded.
    assert_eq!(
        output_lengths(Some(json!({"cwd": "/w", "model": "gpt-5-codex"}))),
        vec![20_000]
    );
}

#[test]
fn a_rollout_without_turn_settings_keeps_its_tool_outputs_as_recorded() {
    // No turn of it recorded a policy (codex's legacy rollouts record no `turn_context` at
    // all): as a turn without one, its outputs are kept as recorded.
    assert_eq!(output_lengths(None), vec![20_000]);
}

/// A `token_count` whose request generated `reasoning` reasoning tokens.
fn token_count_with_reasoning(input_tokens: u64, reasoning: u64) -> String {
    line(
        "event_msg",
        json!({"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": input_tokens, "output_tokens": reasoning + 20, "reasoning_output_tokens": reasoning, "total_tokens": input_tokens + reasoning + 20},
            "model_context_window": 200_000
        }}),
    )
}

/// A reasoning item whose reasoning is encrypted (`bytes` of base64): the estimate counts the
/// blob by codex's rule, the provider the reasoning tokens it holds.
fn encrypted_reasoning(bytes: usize) -> ResponseItem {
    serde_json::from_value(
        json!({"type": "reasoning", "summary": [], "encrypted_content": "A".repeat(bytes)}),
    )
    .unwrap()
}

#[test]
fn the_prediction_counts_reasoning_as_the_provider_reported_and_learns_when_turns_drop_it() {
    let (first, second) = (encrypted_reasoning(2_000), encrypted_reasoning(3_000));
    let call = |id: &str| ResponseItem::function_call(id, "shell", r#"{"command":["ls"]}"#);
    let output = |id: &str| ResponseItem::function_call_output(id, "a.rs\nb.rs");
    let (user2, user3) = (
        ResponseItem::user_text("now the tests"),
        ResponseItem::user_text("and the docs"),
    );
    // The provider counts a response's reasoning in the requests of its turn (as many tokens
    // as it reported generating) and drops it once a user turn starts.
    let m1 = 1_000;
    let m2 = m1 + 400 + tokens(&[call("c1"), output("c1")]);
    let m3 = m2 - 400 + tokens(&[answer(), user2.clone()]);
    let m4 = m3 + 600 + tokens(&[call("c2"), output("c2")]);
    let m5 = m4 - 600 + tokens(&[answer(), user3.clone()]);
    let lines = [
        meta(),
        item(&user()),
        item(&first),
        item(&call("c1")),
        token_count_with_reasoning(m1, 400),
        item(&output("c1")),
        item(&answer()),
        token_count_with_reasoning(m2, 0),
        item(&user2),
        item(&second),
        item(&call("c2")),
        token_count_with_reasoning(m3, 600),
        item(&output("c2")),
        item(&answer()),
        token_count_with_reasoning(m4, 0),
        item(&user3),
        item(&answer()),
        token_count_with_reasoning(m5, 0),
    ];
    let replay = replay(&lines);
    let predicted: Vec<u64> = replay
        .requests
        .iter()
        .map(|request| request.predicted_tokens)
        .collect();
    let recorded: Vec<Option<u64>> = replay
        .requests
        .iter()
        .map(|request| request.recorded_tokens)
        .collect();
    assert_eq!(recorded, [Some(m1), Some(m2), Some(m3), Some(m4), Some(m5)]);
    // Request 2: the 400 reasoning tokens request 1 reported, not the estimate of the blob.
    assert_eq!(predicted[1], m2);
    // Request 3 starts a turn: nothing says yet that the provider drops earlier reasoning, so it
    // is counted (the larger figure); its measure says it was dropped.
    assert_eq!(predicted[2], m3 + 400);
    // Request 4 carries request 3's 600 reasoning tokens.
    assert_eq!(predicted[3], m4);
    // Request 5 starts a turn: now the 600 tokens leave the count.
    assert_eq!(predicted[4], m5);
}
