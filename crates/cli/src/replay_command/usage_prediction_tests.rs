use std::io::Cursor;
use std::path::Path;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::TokenEstimator;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;

use super::super::session_replay::SessionReplay;
use super::super::session_replay::replay_reader;
use super::super::session_replay::replay_reader_with;
use super::DEFAULT_CONTEXT_WINDOW;
use super::PredictionBasis;
use super::PredictionError;
use super::UsageOptions;

/// Every item is 100 tokens and every text one token per byte: the arithmetic stays readable.
struct FlatEstimator;

impl TokenEstimator for FlatEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        text.len() as u64
    }

    fn estimate_item(&self, _item: &ResponseItem) -> u64 {
        100
    }
}

fn replay(session: &str) -> SessionReplay {
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(session.to_string()));
    replay_reader(reader, &FlatEstimator, None).unwrap()
}

const META: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","base_instructions":{"text":"0123456789"}}}"#;
const USER: &str = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the bug"}]}}"#;
const CALL: &str = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#;
const OUTPUT: &str = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#;
const ANSWER: &str = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#;
const COMPACTED: &str = r#"{"timestamp":"t","type":"compacted","payload":{"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"summary"}]}]}}"#;

fn token_count(input_tokens: u64) -> String {
    format!(
        r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input_tokens},"output_tokens":5,"total_tokens":{input_tokens}}},"model_context_window":200000}}}}}}"#
    )
}

fn session(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn prediction_is_the_previous_recorded_input_plus_the_items_added_since() {
    // Request 1 sees [user] and records 1,000; it answers with a call, whose output comes back:
    // request 2 is predicted at 1,000 + 2 items × 100 and records exactly that.
    let first = token_count(1_000);
    let second = token_count(1_200);
    let replay = replay(&session(&[
        META, USER, CALL, &first, OUTPUT, ANSWER, &second,
    ]));
    let requests = &replay.requests;
    assert_eq!(requests.len(), 2);
    // The first request has no previous one: the whole history (1 item) plus the instructions.
    assert_eq!(requests[0].basis, PredictionBasis::WholeHistory);
    assert_eq!(requests[0].predicted_tokens, 100 + 10);
    assert_eq!(requests[0].recorded_tokens, Some(1_000));
    assert_eq!(requests[1].basis, PredictionBasis::PreviousRequest);
    assert_eq!(requests[1].predicted_tokens, 1_200);
    assert_eq!(requests[1].recorded_tokens, Some(1_200));
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
    let first = token_count(1_000);
    let second = token_count(5_000);
    let third = token_count(5_500);
    let replay = replay(&session(&[
        META, USER, CALL, &first, OUTPUT, COMPACTED, ANSWER, &second, USER, ANSWER, &third,
    ]));
    let requests = &replay.requests;
    assert_eq!(requests.len(), 3);
    // After the compaction: the replacement history (1 item) plus the instructions, far from
    // the 5,000 recorded, and not counted.
    assert!(requests[1].after_compaction);
    assert_eq!(requests[1].basis, PredictionBasis::WholeHistory);
    assert_eq!(requests[1].predicted_tokens, 110);
    assert_eq!(requests[1].relative_error(), None);
    // The next pair counts again: 5,000 + answer + user = 5,200 against 5,500.
    assert_eq!(requests[2].basis, PredictionBasis::PreviousRequest);
    assert_eq!(requests[2].predicted_tokens, 5_200);
    assert_eq!(replay.usage_prediction_error.n, 1);
    assert_eq!(replay.usage_prediction_error.median, Some(300.0 / 5_500.0));
}

#[test]
fn error_percentiles_are_by_nearest_rank() {
    let replay = replay(&session(&[META, USER, ANSWER]));
    let mut request = replay.requests[0].clone();
    request.basis = PredictionBasis::PreviousRequest;
    let requests: Vec<_> = (1..=20u64)
        .map(|recorded| {
            let mut request = request.clone();
            request.predicted_tokens = 100;
            request.recorded_tokens = Some(100 + recorded);
            request
        })
        .collect();
    let error = PredictionError::over(&requests);
    assert_eq!(error.n, 20);
    // Rank 10 of 20 for the median, rank 19 for the 95th percentile.
    assert_eq!(error.median, Some(10.0 / 110.0));
    assert_eq!(error.p95, Some(19.0 / 119.0));
    assert_eq!(
        PredictionError::over(&[]),
        PredictionError {
            median: None,
            p95: None,
            n: 0
        }
    );
}

fn shell_call(call_id: &str) -> String {
    format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{\"command\":[\"cat\",\"{call_id}.log\"]}}","call_id":"{call_id}"}}}}"#
    )
}

