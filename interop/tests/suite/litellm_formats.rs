//! `agentctx run` through the LiteLLM proxy in each wire format agentctx speaks: Chat
//! Completions, Responses and Anthropic Messages, each translated by LiteLLM into chat
//! completions for the backends behind it. With the real model, an answer and plausible usage;
//! with the scripted backend, a tool round trip (call, tool result, answer) that writes a file.

use agentctx_interop::Agentctx;
use agentctx_interop::LiteLlm;
use agentctx_interop::LlamaServer;
use agentctx_interop::Route;
use agentctx_interop::ScriptedChat;
use agentctx_interop::WireApi;
use serde_json::Value;

use super::support::assert_ok_but_for_empty_answers;
use super::support::assert_replays;
use super::support::describe;
use super::support::function_calls;
use super::support::rollout_lines;
use super::support::tools;

const WINDOW: u32 = 4096;

/// The `token_usage` events of `run --json` output: `used_tokens` of each.
fn used_tokens(stdout: &str) -> Vec<i64> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "token_usage")
        .filter_map(|event| event["used_tokens"].as_i64())
        .collect()
}

fn through_litellm(wire: WireApi) {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, WINDOW).expect("llama server");
    let scripted = ScriptedChat::start().expect("scripted backend");
    let litellm = LiteLlm::start(
        &tools,
        &[
            ("smollm2", llama.base_url()),
            ("scripted", scripted.base_url()),
        ],
    )
    .expect("litellm");

    // The real model: an answer, usage that is not zero.
    let agentctx =
        Agentctx::new(&tools, &Route::litellm(&litellm, wire, "smollm2", WINDOW)).expect("home");
    let output = agentctx
        .command(&["run", "--json", "Say hello in one short sentence."])
        .output()
        .expect("run");
    assert_ok_but_for_empty_answers(&output, &llama.process.log());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let used = used_tokens(&stdout);
    assert!(
        (!used.is_empty() || !output.status.success()) && used.iter().all(|&tokens| tokens > 100),
        "{wire:?}: usage {used:?} (a system prompt alone is more than 100 tokens)\n{stdout}"
    );
    let rollouts = agentctx.rollouts();
    assert_eq!(rollouts.len(), 1);
    assert_replays(&agentctx, &rollouts[0]);

    // The scripted backend: a tool call through LiteLLM's translation, and back.
    let agentctx =
        Agentctx::new(&tools, &Route::litellm(&litellm, wire, "scripted", WINDOW)).expect("home");
    let output = agentctx
        .command(&["run", "--yes", "Create the file.\nWRITE hello.txt"])
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "{wire:?}: {}\n--- litellm log\n{}",
        describe(&output),
        litellm.process.log_tail(40)
    );
    let written = std::fs::read_to_string(agentctx.cwd().join("hello.txt")).unwrap_or_else(|err| {
        panic!(
            "{wire:?}: hello.txt not written ({err}):\n{}",
            describe(&output)
        )
    });
    assert!(
        written.starts_with("written by scripted request"),
        "{written}"
    );
    let rollouts = agentctx.rollouts();
    let lines = rollout_lines(&rollouts[0]);
    assert_eq!(function_calls(&lines), vec!["write_file".to_string()]);
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("Done. The tool said:"),
        "{wire:?}: the answer after the tool result is missing:\n{}",
        describe(&output)
    );
    // The backend saw the tool result come back through LiteLLM.
    let bodies = scripted.bodies();
    assert!(
        bodies.iter().any(|body| {
            body["messages"]
                .as_array()
                .is_some_and(|messages| messages.iter().any(|m| m["role"] == "tool"))
        }),
        "{wire:?}: no tool message reached the backend"
    );
    assert_replays(&agentctx, &rollouts[0]);
}

#[test]
fn chat_completions_through_litellm() {
    through_litellm(WireApi::Chat);
}

#[test]
fn responses_through_litellm() {
    through_litellm(WireApi::Responses);
}

#[test]
fn anthropic_messages_through_litellm() {
    through_litellm(WireApi::Anthropic);
}
