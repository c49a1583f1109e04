//! `agentctx compact` on the bundled sample sessions (this crate's `examples/sessions/`): the
//! offline full compaction before the recorded compaction, `--at-line`, a tier that does not
//! apply, the errors, and the `--provider` path against a mock Responses endpoint.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

const CODEX_SAMPLE: &str =
    "examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl";
const CLAUDE_SAMPLE: &str =
    "examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl";

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// `agentctx compact --home <home> <args>` run from this crate's directory with an empty
/// environment: no caller's `AGENTCTX_` switch, home or API key reaches it.
fn compact(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(crate_dir())
        .env_clear()
        .arg("compact")
        .arg("--home")
        .arg(home)
        .args(args);
    cmd
}

fn json_of(output: &std::process::Output) -> Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stdout_of(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn claude_sample_before_its_compaction_compacts_offline_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(
        home.path(),
        &["--at-compaction", "1", "--offline", "--json", CLAUDE_SAMPLE],
    )
    .output()
    .unwrap();
    let report = json_of(&output);
    assert_eq!(report["tier"], "full");
    assert_eq!(report["summary_path"], "offline");
    assert_eq!(
        report["offline_reason"],
        "offline_requested: --offline was given"
    );
    assert_eq!(report["session_id"], "3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865");
    assert_eq!(report["recorded_compactions_before"], 0);
    let before = report["tokens_before"].as_u64().unwrap();
    let after = report["tokens_after"].as_u64().unwrap();
    assert!(after < before, "{after} >= {before}");
    let summary = report["summary"].as_str().unwrap();
    assert!(summary.contains("timezone"), "{summary}");
    let items = report["items"].as_array().unwrap();
    assert!(!items.is_empty());
    // The summary is in the new history, and every item is a protocol item.
    assert!(items.iter().any(|item| {
        item["type"] == "message"
            && item["content"][0]["text"]
                .as_str()
                .is_some_and(|text| text.contains(summary.lines().next().unwrap()))
    }));
    // Nothing was written to the home: micro-compaction did not apply.
    assert_eq!(report["persisted_paths"], Value::Array(Vec::new()));
}

#[test]
fn claude_sample_offline_full_compaction_renders_the_next_prompt() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(
        home.path(),
        &[
            "--at-compaction",
            "1",
            "--offline",
            "--tier",
            "full",
            CLAUDE_SAMPLE,
        ],
    )
    .output()
    .unwrap();
    let stdout = stdout_of(&output);
    assert!(
        stdout.contains("summary: offline summariser (offline_requested: --offline was given)")
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn codex_sample_before_its_compaction_shrinks() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(
        home.path(),
        &["--at-compaction", "1", "--offline", "--json", CODEX_SAMPLE],
    )
    .output()
    .unwrap();
    let report = json_of(&output);
    assert_eq!(report["tier"], "full");
    assert!(report["tokens_after"].as_u64().unwrap() < report["tokens_before"].as_u64().unwrap());
    // The engine's decision where Codex compacted, from the replay up to there: Codex compacted
    // by its own policy far under our trigger, so the compaction runs as a requested one.
    let decision = &report["decision"];
    assert_eq!(decision["point"], "before_turn", "{decision}");
    assert_eq!(decision["action"], "continue", "{decision}");
    assert!(decision["tokens"].as_u64().unwrap() < decision["limit"].as_u64().unwrap());
    // An explicit tier compacts the rebuilt history as asked, with no decision.
    let output = compact(
        home.path(),
        &[
            "--at-compaction",
            "1",
            "--tier",
            "full",
            "--offline",
            "--json",
            CODEX_SAMPLE,
        ],
    )
    .output()
    .unwrap();
    assert!(json_of(&output).get("decision").is_none());
}

#[test]
fn without_a_configured_model_the_offline_summariser_is_used_and_named() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(home.path(), &["--tier", "full", "--json", CLAUDE_SAMPLE])
        .output()
        .unwrap();
    let report = json_of(&output);
    assert_eq!(report["summary_path"], "offline");
    assert!(
        report["offline_reason"]
            .as_str()
            .unwrap()
            .starts_with("no_provider_configured: ")
    );
}

