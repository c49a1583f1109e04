//! A 4,096-token window on the real llama server: a line-mode session of ten prompts that
//! together are longer than the window runs to the end. Every request fits the window (the
//! server refuses a prompt over its `n_ctx`, and its log would say so), compaction happens when
//! the window fills and not before, and the session's rollout replays.

use agentctx_interop::Agentctx;
use agentctx_interop::LlamaServer;
use agentctx_interop::Route;

use super::support::assert_no_request_exceeded_the_window;
use super::support::assert_ok_but_for_empty_answers;
use super::support::assert_replays;
use super::support::chat_requests;
use super::support::compactions;
use super::support::describe;
use super::support::json_events;
use super::support::rollout_lines;
use super::support::run_with_input;
use super::support::tools;
use super::support::turns;

const WINDOW: u32 = 4096;

/// Prompt `n`: about 600 tokens of prose notes to keep, different each time. (Prose, because a
/// session is mostly words: SmolLM2's tokenizer splits numbers into single digits, and a prompt
/// made of numbers counts about half again what our estimate says; the overflow rule catches
/// that, see docs/design/core.md, "Overflow and truncated answers".)
fn prompt(n: usize) -> String {
    const TOPICS: [&str; 10] = [
        "the garden",
        "the kitchen",
        "the library",
        "the harbour",
        "the workshop",
        "the orchard",
        "the station",
        "the market",
        "the observatory",
        "the bakery",
    ];
    let topic = TOPICS[(n - 1) % TOPICS.len()];
    let notes: Vec<String> = [
        "the morning light falls across the old wooden tables",
        "someone left a basket of letters beside the door",
        "the visitors speak quietly about the weather and the roads",
        "a cat sleeps on the windowsill while the kettle sings",
        "the shelves hold jars of seeds, maps and forgotten keys",
        "in the afternoon the wind carries the smell of rain",
        "the keeper writes careful lists in a green notebook",
        "children run past laughing and counting the steps",
    ]
    .iter()
    .cycle()
    .take(24)
    .enumerate()
    .map(|(i, note)| format!("In {topic}, note {}: {note}.", i + 1))
    .collect();
    format!(
        "Here are my notes about {topic}, part {n}. Reply with one short sentence. {}",
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
    let output = run_with_input(agentctx.command(&["run", "--json"]), &input);
    assert_ok_but_for_empty_answers(&output, &llama.process.log());
    let rollouts = agentctx.rollouts();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    let lines = rollout_lines(&rollouts[0]);
    let turns = turns(&lines);
    assert_eq!(turns, 10, "every prompt ran:\n{}", describe(&output));

    // Every request fit: the server refused none, and it saw at least one per prompt.
    let log = llama.process.log();
    assert_no_request_exceeded_the_window(&log);
    assert!(
        chat_requests(&log) >= 10,
        "{} requests",
        chat_requests(&log)
    );

    // Compaction happened, and only once the window had filled: the history before the first
    // one filled at least 60% of the window, and not every turn compacted.
    let events = json_events(&output);
    let compacted = events
        .iter()
        // A loop event carries the protocol's event one level down:
        // `{"type":"loop","event":{"type":"compaction_completed",…}}`.
        .filter(|event| event["type"] == "loop")
        .filter(|event| {
            event["event"]["type"] == "compaction_completed"
                || event["event"]["type"] == "session_memory_compact_applied"
        })
        .count();
    assert!(
        compacted >= 1,
        "no compaction in a session longer than its window"
    );
    assert!(
        compacted < turns,
        "compacted {compacted} times in {turns} turns"
    );
    // Full compactions and the session-memory tier each write a `compacted` line; the rollout
    // is the record.
    let recorded = compactions(&lines);
    assert!(
        recorded >= compacted,
        "{compacted} compactions shown, {recorded} in the rollout"
    );
    assert!(
        recorded < turns,
        "compacted {recorded} times in {turns} turns"
    );
    // Only once the window had filled: what the compaction was deciding on held at least 60% of
    // the window. That is the history before it, plus, when it ran before a turn (the next
    // `turn_context` comes before any answer), the turn's prompt, which a compaction before the
    // turn counts and which the rollout records only after it. (llama-cpp-python streams no
    // usage, so the rollout has no measured figure to read.)
    let first = lines
        .iter()
        .position(|line| line["type"] == "compacted")
        .expect("a compaction");
    let payload_tokens = |line: &serde_json::Value| line["payload"].to_string().len() / 4;
    let history: usize = lines[..first]
        .iter()
        .filter(|line| line["type"] == "response_item")
        .map(payload_tokens)
        .sum();
    let after = &lines[first + 1..];
    let next_turn = after.iter().position(|line| line["type"] == "turn_context");
    let next_answer = after
        .iter()
        .position(|line| line["type"] == "response_item" && line["payload"]["role"] == "assistant");
    let before_turn = matches!((next_turn, next_answer), (Some(turn), answer) if answer.is_none_or(|answer| turn < answer));
    let pending: usize = match next_turn.filter(|_| before_turn) {
        Some(turn) => after[turn..]
            .iter()
            .find(|line| line["type"] == "response_item" && line["payload"]["role"] == "user")
            .map_or(0, payload_tokens),
        None => 0,
    };
    // What every request carries besides the history: the instructions (`session_meta`) and
    // the tool schemas (`agentctx_tools` of the first `turn_context`). With sixteen tools they
    // are about half of a 4,096-token window, so the history alone cannot be held to a share.
    let overhead: usize = lines
        .iter()
        .find(|line| line["type"] == "session_meta")
        .map_or(0, |line| {
            line["payload"]["base_instructions"].to_string().len() / 4
        })
        + lines
            .iter()
            .find(|line| line["type"] == "turn_context")
            .map_or(0, |line| {
                line["payload"]["agentctx_tools"].to_string().len() / 4
            });
    assert!(
        (history + pending + overhead) * 10 >= WINDOW as usize * 6,
        "compacted with about {history} tokens of history, {pending} of the turn's prompt and \
         {overhead} of instructions and tools in a {WINDOW}-token window: too early"
    );
    assert_replays(&agentctx, &rollouts[0]);
}
