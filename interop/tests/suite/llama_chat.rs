//! `agentctx run` straight to llama-cpp-python over Chat Completions: one-shot and line mode,
//! the rollout replayed; and a refused connection explained. llama-cpp-python streams no usage
//! (not even with `stream_options.include_usage`), so the session must go by its estimate and
//! never report usage the server did not send.

use agentctx_interop::Agentctx;
use agentctx_interop::LlamaServer;
use agentctx_interop::Route;
use agentctx_interop::free_port;

use super::support::assert_no_request_exceeded_the_window;
use super::support::assert_ok_but_for_empty_answers;
use super::support::assert_replays;
use super::support::chat_requests;
use super::support::describe;
use super::support::reported_input_tokens;
use super::support::rollout_lines;
use super::support::run_with_input;
use super::support::tools;
use super::support::turns;

#[test]
fn one_shot_run_streams_an_answer_and_records_no_usage_the_server_did_not_send() {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, 4096).expect("llama server");
    let agentctx = Agentctx::new(&tools, &Route::llama(&llama, 4096)).expect("agentctx");
    let output = agentctx
        .command(&["run", "Say hello in one short sentence."])
        .output()
        .expect("run");
    assert_ok_but_for_empty_answers(&output, &llama.process.log());
    let rollouts = agentctx.rollouts();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    let lines = rollout_lines(&rollouts[0]);
    assert!(
        reported_input_tokens(&lines).is_empty(),
        "usage recorded that the server never sent"
    );
    let log = llama.process.log();
    assert!(chat_requests(&log) >= 1);
    assert_no_request_exceeded_the_window(&log);
    assert_replays(&agentctx, &rollouts[0]);
}

#[test]
fn line_mode_runs_every_prompt_of_its_input() {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, 4096).expect("llama server");
    let agentctx = Agentctx::new(&tools, &Route::llama(&llama, 4096)).expect("agentctx");
    let output = run_with_input(
        agentctx.command(&["run"]),
        "Say hi.\nName a colour.\nCount to three.\n",
    );
    // Line mode goes on after a failed turn: every prompt is a turn.
    assert_ok_but_for_empty_answers(&output, &llama.process.log());
    let rollouts = agentctx.rollouts();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    let lines = rollout_lines(&rollouts[0]);
    let user_turns = turns(&lines);
    assert_eq!(user_turns, 3, "three prompts, three turns");
    assert!(chat_requests(&llama.process.log()) >= 3);
    assert_replays(&agentctx, &rollouts[0]);
}

#[test]
fn a_refused_connection_names_its_cause_and_fails() {
    let Some(tools) = tools() else { return };
    // A port nothing listens on: bound, read and released.
    let port = free_port().expect("port");
    let route = Route {
        label: "nothing/chat".into(),
        wire: agentctx_interop::WireApi::Chat,
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "smollm2".into(),
        api_key: None,
        context_window: 4096,
        max_output_tokens: None,
    };
    let agentctx = Agentctx::new(&tools, &route).expect("agentctx");
    let output = agentctx.command(&["run", "hi"]).output().expect("run");
    assert!(!output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr).to_lowercase();
    assert!(stderr.contains("refused"), "{}", describe(&output));
    assert!(
        !stderr.contains("some("),
        "debug formatting:\n{}",
        describe(&output)
    );
}
