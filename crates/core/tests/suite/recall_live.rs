//! Getting back what compaction removed, in a live session against a scripted Responses server:
//! the `recall` tool finds a file's content that a full compaction took out of the context, and
//! the path a `<persisted-output>` marker names reads with `read_file`.

use agentctx_core::Session;
use agentctx_core::SessionEvent;
use agentctx_model::WireApi;
use agentctx_protocol::LoopEvent;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::client;
use super::support::dirs;
use super::support::drain;
use super::support::input_texts;
use super::support::options;
use super::support::responses_sse;
use super::support::server;
use super::support::tool_names;

/// The line of the file the model reads, then loses to the compaction.
const SECRET_LINE: &str = "marmalade_port = 4471";

/// Every text a Responses request body carries: messages and tool outputs.
fn all_texts(body: &Value) -> String {
    let mut texts = input_texts(body);
    texts.extend(call_outputs(body));
    texts.join("\n")
}

#[tokio::test]
async fn recall_brings_back_a_read_the_full_compaction_removed() {
    let dirs = dirs();
    std::fs::write(
        dirs.cwd.join("settings.toml"),
        format!("[server]\nhost = \"0.0.0.0\"\n{SECRET_LINE}\nworkers = 8\n"),
    )
    .unwrap();
    let server = server(vec![
        // Turn 1: the model reads the file, then answers with usage over the trigger of a
        // 30,000-token window (26,000 effective, auto-compact at 22,750).
        responses_sse(
            &[call("c1", "read_file", json!({"path": "settings.toml"}))],
            2_000,
        ),
        responses_sse(&[Out::Text("Read it.")], 24_000),
        // Turn 2 starts with a compaction: the summary request.
        responses_sse(
            &[Out::Text(
                "<summary>The user asked to read settings.toml; it was read.</summary>",
            )],
            1_000,
        ),
        // Then the model recalls what the summary left out.
        responses_sse(
            &[call("c2", "recall", json!({"query": "MARMALADE_PORT"}))],
            3_000,
        ),
        responses_sse(&[Out::Text("The port is 4471.")], 3_500),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 30_000));
    options.compact.session_memory.extraction_enabled = false;
    // No file is put back, so the file's content is gone from the context.
    options.compact.restoration.max_files = 0;
    let (mut session, mut events) = Session::new(options).unwrap();

    session
        .run_turn("Read settings.toml", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = session
        .run_turn("Which port does the server use?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("The port is 4471."));
    assert!(
        drain(&mut events).iter().any(|event| matches!(
            event,
            SessionEvent::Loop(LoopEvent::CompactionCompleted { .. })
        )),
        "the second turn compacted first"
    );

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 5);
    assert!(tool_names(&bodies[0]).contains(&"recall".to_string()));
    // The first request after the compaction: the read's content is gone; the summary says
    // recall can bring it back, and the restoration names the file with both ways back.
    let compacted = all_texts(&bodies[3]);
    assert!(!compacted.contains(SECRET_LINE), "{compacted}");
    assert!(
        compacted.contains("call recall with a word, a path or an identifier"),
        "{compacted}"
    );
    assert!(
        compacted.contains("`recall <path>` shows what you saw of it then"),
        "{compacted}"
    );
    assert!(compacted.contains("settings.toml"), "{compacted}");
    // The next request carries recall's answer: the original lines, from the rollout.
    let outputs = call_outputs(&bodies[4]);
    let recalled = outputs.last().unwrap();
    assert!(recalled.contains(SECRET_LINE), "{recalled}");
    assert!(
        recalled.contains("result of read_file {\"path\":\"settings.toml\"}"),
        "{recalled}"
    );
    assert!(recalled.contains("before the compaction"), "{recalled}");
}

#[tokio::test]
async fn a_persisted_result_reads_back_with_read_file_and_recall() {
    let dirs = dirs();
    // A command output well over the persist threshold (1,000 tokens).
    let big: String = (0..150)
        .map(|n| format!("row {n:03}: ordinary output of the build step\n"))
        .chain(std::iter::once(
            "row 150: the pelican_checksum is 9f3a\n".to_string(),
        ))
        .collect();
    std::fs::write(dirs.cwd.join("build.log"), &big).unwrap();
    let persisted = dirs.home.join("tool-results").join("c1.txt");
    let server = server(vec![
        responses_sse(
            &[call("c1", "shell", json!({"command": "cat build.log"}))],
            2_000,
        ),
        // Three newer results make the first old enough to clear.
        responses_sse(
            &[
                call("c2", "list_dir", json!({})),
                call("c3", "glob", json!({"pattern": "*.log"})),
                call("c4", "glob", json!({"pattern": "*.md"})),
            ],
            4_000,
        ),
        // The model follows the marker, and recalls by a word.
        responses_sse(
            &[
                call(
                    "c5",
                    "read_file",
                    json!({"path": persisted.display().to_string()}),
                ),
                call("c6", "recall", json!({"query": "pelican_checksum"})),
            ],
            4_500,
        ),
        responses_sse(&[Out::Text("The checksum is 9f3a.")], 5_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.compact.session_memory.extraction_enabled = false;
    options.compact.micro.min_savings_tokens = 200;
    options.compact.micro.target_tool_result_tokens = 0;
    let (mut session, _events) = Session::new(options).unwrap();

    let outcome = session
        .run_turn(
            "What is the checksum in build.log?",
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome.last_message.as_deref(),
        Some("The checksum is 9f3a.")
    );

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 4);
    // The third request: the first result replaced by the marker, which names both ways back.
    let third = call_outputs(&bodies[2]);
    let marker = &third[0];
    assert!(
        marker.starts_with(&format!(
            "<persisted-output path=\"{}\"",
            persisted.display()
        )),
        "{marker}"
    );
    assert!(
        marker.contains("read_file it, or recall a word from it"),
        "{marker}"
    );
    assert!(persisted.is_file());
    // The fourth: read_file read the persisted file, and recall found the line in it.
    let fourth = call_outputs(&bodies[3]);
    let read = &fourth[fourth.len() - 2];
    assert!(
        read.contains("row 150: the pelican_checksum is 9f3a"),
        "{read}"
    );
    assert!(read.contains("row 000: ordinary output"), "{read}");
    let recalled = &fourth[fourth.len() - 1];
    assert!(
        recalled.contains("row 150: the pelican_checksum is 9f3a"),
        "{recalled}"
    );
    assert!(
        recalled.contains(&format!("cleared and saved to {}", persisted.display())),
        "{recalled}"
    );
}
