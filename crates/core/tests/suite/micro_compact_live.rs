//! Micro-compaction in a live session: results of agentctx's own search and listing tools
//! (`grep`, `glob`), which declare their class, are cleared before a request like those of the
//! tools Codex and Claude Code record.

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_engine::replay::ReplayOptions;
use agentctx_engine::replay::replay_file;
use agentctx_model::WireApi;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::client;
use super::support::dirs;
use super::support::drain;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

/// The text a cleared result is replaced with (pinned by `agentctx-compact`'s snapshots).
const CLEARED: &str = "[Old tool result content cleared]";

#[tokio::test]
async fn grep_and_glob_results_are_cleared_before_a_later_request() {
    let dirs = dirs();
    let src = dirs.cwd.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for n in 0..60 {
        std::fs::write(
            src.join(format!(
                "a_rather_long_module_name_for_the_listing_{n:02}.rs"
            )),
            format!("// needle {n}\nfn item_{n}() {{}}\n"),
        )
        .unwrap();
    }
    let server = server(vec![
        // The first request: a search and a listing, each a few hundred tokens.
        responses_sse(
            &[
                call("c1", "grep", json!({"pattern": "needle"})),
                call("c2", "glob", json!({"pattern": "**/*.rs"})),
            ],
            5_000,
        ),
        // The second: three newer results, so the first two are old enough to clear.
        responses_sse(
            &[
                call("c3", "grep", json!({"pattern": "haystack"})),
                call("c4", "glob", json!({"pattern": "*.md"})),
                call("c5", "list_dir", json!({})),
            ],
            6_000,
        ),
        responses_sse(&[Out::Text("Found the needles.")], 4_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.compact.session_memory.extraction_enabled = false;
    // Any saving is worth it here, and nothing is kept beyond the three newest results.
    options.compact.micro.min_savings_tokens = 200;
    options.compact.micro.target_tool_result_tokens = 0;
    let compact = options.compact.clone();
    let (mut session, mut events) = Session::new(options).unwrap();

    let outcome = session
        .run_turn("Where are the needles?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Found the needles."));

    let cleared: Vec<i32> = drain(&mut events)
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Loop(LoopEvent::MicroCompactionApplied { removed_results }) => {
                Some(*removed_results)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        cleared,
        [2],
        "one micro-compaction, before the third request"
    );

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    // The second request carried the results whole.
    let second = call_outputs(&bodies[1]);
    assert_eq!(second.len(), 2);
    assert!(
        second[0].contains("a_rather_long_module_name_for_the_listing_00.rs"),
        "{second:?}"
    );
    assert!(
        second[1].contains("a_rather_long_module_name_for_the_listing_59.rs"),
        "{second:?}"
    );
    // The third request: the grep and glob results cleared, the three newest whole.
    let third = call_outputs(&bodies[2]);
    assert_eq!(third.len(), 5);
    assert_eq!(third[..2], [CLEARED, CLEARED]);
    assert!(
        third[2..].iter().all(|output| output != CLEARED),
        "{third:?}"
    );

    // The session's history holds the markers (cleared in place, not only in the request).
    let history_outputs: Vec<(String, String)> = session
        .history()
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } => Some((call_id.clone(), output.text_content())),
            _ => None,
        })
        .collect();
    let cleared_ids: Vec<&str> = history_outputs
        .iter()
        .filter(|(_, text)| text == CLEARED)
        .map(|(call_id, _)| call_id.as_str())
        .collect();
    assert_eq!(cleared_ids, ["c1", "c2"]);

    // The replay of the rollout knows `grep` and `glob` by the classes the session recorded
    // (neither is a name Codex or Claude Code records) and clears before the same request.
    let replay_options = ReplayOptions {
        home: dirs.home.clone(),
        compact,
        ..ReplayOptions::default()
    };
    let rollout = session.rollout_path().to_path_buf();
    let replay = tokio::task::spawn_blocking(move || replay_file(&rollout, &replay_options, None))
        .await
        .unwrap()
        .unwrap();
    let micro: Vec<usize> = replay
        .requests
        .iter()
        .filter(|request| request.micro_compact.is_some())
        .map(|request| request.request)
        .collect();
    assert_eq!(micro, [3], "{:#?}", replay.requests);
}