fn shell_output(call_id: &str, bytes: usize) -> String {
    format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call_output","call_id":"{call_id}","output":"{}"}}}}"#,
        "x".repeat(bytes)
    )
}

#[test]
fn micro_compaction_triggers_where_its_plan_is_worthwhile_and_takes_its_savings_off() {
    // Five large shell results in turn 1; at the request after the fifth the two oldest may be
    // cleared (the three most recent are kept), though no new user turn has started.
    let calls: Vec<(String, String)> = (1..=5)
        .map(|n| {
            (
                shell_call(&format!("c{n}")),
                shell_output(&format!("c{n}"), 40_000),
            )
        })
        .collect();
    let second_user = USER.replace("fix the bug", "and now the docs");
    let mut lines: Vec<&str> = vec![META, USER];
    for (call, output) in &calls {
        lines.push(call);
        lines.push(output);
    }
    lines.extend([ANSWER, second_user.as_str(), ANSWER]);
    let mut options = UsageOptions::default();
    options.config.micro.min_savings_tokens = 15_000;
    options.config.micro.target_tool_result_tokens = 0;
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(session(&lines)));
    let replay = replay_reader_with(reader, &ApproxTokenEstimator, None, options).unwrap();
    // Requests 1 to 5 start before calls 1 to 5; request 6 (turn 1's answer) follows the
    // fifth result.
    assert_eq!(replay.requests.len(), 7);
    let sixth = &replay.requests[5];
    let micro = sixth.micro_compact.expect("micro-compaction triggers");
    assert_eq!(micro.tokens_before, sixth.predicted_tokens);
    // Two results of about 10,000 tokens each become short markers.
    let saved = micro.tokens_before - micro.tokens_after;
    assert!((19_000..20_000).contains(&saved), "{saved}");
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
    // Under the default 20,000-token least saving the same plan is not worth applying.
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(session(&lines)));
    let replay = replay_reader_with(
        reader,
        &ApproxTokenEstimator,
        None,
        UsageOptions {
            config: {
                let mut config = agentctx_compact::CompactConfig::default();
                config.micro.target_tool_result_tokens = 0;
                config
            },
            context_window: None,
            default_window: DEFAULT_CONTEXT_WINDOW,
        },
    )
    .unwrap();
    assert!(
        replay
            .requests
            .iter()
            .all(|request| request.micro_compact.is_none())
    );
}

#[test]
fn a_rollback_cuts_the_history_and_the_next_pair_is_left_out() {
    let rollback = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#;
    let first = token_count(1_000);
    let second = token_count(1_100);
    let replay = replay(&session(&[
        META, USER, ANSWER, &first, USER, rollback, USER, ANSWER, &second,
    ]));
    let requests = &replay.requests;
    assert_eq!(requests.len(), 2);
    // The second user turn was rolled back: [user, answer, user] remain, estimated whole.
    assert_eq!(requests[1].basis, PredictionBasis::WholeHistory);
    assert!(!requests[1].after_compaction);
    assert_eq!(requests[1].predicted_tokens, 300 + 10);
    assert_eq!(replay.usage_prediction_error.n, 0);
}

