//! A 4,096-token window on the real llama server: a line-mode session of ten prompts that
//! together are longer than the window runs to the end. Every request fits the window (the
//! server itself reports each prompt's tokens, and refuses a prompt over `n_ctx`), compaction
//! happens when the window fills and not before, and the session's rollout replays.

use agentctx_interop::Agentctx;
use agentctx_interop::LlamaServer;
use agentctx_interop::Route;

use super::support::assert_replays;
use super::support::compactions;
use super::support::describe;
use super::support::reported_input_tokens;
use super::support::rollout_lines;
use super::support::run_with_input;
use super::support::tools;

const WINDOW: u32 = 4096;

/// Prompt `n`: about 400 tokens of notes to keep, different each time.
fn prompt(n: usize) -> String {
    let notes: Vec<String> = (1..=24)
        .map(|i| {
            format!(
                "Note {n}.{i}: the value of item {i} in batch {n} is {}.",
                n * 100 + i
            )
        })
        .collect();
    format!(
        "Batch {n} of my notes. Reply with one short sentence. {}",
        notes.join(" ")
    )
}

#[test]
fn ten_prompts_longer_than_a_4096_token_window_run_to_the_end() {
    let Some(tools) = tools() else { return };
    let llama = LlamaServer::start(&tools, WINDOW).expect("llama server");
    let mut route = Route::llama(&llama, WINDOW);
    // Short answers keep the run quick; the window arithmetic is the same.
    route.max_output_tokens = Some(256);
    let agentctx = Agentctx::new(&tools, &route).expect("agentctx");
    let input: String = (1..=10).map(|n| prompt(n) + "\n").collect();
    assert!(
        input.len() / 4 > WINDOW as usize,
        "the prompts together must be longer than the window"
    );
    let output = run_with_input(agentctx.command(&["run"]), &input);
    assert!(
        output.status.success(),
        "{}\n--- llama log\n{}",
        describe(&output),
        llama.process.log_tail(40)
    );
    let rollouts = agentctx.rollouts();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    let lines = rollout_lines(&rollouts[0]);
    let turns = lines
        .iter()
        .filter(|line| line["type"] == "event_msg" && line["payload"]["type"] == "user_message")
        .count();
    assert_eq!(turns, 10, "every prompt ran:\n{}", describe(&output));

    // Every request fit: the server's own count of each prompt.
    let inputs = reported_input_tokens(&lines);
    assert!(inputs.len() >= 10, "{inputs:?}");
    assert!(
        inputs
            .iter()
            .all(|&tokens| tokens > 0 && tokens < i64::from(WINDOW)),
        "a request did not fit the window: {inputs:?}"
    );

    // Compaction happened, and only once the window had filled: before the first one the
    // server had seen a prompt of at least 40% of the window, and not every turn compacted.
    let compacted = compactions(&lines);
    assert!(
        compacted >= 1,
        "no compaction in a session longer than its window"
    );
    assert!(
        compacted < turns,
        "compacted {compacted} times in {turns} turns"
    );
    let first = lines
        .iter()
        .position(|line| line["type"] == "compacted")
        .expect("a compaction");
    let before = reported_input_tokens(&lines[..first]);
    let peak = before.iter().copied().max().unwrap_or(0);
    assert!(
        peak * 10 >= i64::from(WINDOW) * 4,
        "compacted at {peak} tokens of {WINDOW}: too early ({before:?})"
    );
    assert_replays(&agentctx, &rollouts[0]);
}
