//! The generator of the Codex session that never compacts, which the replay bench replays
//! (`benches/replay_throughput/uncompacted_session.rs`): what it writes is one valid session,
//! read without skips, with the turns, requests and shell calls it says, no compaction, and an
//! input that grows with the history.

use std::collections::BTreeSet;

use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::replay_file;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

#[path = "../../benches/replay_throughput/uncompacted_session.rs"]
mod generator;

use generator::uncompacted_session;

const UNITS: usize = 3;
const SEED: u64 = 7;

/// What the file holds, counted from the records the reader typed.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    session_meta: usize,
    compacted: usize,
    user_messages: usize,
    calls: usize,
    outputs: usize,
    token_counts: usize,
}

#[test]
fn the_generated_session_reads_whole_and_never_compacts() {
    let session = uncompacted_session(UNITS, SEED);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, &session.text).unwrap();

    let file = read_rollout(&path).unwrap();
    assert_eq!(file.format, RolloutFormat::Codex);
    assert_eq!(file.skipped, Vec::new());
    assert_eq!(
        file.ignored.values().sum::<usize>(),
        0,
        "{:?}",
        file.ignored
    );
    assert_eq!(file.lines, session.text.lines().count());

    let mut counts = Counts::default();
    let mut call_ids = BTreeSet::new();
    let mut shell_tools = BTreeSet::new();
    let mut usages = Vec::new();
    for record in &file.records {
        match &record.line.item {
            RolloutItem::SessionMeta(_) => counts.session_meta += 1,
            RolloutItem::Compacted(_) | RolloutItem::EventMsg(EventMsg::ContextCompacted(_)) => {
                counts.compacted += 1;
            }
            RolloutItem::EventMsg(EventMsg::UserMessage(_)) => counts.user_messages += 1,
            RolloutItem::EventMsg(EventMsg::TokenCount(event)) => {
                counts.token_counts += 1;
                usages.push(event.info.clone().unwrap());
            }
            RolloutItem::ResponseItem(ResponseItem::FunctionCall { name, call_id, .. }) => {
                counts.calls += 1;
                shell_tools.insert(name.clone());
                assert!(call_ids.insert(call_id.clone()), "{call_id} repeated");
            }
            RolloutItem::ResponseItem(ResponseItem::FunctionCallOutput { call_id, .. }) => {
                counts.outputs += 1;
                assert!(call_ids.contains(call_id), "{call_id} answers no call");
            }
            _ => {}
        }
    }
    assert_eq!(
        counts,
        Counts {
            session_meta: 1,
            compacted: 0,
            user_messages: 18,
            calls: 117,
            outputs: 117,
            token_counts: session.requests,
        }
    );
    assert_eq!(
        (session.turns, session.shell_calls),
        (18, 117),
        "six turns and 39 shell calls a unit"
    );
    assert_eq!(
        shell_tools,
        BTreeSet::from(["exec_command".to_string(), "shell".to_string()])
    );

    // Each request sends the whole history so far: the input grows request after request, and
    // the totals are the running sums of the requests' usage.
    let mut total_input = 0;
    for pair in usages.windows(2) {
        assert!(pair[1].last_token_usage.input_tokens > pair[0].last_token_usage.input_tokens);
    }
    for usage in &usages {
        total_input += usage.last_token_usage.input_tokens;
        assert_eq!(usage.total_token_usage.input_tokens, total_input);
    }
    let last = usages.last().unwrap().last_token_usage.input_tokens;
    assert_eq!(last, session.last_input_tokens);
    // About a quarter of the bytes the model has seen, outputs cut at 10,000 bytes.
    assert!((150_000..300_000).contains(&last), "{last}");

    // Units of about 341 KB.
    let per_unit = session.text.len() / UNITS;
    assert!(
        (300_000..380_000).contains(&per_unit),
        "{per_unit} bytes a unit"
    );
}

#[test]
fn the_replay_sees_every_turn_and_request_of_the_generated_session() {
    let session = uncompacted_session(UNITS, SEED);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, &session.text).unwrap();
    let options = ReplayOptions {
        home: dir.path().join("home"),
        ..ReplayOptions::default()
    };

    let replay = replay_file(&path, &options, None).unwrap();
    assert_eq!(replay.skipped, Vec::new());
    assert_eq!(
        (
            replay.turns.len(),
            replay.requests.len(),
            replay.tool_calls,
            replay.compactions
        ),
        (session.turns, session.requests, session.shell_calls, 0)
    );
}

#[test]
fn the_same_seed_writes_the_same_session() {
    let first = uncompacted_session(1, SEED);
    assert_eq!(first.text, uncompacted_session(1, SEED).text);
    assert_ne!(first.text, uncompacted_session(1, SEED + 1).text);
}