#[test]
fn at_line_rebuilds_the_history_up_to_that_line() {
    let home = tempfile::tempdir().unwrap();
    let early = json_of(
        &compact(
            home.path(),
            &[
                "--at-line",
                "20",
                "--tier",
                "micro",
                "--json",
                CLAUDE_SAMPLE,
            ],
        )
        .output()
        .unwrap(),
    );
    let later = json_of(
        &compact(
            home.path(),
            &[
                "--at-line",
                "100",
                "--tier",
                "micro",
                "--json",
                CLAUDE_SAMPLE,
            ],
        )
        .output()
        .unwrap(),
    );
    assert!(early["through_line"].as_u64().unwrap() <= 20);
    assert!(later["through_line"].as_u64().unwrap() <= 100);
    assert!(later["through_line"].as_u64().unwrap() > 20);
    let early_items = early["items"].as_array().unwrap();
    let later_items = later["items"].as_array().unwrap();
    assert!(early_items.len() < later_items.len());
    // The early history is where the later one starts.
    assert_eq!(early_items[..], later_items[..early_items.len()]);
}

#[test]
fn micro_tier_that_does_not_apply_says_so_and_leaves_the_history_unchanged() {
    let home = tempfile::tempdir().unwrap();
    let report = json_of(
        &compact(home.path(), &["--tier", "micro", "--json", CLAUDE_SAMPLE])
            .output()
            .unwrap(),
    );
    assert_eq!(report["tier"], Value::Null);
    assert_eq!(report["summary"], Value::Null);
    assert_eq!(report["tokens_after"], report["tokens_before"]);
    assert_eq!(report["not_applied"][0]["tier"], "micro");
    let human = stdout_of(
        &compact(home.path(), &["--tier", "micro", CLAUDE_SAMPLE])
            .output()
            .unwrap(),
    );
    assert!(
        human.contains("micro does not apply: no tool result may be cleared\n"),
        "{human}"
    );
    assert!(
        human.contains("no tier applied: history unchanged\n"),
        "{human}"
    );
    // The same history as recorded: the end of the file, after its compaction.
    assert_eq!(report["recorded_compactions_before"], 1);
    assert!(std::fs::read_dir(home.path()).unwrap().next().is_none());
}

#[test]
fn an_unknown_session_path_is_one_error_line() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(home.path(), &["no-such-session.jsonl"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_of(&output);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("no-such-session.jsonl"), "{stderr}");
}

#[test]
fn asking_for_a_compaction_the_session_does_not_have_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let output = compact(home.path(), &["--at-compaction", "5", CLAUDE_SAMPLE])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr_of(&output),
        format!("error: {CLAUDE_SAMPLE} records 1 compaction; --at-compaction 5 asks for more\n")
    );
}

