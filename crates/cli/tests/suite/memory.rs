//! `agentctx memory` on the bundled sample sessions and on a folder of generated ones: build
//! offline, status, show, `AGENTCTX_HOME`, and the offline throughput on 200 sessions.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;

use super::memory_sessions::remembered;
use super::memory_sessions::write_session;
use super::run_mock::mock_server;

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// `agentctx memory --home <home> <args>` with an empty environment.
fn memory(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(crate_dir())
        .env_clear()
        .arg("memory")
        .arg("--home")
        .arg(home)
        .args(args);
    cmd
}

fn stdout_of(mut cmd: Command) -> String {
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn offline_build_on_the_bundled_sessions_produces_the_memory_folder() {
    let home = tempfile::tempdir().unwrap();
    let out = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    assert!(out.contains("offline: --offline was given"), "{out}");
    // The Claude Code sub-agent transcript is not an interactive session.
    assert!(
        out.contains("threads: 3 found, 3 new or changed, 0 unreadable"),
        "{out}"
    );
    assert!(out.contains("phase 1: 2 claimed, 2 remembered"), "{out}");
    assert!(
        out.contains("phase 2: consolidated (INIT) 2 new memories, watermark 2"),
        "{out}"
    );

    let root = home.path().join("memories");
    for file in ["MEMORY.md", "memory_summary.md", "raw_memories.md"] {
        assert!(root.join(file).is_file(), "{file} missing");
    }
    let summaries = std::fs::read_dir(root.join("rollout_summaries"))
        .unwrap()
        .count();
    assert_eq!(summaries, 2);

    let status = stdout_of(memory(home.path(), &["status"]));
    assert!(status.contains("threads seen: 3\n"), "{status}");
    assert!(status.contains("stage-1 outputs: 2\n"), "{status}");
    assert!(status.contains("stage-1 jobs: done=2\n"), "{status}");
    assert!(
        status.contains("consolidation: done (runs: 1)\n"),
        "{status}"
    );
    assert!(
        status.contains("watermark: 2 consolidated of 2 stored\n"),
        "{status}"
    );

    let summary = stdout_of(memory(home.path(), &["show"]));
    assert!(summary.starts_with("## User Profile\n"), "{summary}");
    assert!(summary.contains("## What's in Memory"));
    let handbook = stdout_of(memory(home.path(), &["show", "--memory"]));
    assert!(handbook.contains("# Task Group: tally"), "{handbook}");
    assert!(handbook.contains("# Task Group: feedkit"), "{handbook}");
    let rollout = stdout_of(memory(home.path(), &["show", "--rollout", "tally_report"]));
    assert!(
        rollout.starts_with("thread_id: 019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8\n"),
        "{rollout}"
    );

    // A second build finds nothing new.
    let again = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    assert!(again.contains("phase 1: 0 claimed"), "{again}");
    assert!(
        again.contains("phase 2: nothing new to consolidate"),
        "{again}"
    );
}

#[test]
fn agentctx_home_moves_all_state_and_missing_files_are_explained() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    let output = cmd
        .current_dir(crate_dir())
        .env_clear()
        .env("AGENTCTX_HOME", home.path())
        .args([
            "memory",
            "build",
            "--from",
            "examples/sessions",
            "--offline",
            "--min-idle-hours",
            "0",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(home.path().join("state.sqlite").is_file());
    assert!(home.path().join("memories/MEMORY.md").is_file());

    let empty = tempfile::tempdir().unwrap();
    let output = memory(empty.path(), &["show", "--memory"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("MEMORY.md does not exist yet: run `agentctx memory build`"),
        "{stderr}"
    );
    let output = memory(empty.path(), &["show", "--rollout", "nothing"])
        .output()
        .unwrap();
    assert!(!output.status.success());
}

#[test]
fn a_corrupt_database_is_named_in_the_error() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("state.sqlite"), vec![b'x'; 8192]).unwrap();
    let output = memory(home.path(), &["status"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("state.sqlite is corrupt or not ours"),
        "{stderr}"
    );
}

/// Offline throughput on 200 generated sessions (printed; wall-clock time is not asserted).
#[test]
fn offline_build_throughput_on_200_sessions() {
    const SESSIONS: usize = 200;
    let sessions = tempfile::tempdir().unwrap();
    for n in 0..SESSIONS {
        write_session(sessions.path(), n);
    }
    let home = tempfile::tempdir().unwrap();
    let from = sessions.path().join("sessions");
    let out = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            from.to_str().unwrap(),
            "--offline",
            "--min-idle-hours",
            "0",
        ],
    ));
    let expected_remembered = (0..SESSIONS).filter(|n| remembered(*n)).count();
    assert!(
        out.contains(&format!(
            "phase 1: {SESSIONS} claimed, {expected_remembered} remembered, {} with nothing to remember, 0 failed",
            SESSIONS - expected_remembered
        )),
        "{out}"
    );
    let line = out
        .lines()
        .find(|line| line.starts_with("processed "))
        .unwrap();
    assert!(
        line.starts_with(&format!("processed {SESSIONS} sessions in ")),
        "{line}"
    );
    println!("memory build --offline throughput: {line}");
    let summaries = std::fs::read_dir(home.path().join("memories/rollout_summaries"))
        .unwrap()
        .count();
    assert_eq!(summaries, expected_remembered);
}