#[test]
fn micro_compaction_clears_a_result_once_and_waits_for_new_material() {
    let calls: Vec<(String, String)> = (1..=5)
        .map(|n| {
            (
                shell_call(&format!("c{n}")),
                shell_output(&format!("c{n}"), 40_000),
            )
        })
        .collect();
    let second_user = USER.replace("fix the bug", "and now the docs");
    let third_user = USER.replace("fix the bug", "thanks");
    let mut lines: Vec<&str> = vec![META, USER];
    for (call, output) in &calls {
        lines.push(call);
        lines.push(output);
    }
    lines.extend([
        ANSWER,
        second_user.as_str(),
        ANSWER,
        third_user.as_str(),
        ANSWER,
    ]);
    let mut options = UsageOptions::default();
    options.config.micro.min_savings_tokens = 15_000;
    options.config.micro.target_tool_result_tokens = 0;
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(session(&lines)));
    let replay = replay_reader_with(reader, &ApproxTokenEstimator, None, options).unwrap();
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

/// A `token_count` as codex 0.5x wrote it: the request's usage and the session's total, the
/// rate limits it was sent for.
fn codex_05x_count(last: u64, total: u64) -> String {
    format!(
        r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total},"cached_input_tokens":0,"output_tokens":40,"reasoning_output_tokens":0,"total_tokens":{total}}},"last_token_usage":{{"input_tokens":{last},"cached_input_tokens":0,"output_tokens":40,"reasoning_output_tokens":0,"total_tokens":{last}}},"model_context_window":272000}},"rate_limits":{{"primary":{{"used_percent":4.0,"window_minutes":300,"resets_in_seconds":9000}}}}}}}}"#
    )
}

#[test]
fn a_codex_05x_measure_goes_to_the_request_it_measures_and_its_copy_is_dropped() {
    // Codex 0.5x, per request (codex-rs `core/src/codex.rs`, `try_run_turn`): the
    // `turn_context`, a count sent when the rate limits arrived at the stream's start (the
    // usage of the request before: a copy; none yet before the first), the count of this
    // request when its stream completed, and only then its items (`run_task` records them once
    // `try_run_turn` returns).
    let turn_context = r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write"},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}"#;
    let no_usage_yet = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":4.0,"window_minutes":300,"resets_in_seconds":9000}}}}"#;
    let reasoning = r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"}}"#;
    let output_2 = OUTPUT.replace("c1", "c2");
    let call_2 = CALL.replace("c1", "c2");
    // Request 1 sees [user] and records 1,000; it adds reasoning, a call and its output (300):
    // request 2 records 1,300 and adds a call and its output (200): request 3 records 1,500.
    let first = codex_05x_count(1_000, 1_000);
    let second = codex_05x_count(1_300, 2_300);
    let third = codex_05x_count(1_500, 3_800);
    let lines = [
        META,
        USER,
        turn_context,
        no_usage_yet,
        &first,
        reasoning,
        CALL,
        OUTPUT,
        turn_context,
        &first,
        &second,
        &call_2,
        &output_2,
        turn_context,
        &second,
        &third,
        ANSWER,
    ];
    let replay = replay(&session(&lines));
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
            (100 + 10, Some(1_000)),
            (1_000 + 300, Some(1_300)),
            (1_300 + 200, Some(1_500))
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
}

#[test]
fn a_count_after_a_compaction_measures_the_compaction_not_the_next_request() {
    // Current codex records the summarisation request's count after the `compacted` line:
    // it measures no request of the conversation.
    let first = token_count(1_000);
    let of_the_compaction = token_count(4_000);
    let second = token_count(1_200);
    let replay = replay(&session(&[
        META,
        USER,
        ANSWER,
        &first,
        COMPACTED,
        &of_the_compaction,
        USER,
        ANSWER,
        &second,
    ]));
    let recorded: Vec<Option<u64>> = replay
        .requests
        .iter()
        .map(|request| request.recorded_tokens)
        .collect();
    assert_eq!(recorded, vec![Some(1_000), Some(1_200)]);
    assert_eq!(replay.requests[1].basis, PredictionBasis::WholeHistory);
}
