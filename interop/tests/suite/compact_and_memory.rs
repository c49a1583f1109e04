//! The commands that call a model outside a session, with the real model: `compact
//! --provider` on a recorded session, and `memory build`. Both reach the server through the
//! same provider resolution as `run`: here the built-in `ollama` preset with `OLLAMA_HOST`
//! naming the llama server (llama-cpp-python serves the same `/v1/chat/completions`).

use agentctx_interop::Agentctx;
use agentctx_interop::LlamaServer;
use agentctx_interop::Route;
use serde_json::Value;

use super::support::describe;
use super::support::run_with_input;
use super::support::tools;

const WINDOW: u32 = 8192;

/// A home configured for the llama server, with one recorded session of three turns.
fn recorded_session(llama: &LlamaServer, tools: &agentctx_interop::Tools) -> Agentctx {
    let agentctx = Agentctx::new(tools, &Route::llama(llama, WINDOW)).expect("home");
    let output = run_with_input(
        agentctx.command(&["run"]),
        "List three fruits.\nName a colour.\nSay goodbye.\n",
    );
    assert!(output.status.success(), "{}", describe(&output));
    agentctx
}

#[test]
fn compact_with_a_provider_summarises_through_the_configured_host() {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, WINDOW).expect("llama server");
    let agentctx = recorded_session(&llama, &tools);
    let rollout = agentctx.rollouts().pop().expect("a rollout");
    let before = llama
        .process
        .log()
        .matches("POST /v1/chat/completions")
        .count();
    let port = llama.port.to_string();
    let output = agentctx
        .command(&[
            "compact",
            "--tier",
            "full",
            "--provider",
            "ollama",
            "--model",
            "smollm2",
            "--json",
        ])
        .arg(&rollout)
        .env("OLLAMA_HOST", format!("127.0.0.1:{port}"))
        .output()
        .expect("compact");
    assert!(
        output.status.success(),
        "{}\n--- llama log\n{}",
        describe(&output),
        llama.process.log_tail(30)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("compact --json");
    assert_eq!(report["tier"], "full", "{report}");
    assert_eq!(report["summary_path"], "model", "{report}");
    assert!(
        report["summary"]
            .as_str()
            .is_some_and(|s| !s.trim().is_empty()),
        "{report}"
    );
    let after = llama
        .process
        .log()
        .matches("POST /v1/chat/completions")
        .count();
    assert!(
        after > before,
        "the summary request never reached the llama server"
    );
}

#[test]
fn memory_build_with_a_model_extracts_through_the_configured_host() {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, WINDOW).expect("llama server");
    let agentctx = recorded_session(&llama, &tools);
    let sessions = agentctx.home().join("sessions");
    let port = llama.port.to_string();
    let output = agentctx
        .command(&[
            "memory",
            "build",
            "--provider",
            "ollama",
            "--model",
            "smollm2",
        ])
        .args(["--min-idle-hours", "0", "--from"])
        .arg(&sessions)
        .env("OLLAMA_HOST", format!("127.0.0.1:{port}"))
        .output()
        .expect("memory build");
    assert!(
        output.status.success(),
        "{}\n--- llama log\n{}",
        describe(&output),
        llama.process.log_tail(30)
    );
    let text = describe(&output);
    assert!(!text.contains("offline"), "the build went offline:\n{text}");
    let show = agentctx
        .command(&["memory", "status"])
        .output()
        .expect("status");
    assert!(show.status.success(), "{}", describe(&show));
}
