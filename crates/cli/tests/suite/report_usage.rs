//! `agentctx report --json` and the figures people bill by: each request priced at the model
//! that answered it, fast mode, one-hour cache writes, long-context tiers, outputs a recording
//! never finalised, and the Codex sample's input against its own cumulative count
//! (docs/design/usage-accounting.md).

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::report::crate_dir;
use super::report::report;

/// One API response of a Claude Code transcript: its model, its usage, and the text of each of
/// its lines (Claude Code 2.x writes one content block per line), with the output count each
/// line records.
struct Response {
    model: &'static str,
    usage: Value,
    lines: Vec<(String, u64)>,
}

impl Response {
    /// A one-line response: `input` uncached, `write` written to the cache (`write_1h` of
    /// them for an hour), `read` read from it, `output` generated.
    fn new(
        model: &'static str,
        input: u64,
        write: u64,
        write_1h: u64,
        read: u64,
        output: u64,
    ) -> Self {
        Self {
            model,
            usage: json!({
                "input_tokens": input,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": write - write_1h,
                    "ephemeral_1h_input_tokens": write_1h,
                },
                "output_tokens": output,
                "service_tier": "standard",
            }),
            lines: vec![("Done.".to_string(), output)],
        }
    }

    fn fast(mut self) -> Self {
        self.usage["speed"] = json!("fast");
        self
    }
}

/// A transcript of `responses`, each answering a prompt of its own, a minute apart from
/// 09:00 on 2026-02-10.
fn transcript(session: &str, responses: &[Response]) -> String {
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    let mut minute = 0;
    let mut record = |kind: &str, uuid: String, message: Value, extra: Value| {
        let mut line = json!({
            "parentUuid": parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": "/home/mira/src/ledger",
            "sessionId": session,
            "version": "2.1.37",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": format!("2026-02-10T09:{minute:02}:00.000Z"),
        });
        for (key, value) in extra.as_object().unwrap() {
            line[key] = value.clone();
        }
        minute += 1;
        parent = json!(uuid);
        lines.push(line.to_string());
    };
    for (index, response) in responses.iter().enumerate() {
        record(
            "user",
            format!("u{index}"),
            json!({"role": "user", "content": format!("task {index}")}),
            json!({}),
        );
        for (part, (text, output)) in response.lines.iter().enumerate() {
            let mut usage = response.usage.clone();
            usage["output_tokens"] = json!(output);
            record(
                "assistant",
                format!("a{index}-{part}"),
                json!({
                    "model": response.model,
                    "id": format!("msg_{index}"),
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": null,
                    "usage": usage,
                }),
                json!({"requestId": format!("req_{index}")}),
            );
        }
    }
    lines.join("\n") + "\n"
}