#[test]
fn bad_flags_exit_2() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["--tier", "huge", CLAUDE_SAMPLE][..],
        &["--at-compaction", "0", CLAUDE_SAMPLE][..],
        &["--at-compaction", "1", "--at-line", "3", CLAUDE_SAMPLE][..],
        &["--offline", "--model", "gpt-5", CLAUDE_SAMPLE][..],
    ] {
        let output = compact(home.path(), args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}

/// A Responses API stream whose assistant message is `text` (the events and fields the
/// Responses API streams, as in agentctx-model's fixtures).
fn responses_sse(text: &str) -> String {
    let message = serde_json::json!({
        "id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "text": text}],
    });
    let events = [
        serde_json::json!({"type": "response.created", "sequence_number": 0, "response": {
            "id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-test",
            "output": [], "usage": null}}),
        serde_json::json!({"type": "response.output_item.added", "sequence_number": 1,
            "output_index": 0, "item": {"id": "msg_1", "type": "message",
            "status": "in_progress", "content": [], "role": "assistant"}}),
        serde_json::json!({"type": "response.output_text.delta", "sequence_number": 2,
            "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text}),
        serde_json::json!({"type": "response.output_item.done", "sequence_number": 3,
            "output_index": 0, "item": message}),
        serde_json::json!({"type": "response.completed", "sequence_number": 4, "response": {
            "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-test",
            "output": [], "usage": {"input_tokens": 9000, "input_tokens_details":
            {"cached_tokens": 0}, "output_tokens": 40, "output_tokens_details":
            {"reasoning_tokens": 0}, "total_tokens": 9040}}}),
    ];
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// A home whose config.toml points provider `mock` at `base_url`.
fn home_with_mock_provider(base_url: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[model_providers.mock]\nname = \"mock\"\nbase_url = \"{base_url}/v1\"\n\
             env_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\n\
             request_max_retries = 0\nstream_max_retries = 0\n"
        ),
    )
    .unwrap();
    home
}

/// A mock server (wiremock serves from its own thread, so the runtime is only needed to
/// start it and read what it received).
fn mock_server(
    status: u16,
    body: Option<String>,
) -> (tokio::runtime::Runtime, wiremock::MockServer) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(async {
        let server = wiremock::MockServer::start().await;
        let mut response = wiremock::ResponseTemplate::new(status);
        if let Some(body) = body {
            response = response
                .insert_header("content-type", "text/event-stream")
                .set_body_raw(body, "text/event-stream");
        }
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .and(wiremock::matchers::path("/v1/responses"))
            .respond_with(response)
            .mount(&server)
            .await;
        server
    });
    (runtime, server)
}

#[test]
fn provider_path_summarises_through_the_model() {
    let summary = "The user is fixing the digest: duplicates are gone, timezones next.";
    let (runtime, server) = mock_server(
        200,
        Some(responses_sse(&format!("<summary>{summary}</summary>"))),
    );
    let home = home_with_mock_provider(&server.uri());
    let output = compact(
        home.path(),
        &[
            "--at-compaction",
            "1",
            "--provider",
            "mock",
            "--model",
            "gpt-test",
            "--json",
            CLAUDE_SAMPLE,
        ],
    )
    .env("MOCK_API_KEY", "sk-mock")
    .output()
    .unwrap();
    let report = json_of(&output);
    assert_eq!(report["summary_path"], "model");
    assert_eq!(report["offline_reason"], Value::Null);
    assert_eq!(report["summary"], summary);
    let requests = runtime.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].headers.get("authorization").unwrap(),
        "Bearer sk-mock"
    );
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["model"], "gpt-test");
}

#[test]
fn a_named_provider_that_fails_is_an_error_not_an_offline_summary() {
    let (_runtime, server) = mock_server(400, None);
    let home = home_with_mock_provider(&server.uri());
    let output = compact(
        home.path(),
        &[
            "--at-compaction",
            "1",
            "--provider",
            "mock",
            "--model",
            "gpt-test",
            "--json",
            CLAUDE_SAMPLE,
        ],
    )
    .env("MOCK_API_KEY", "sk-mock")
    .output()
    .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    // Warnings of the attempts are logged above; the error is the last line.
    let stderr = stderr_of(&output);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: the summary model failed: bad request (status 400)"),
        "{stderr}"
    );
}

#[test]
fn a_named_provider_without_its_api_key_is_an_error() {
    let home = home_with_mock_provider("http://127.0.0.1:9");
    let output = compact(
        home.path(),
        &[
            "--tier",
            "full",
            "--provider",
            "mock",
            "--model",
            "gpt-test",
            "--json",
            CLAUDE_SAMPLE,
        ],
    )
    .output()
    .unwrap();
    assert!(!output.status.success());
    let stderr = stderr_of(&output);
    assert!(
        stderr.starts_with("error: cannot use the summary model of `mock`: ")
            && stderr.contains("MOCK_API_KEY"),
        "{stderr}"
    );
}