/// A local Chat Completions server (wiremock serves from the runtime's thread; the blocking
/// `assert_cmd` calls run on the test's own). Requests whose body contains one of `succeed_on`
/// get a valid stage-one or consolidation reply; every other request gets llama.cpp's answer
/// while it is still loading the model: a 503 `unavailable_error`. With `refuse_json_schema`,
/// a `json_schema` response format is refused first, as llama-cpp-python refuses it.
fn local_model_server(
    succeed_on: &'static [&'static str],
    refuse_json_schema: bool,
) -> (tokio::runtime::Runtime, wiremock::MockServer) {
    struct Replies(&'static [&'static str], bool);
    impl wiremock::Respond for Replies {
        fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
            let body = String::from_utf8_lossy(&request.body);
            let json: serde_json::Value = serde_json::from_slice(&request.body).unwrap_or_default();
            if self.1 && json["response_format"]["type"] == "json_schema" {
                // llama_cpp/server/errors.py turns the request's validation error into a 500.
                return wiremock::ResponseTemplate::new(500).set_body_raw(
                    r#"{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]","type":"internal_server_error","param":null,"code":null}}"#,
                    "application/json",
                );
            }
            if !self.0.iter().any(|marker| body.contains(marker)) {
                return wiremock::ResponseTemplate::new(503).set_body_raw(
                    r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
                    "application/json",
                );
            }
            let reply = if body.contains("consolidated memory files") {
                serde_json::json!({"memory_md": "# Memory\n", "memory_summary": "## Summary\n", "skills": []})
            } else {
                serde_json::json!({
                    "rollout_summary": "Fixed a bug; the tests pass.",
                    "rollout_slug": "fixed_bug",
                    "raw_memory": "# Fixed a bug\n- run the tests before finishing",
                })
            };
            let chunk = serde_json::json!({
                "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "smollm2",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": reply.to_string()}, "finish_reason": "stop"}],
            });
            wiremock::ResponseTemplate::new(200).set_body_raw(
                format!("data: {chunk}\n\ndata: [DONE]\n\n"),
                "text/event-stream",
            )
        }
    }
    mock_server(
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(Replies(succeed_on, refuse_json_schema)),
    )
}

/// A home whose config.toml points the model at `base_url` (Chat Completions, no retries), and
/// `count` generated sessions; returns the home and the sessions folder.
fn home_with_local_model(base_url: &str, count: usize) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "model = \"smollm2\"\nmodel_provider = \"local\"\n\n[model_providers.local]\n\
             name = \"local\"\nbase_url = \"{base_url}/v1\"\nwire_api = \"chat\"\n\
             request_max_retries = 0\nstream_max_retries = 0\n"
        ),
    )
    .unwrap();
    let root = home.path().join("generated");
    for n in 1..=count {
        write_session(&root, n);
    }
    (home, root.join("sessions"))
}

#[test]
fn a_build_whose_every_session_fails_exits_non_zero_with_the_first_error() {
    let (_runtime, server) = local_model_server(&[], false);
    let (home, sessions) = home_with_local_model(&server.uri(), 3);

    let output = memory(
        home.path(),
        &[
            "build",
            "--from",
            sessions.to_str().unwrap(),
            "--min-idle-hours",
            "0",
        ],
    )
    .output()
    .unwrap();

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("3 claimed, 0 remembered, 0 with nothing to remember, 3 failed"),
        "{stdout}"
    );
    assert!(
        stderr.contains("every one of the 3 sessions failed"),
        "{stderr}"
    );
    assert!(stderr.contains("Loading model"), "{stderr}");
}

#[test]
fn a_build_where_some_sessions_fail_exits_zero_and_counts_the_failures() {
    // Session 1 and the consolidation get answers; sessions 2 and 3 do not.
    let (_runtime, server) =
        local_model_server(&["Fix bug 1 ", "consolidated memory files"], false);
    let (home, sessions) = home_with_local_model(&server.uri(), 3);

    let output = memory(
        home.path(),
        &[
            "build",
            "--from",
            sessions.to_str().unwrap(),
            "--min-idle-hours",
            "0",
        ],
    )
    .output()
    .unwrap();

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("3 claimed, 1 remembered, 0 with nothing to remember, 2 failed"),
        "{stdout}"
    );
    assert!(stderr.contains("2 of 3 sessions failed"), "{stderr}");
    assert!(stderr.contains("Loading model"), "{stderr}");
}

#[test]
fn a_build_against_a_server_refusing_json_schema_falls_back_to_json_mode_once() {
    let (runtime, server) = local_model_server(&["Fix bug", "consolidated memory files"], true);
    let (home, sessions) = home_with_local_model(&server.uri(), 3);

    let out = stdout_of(memory(
        home.path(),
        &[
            "build",
            "--from",
            sessions.to_str().unwrap(),
            "--min-idle-hours",
            "0",
        ],
    ));

    assert!(
        out.contains("3 claimed, 3 remembered, 0 with nothing to remember, 0 failed"),
        "{out}"
    );
    assert!(out.contains("phase 2: consolidated"), "{out}");
    let formats: Vec<String> = runtime
        .block_on(server.received_requests())
        .unwrap()
        .iter()
        .filter(|request| request.url.path() == "/v1/chat/completions")
        .map(|request| {
            let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            body["response_format"]["type"]
                .as_str()
                .unwrap_or("none")
                .to_string()
        })
        .collect();
    // Each session's first request may meet the refusal (they run at once); the
    // consolidation, after them, starts in JSON mode.
    let refused = formats.iter().filter(|kind| *kind == "json_schema").count();
    assert!((1..=3).contains(&refused), "{formats:?}");
    assert_eq!(formats.len(), refused + 4, "{formats:?}");
    assert_eq!(
        formats.last().map(String::as_str),
        Some("json_object"),
        "{formats:?}"
    );
}