/// `agentctx report --json` on `sessions`: the JSON it printed.
fn report_json(dir: &Path, sessions: &Path) -> Value {
    let out = dir.join("report");
    let output = report(&out, dir, &[sessions.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn close(actual: &Value, expected: f64) -> bool {
    actual
        .as_f64()
        .is_some_and(|actual| (actual - expected).abs() < 1e-9)
}

#[test]
fn each_response_is_priced_at_the_model_that_answered_it() {
    let dir = tempfile::tempdir().unwrap();
    let haiku = || Response::new("claude-haiku-4-5-20251001", 10, 2_000, 0, 20_000, 100);
    let opus = || Response::new("claude-opus-4-6", 20, 3_000, 0, 40_000, 500);
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(
        &file,
        transcript("mixed", &[haiku(), opus(), haiku(), haiku(), opus()]),
    )
    .unwrap();
    let json = report_json(dir.path(), &file);
    let session = &json["sessions"][0];
    assert_eq!(session["id"], "mixed");
    assert_eq!(session["tool"], "Claude Code");
    assert_eq!(
        session["models"],
        json!(["claude-haiku-4-5-20251001", "claude-opus-4-6"])
    );
    assert_eq!(session["first_timestamp"], "2026-02-10T09:00:00.000Z");
    assert_eq!(session["last_timestamp"], "2026-02-10T09:09:00.000Z");
    assert_eq!(session["measured_requests"], 5);
    assert_eq!(session["input_tokens"], 3 * 22_010 + 2 * 43_020);
    assert_eq!(session["cache_write_tokens"], 3 * 2_000 + 2 * 3_000);
    assert_eq!(session["cache_read_tokens"], 3 * 20_000 + 2 * 40_000);
    assert_eq!(session["output_tokens"], 3 * 100 + 2 * 500);
    assert_eq!(session["output_estimated"], false);
    // LiteLLM 1.110.2: Haiku 4.5 $1 in, $5 out, $1.25 5-minute write, $0.10 read per MTok;
    // Opus 4.6 $5, $25, $6.25, $0.50.
    let haiku_cost = 10.0 * 1e-6 + 2_000.0 * 1.25e-6 + 20_000.0 * 1e-7 + 100.0 * 5e-6;
    let opus_cost = 20.0 * 5e-6 + 3_000.0 * 6.25e-6 + 40_000.0 * 5e-7 + 500.0 * 2.5e-5;
    assert!(
        close(&session["cost_usd"], 3.0 * haiku_cost + 2.0 * opus_cost),
        "{session}"
    );
    // Priced at the session's last model, the Haiku responses would cost five times as much.
    let at_opus = 10.0 * 5e-6 + 2_000.0 * 6.25e-6 + 20_000.0 * 5e-7 + 100.0 * 2.5e-5;
    assert!(!close(
        &session["cost_usd"],
        3.0 * at_opus + 2.0 * opus_cost
    ));
    assert_eq!(session["cost_is_lower_bound"], false);
    // One day, and the totals are the session's.
    assert_eq!(json["days"].as_array().unwrap().len(), 1);
    assert_eq!(json["days"][0]["date"], "2026-02-10");
    assert_eq!(json["totals"]["sessions"], 1);
    assert_eq!(json["totals"]["cost_usd"], session["cost_usd"]);
    assert_eq!(json["totals"]["input_tokens"], session["input_tokens"]);
}

#[test]
fn fast_mode_one_hour_writes_long_context_and_unfinalised_outputs_are_billed() {
    let dir = tempfile::tempdir().unwrap();
    // Fast mode on a model whose entry states a multiplier (2x), 8,000 of its 10,000 writes
    // for an hour.
    let fast = Response::new("claude-opus-4-8", 10, 10_000, 8_000, 0, 200).fast();
    // A response whose two lines repeat the first, small output count (5) while they show
    // 4,000 bytes: its output is estimated at 1,000 tokens, at least.
    let mut unfinalised = Response::new("claude-opus-4-6", 5, 0, 0, 10_000, 5);
    unfinalised.lines = vec![("a".repeat(2_000), 5), ("b".repeat(2_000), 5)];
    // 251,000 input tokens on Bedrock's Sonnet 4.5: past its 200K tier, every token at the
    // tier's rates.
    let long = Response::new(
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        1_000,
        0,
        0,
        250_000,
        100,
    );
    let file = dir.path().join("billing.jsonl");
    std::fs::write(&file, transcript("billing", &[fast, unfinalised, long])).unwrap();
    let json = report_json(dir.path(), &file);
    let session = &json["sessions"][0];
    let fast_cost = 2.0 * (10.0 * 5e-6 + 2_000.0 * 6.25e-6 + 8_000.0 * 1e-5 + 200.0 * 2.5e-5);
    let estimated_cost = 5.0 * 5e-6 + 10_000.0 * 5e-7 + 1_000.0 * 2.5e-5;
    let long_cost = 1_000.0 * 6e-6 + 250_000.0 * 6e-7 + 100.0 * 2.25e-5;
    assert!(
        close(&session["cost_usd"], fast_cost + estimated_cost + long_cost),
        "{session}"
    );
    assert_eq!(session["cost_is_lower_bound"], true);
    assert_eq!(session["cache_write_1h_tokens"], 8_000);
    // The estimate is kept apart from the exact counts.
    assert_eq!(session["output_tokens"], 300);
    assert_eq!(session["estimated_output_tokens"], 1_000);
    assert_eq!(session["estimated_output_requests"], 1);
    assert_eq!(session["output_estimated"], true);
    assert_eq!(json["totals"]["cost_is_lower_bound"], true);

    let index = std::fs::read_to_string(dir.path().join("report/index.html")).unwrap();
    assert!(
        index.contains("300 exact + 1,000 estimated (at least)"),
        "{index}"
    );
    assert!(index.contains("≥ $"), "{index}");
    // The replay's JSON flags the request too.
    let replay = assert_cmd::Command::cargo_bin("agentctx")
        .unwrap()
        .args(["replay", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    let first_line = replay.stdout.split(|byte| *byte == b'\n').next().unwrap();
    // One session per line.
    let replay: Value = serde_json::from_slice(first_line).unwrap();
    let requests: Vec<&Value> = replay["turn_details"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| turn["request_usage"].as_array().unwrap())
        .collect();
    let billing: Vec<&Value> = requests
        .iter()
        .map(|request| &request["recorded_billing"])
        .collect();
    assert_eq!(billing[0]["fast"], true);
    assert_eq!(billing[0]["cache_write_1h"], 8_000);
    assert_eq!(billing[1]["output_estimated"], true);
    assert_eq!(billing[1]["estimated_output_tokens"], 1_000);
    assert_eq!(
        billing[2]["model"],
        "anthropic.claude-sonnet-4-5-20250929-v1:0"
    );
}

/// The last `token_count` with usage in a Codex rollout: its cumulative input.
fn last_total_input(rollout: &str) -> u64 {
    rollout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["payload"]["type"] == "token_count")
        .filter_map(|line| line["payload"]["info"]["total_token_usage"]["input_tokens"].as_u64())
        .next_back()
        .unwrap()
}

#[test]
fn a_codex_sessions_input_is_its_own_final_cumulative_count() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_dir(crate_dir().join("examples/sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("rollout-"))
        })
        .unwrap();
    let json = report_json(dir.path(), &sample);
    let recorded = last_total_input(&std::fs::read_to_string(&sample).unwrap());
    assert_eq!(json["totals"]["input_tokens"], recorded);
    assert_eq!(json["sessions"][0]["input_tokens"], recorded);
    assert_eq!(json["sessions"][0]["models"], json!(["gpt-5.1-codex"]));
    // The summary request of the compaction the session ran: on no replayed request's row,
    // billed all the same.
    assert_eq!(json["sessions"][0]["other_responses"], 1);
}