#[test]
fn session_memory_tier_uses_the_summary_under_the_home() {
    use agentctx_compact::HistoryItemId;
    use agentctx_compact::SessionMemoryMetadata;
    use agentctx_compact::SessionMemoryStore;
    use agentctx_protocol::ResponseItem;

    let home = tempfile::tempdir().unwrap();
    // The history before the compaction, as the command rebuilds it (micro does not apply).
    let unchanged = json_of(
        &compact(
            home.path(),
            &[
                "--at-compaction",
                "1",
                "--tier",
                "micro",
                "--json",
                CLAUDE_SAMPLE,
            ],
        )
        .output()
        .unwrap(),
    );
    let items: Vec<ResponseItem> = serde_json::from_value(unchanged["items"].clone()).unwrap();
    // An extraction covered all but the last six items.
    let covered = items.len() - 7;
    let store =
        SessionMemoryStore::new(home.path(), "3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865").unwrap();
    let summary = "## Current Task\nFixing duplicate posts and the timezone bug in the digest.";
    store
        .write(
            summary,
            &SessionMemoryMetadata {
                last_summarized_id: HistoryItemId::of(&items, covered).unwrap().to_string(),
                last_extraction: "2025-11-24T10:00:00Z".parse().unwrap(),
                summary_token_count: 20,
                messages_summarized: u64::try_from(covered + 1).unwrap(),
            },
        )
        .unwrap();
    // The sample is small: the tier must save 1,000 tokens, not the default 10,000.
    std::fs::write(
        home.path().join("config.toml"),
        "[compact.session_memory]\nmin_compact_savings_tokens = 1000\n",
    )
    .unwrap();
    let report = json_of(
        &compact(
            home.path(),
            &["--at-compaction", "1", "--offline", "--json", CLAUDE_SAMPLE],
        )
        .output()
        .unwrap(),
    );
    assert_eq!(report["tier"], "session-memory", "{report:#}");
    assert_eq!(report["summary"], summary);
    assert_eq!(report["summary_path"], Value::Null);
    assert!(report["tokens_after"].as_u64().unwrap() < report["tokens_before"].as_u64().unwrap());
    let new_items: Vec<ResponseItem> = serde_json::from_value(report["items"].clone()).unwrap();
    // The items after the extraction are kept verbatim.
    let kept = &items[covered + 1..];
    assert!(
        new_items.windows(kept.len()).any(|window| window == kept),
        "{report:#}"
    );
}

#[test]
fn a_session_memory_tier_that_does_not_apply_says_why_in_words() {
    use agentctx_compact::HistoryItemId;
    use agentctx_compact::SessionMemoryMetadata;
    use agentctx_compact::SessionMemoryStore;
    use agentctx_protocol::ResponseItem;

    let home = tempfile::tempdir().unwrap();
    let unchanged = json_of(
        &compact(
            home.path(),
            &[
                "--at-compaction",
                "1",
                "--tier",
                "micro",
                "--json",
                CLAUDE_SAMPLE,
            ],
        )
        .output()
        .unwrap(),
    );
    let items: Vec<ResponseItem> = serde_json::from_value(unchanged["items"].clone()).unwrap();
    let covered = items.len() - 7;
    let store =
        SessionMemoryStore::new(home.path(), "3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865").unwrap();
    store
        .write(
            "## Current Task\nFixing the digest.",
            &SessionMemoryMetadata {
                last_summarized_id: HistoryItemId::of(&items, covered).unwrap().to_string(),
                last_extraction: "2025-11-24T10:00:00Z".parse().unwrap(),
                summary_token_count: 10,
                messages_summarized: u64::try_from(covered + 1).unwrap(),
            },
        )
        .unwrap();
    // A minimum saving larger than the whole sample.
    std::fs::write(
        home.path().join("config.toml"),
        "[compact.session_memory]\nmin_compact_savings_tokens = 1000000\n",
    )
    .unwrap();
    let stdout = stdout_of(
        &compact(
            home.path(),
            &["--at-compaction", "1", "--offline", CLAUDE_SAMPLE],
        )
        .output()
        .unwrap(),
    );
    let line = stdout
        .lines()
        .find(|line| line.starts_with("session-memory does not apply: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    // The minimum is the configured one held to its share of the window the engine compacts
    // for, as in a session.
    let minimum = line
        .strip_prefix("session-memory does not apply: it would save only ")
        .and_then(|rest| rest.split_once(" tokens (minimum "))
        .and_then(|(_, minimum)| minimum.strip_suffix(')'))
        .and_then(|minimum| minimum.parse::<u64>().ok());
    assert!(minimum.is_some_and(|minimum| minimum > 0), "{line}");
    assert!(!line.contains('{'), "{line}");
}

/// A Codex 0.63 rollout of a session in `/home/mira/src/ledgerd` (not on this machine): the
/// model reads `src/rates.rs` whole with `cat`, the first lines of `src/main.rs` with `sed -n`,
/// fails to read a file, and answers.
const CODEX_READS: &str = r##"{"timestamp":"2025-11-25T10:02:11.101Z","type":"session_meta","payload":{"id":"019aa2f0-1c3d-7e5f-9a0b-2c4d6e8f0a1b","timestamp":"2025-11-25T10:02:11.101Z","cwd":"/home/mira/src/ledgerd","originator":"codex_cli_rs","cli_version":"0.63.0","instructions":null,"source":"cli","model_provider":"openai","base_instructions":{"text":"You are Codex, a coding agent running in the user's terminal."}}}
{"timestamp":"2025-11-25T10:02:11.102Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/mira/src/ledgerd</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"}]}}
{"timestamp":"2025-11-25T10:02:14.310Z","type":"event_msg","payload":{"type":"task_started","turn_id":"0","model_context_window":258400}}
{"timestamp":"2025-11-25T10:02:14.311Z","type":"turn_context","payload":{"turn_id":"0","cwd":"/home/mira/src/ledgerd","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5.1-codex","effort":"medium","summary":"auto","truncation_policy":{"mode":"tokens","limit":10000}}}
{"timestamp":"2025-11-25T10:02:14.312Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"why does the daily rate round down for negative balances?"}]}}
{"timestamp":"2025-11-25T10:02:14.313Z","type":"event_msg","payload":{"type":"user_message","message":"why does the daily rate round down for negative balances?","images":[],"local_images":[],"text_elements":[]}}
{"timestamp":"2025-11-25T10:02:17.640Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"cat src/rates.rs\",\"workdir\":\"/home/mira/src/ledgerd\",\"timeout_ms\":10000}","call_id":"call_Rt4Xb9Lm2Qp7Vn1Kc8Wd3Sfa"}}
{"timestamp":"2025-11-25T10:02:17.641Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"sed -n 1,3p src/main.rs\",\"workdir\":\"/home/mira/src/ledgerd\",\"timeout_ms\":10000}","call_id":"call_Mn5Yc0Hj3Rk8Wp2Ld9Xe4Tgb"}}
{"timestamp":"2025-11-25T10:02:17.642Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"cat src/interest.rs\",\"workdir\":\"/home/mira/src/ledgerd\",\"timeout_ms\":10000}","call_id":"call_Qz6Ad1Gk4Tl9Xq3Me0Yf5Uhc"}}
{"timestamp":"2025-11-25T10:02:17.902Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Rt4Xb9Lm2Qp7Vn1Kc8Wd3Sfa","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n/// Daily rate in basis points of a yearly rate.\npub fn daily_rate(yearly_bp: i64) -> i64 {\n    yearly_bp / 365\n}\n"}}
{"timestamp":"2025-11-25T10:02:17.903Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Mn5Yc0Hj3Rk8Wp2Ld9Xe4Tgb","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nmod interest;\nmod rates;\n\n"}}
{"timestamp":"2025-11-25T10:02:17.904Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Qz6Ad1Gk4Tl9Xq3Me0Yf5Uhc","output":"Exit code: 1\nWall time: 0.1 seconds\nOutput:\ncat: src/interest.rs: No such file or directory\n"}}
{"timestamp":"2025-11-25T10:02:17.905Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":8120,"cached_input_tokens":3072,"output_tokens":96,"reasoning_output_tokens":64,"total_tokens":8216},"last_token_usage":{"input_tokens":8120,"cached_input_tokens":3072,"output_tokens":96,"reasoning_output_tokens":64,"total_tokens":8216},"model_context_window":258400},"rate_limits":null}}
{"timestamp":"2025-11-25T10:02:21.220Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`daily_rate` divides with `/`, which truncates toward zero in Rust; use `div_euclid` to round down."}]}}
{"timestamp":"2025-11-25T10:02:21.221Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":16450,"cached_input_tokens":11160,"output_tokens":150,"reasoning_output_tokens":64,"total_tokens":16600},"last_token_usage":{"input_tokens":8330,"cached_input_tokens":8088,"output_tokens":54,"reasoning_output_tokens":0,"total_tokens":8384},"model_context_window":258400},"rate_limits":null}}
{"timestamp":"2025-11-25T10:02:21.222Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"0","last_agent_message":"`daily_rate` divides with `/`, which truncates toward zero in Rust; use `div_euclid` to round down."}}
"##;

#[test]
fn the_files_the_session_read_are_restored_with_the_content_the_model_saw() {
    // The session's folder is not on this machine: the contents come from the recording.
    assert!(!Path::new("/home/mira/src/ledgerd").exists());
    let home = tempfile::tempdir().unwrap();
    let session = home
        .path()
        .join("rollout-2025-11-25T10-02-11-019aa2f0.jsonl");
    std::fs::write(&session, CODEX_READS).unwrap();
    let session = session.to_str().unwrap();
    let report = json_of(
        &compact(
            home.path(),
            &["--tier", "full", "--offline", "--json", session],
        )
        .output()
        .unwrap(),
    );
    assert_eq!(report["tier"], "full");
    assert_eq!(
        report["restored_files"],
        serde_json::json!([
            "/home/mira/src/ledgerd/src/main.rs",
            "/home/mira/src/ledgerd/src/rates.rs"
        ])
    );
    let texts: Vec<String> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["content"][0]["text"].as_str().map(str::to_string))
        .collect();
    // The whole file, as `cat` printed it.
    let rates = texts
        .iter()
        .find(|text| text.contains("Note: /home/mira/src/ledgerd/src/rates.rs was read before"))
        .unwrap_or_else(|| panic!("{texts:#?}"));
    assert!(
        rates.contains(
            "/// Daily rate in basis points of a yearly rate.\npub fn daily_rate(yearly_bp: i64) -> i64 {\n    yearly_bp / 365\n}\n"
        ),
        "{rates}"
    );
    // Only the lines `sed -n` printed, numbered, so they are not taken for the whole file.
    let main = texts
        .iter()
        .find(|text| text.contains("Note: /home/mira/src/ledgerd/src/main.rs was read before"))
        .unwrap_or_else(|| panic!("{texts:#?}"));
    assert!(
        main.contains("     1\tmod interest;\n     2\tmod rates;\n     3\t\n"),
        "{main}"
    );
    // The file the session failed to read is not restored, nor listed as read.
    assert!(
        !texts
            .iter()
            .any(|text| text.contains("interest.rs was read"))
    );
    let ledger = texts
        .iter()
        .find(|text| text.contains("Files you already read in this session"))
        .unwrap_or_else(|| panic!("{texts:#?}"));
    assert!(!ledger.contains("src/interest.rs"), "{ledger}");
    // The human report names them too.
    let human = stdout_of(
        &compact(home.path(), &["--tier", "full", "--offline", session])
            .output()
            .unwrap(),
    );
    assert!(
        human.contains(
            "restored files: /home/mira/src/ledgerd/src/main.rs, /home/mira/src/ledgerd/src/rates.rs\n"
        ),
        "{human}"
    );
}
