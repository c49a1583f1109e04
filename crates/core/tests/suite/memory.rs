//! `memory_ext.rs`: the memory summary in the developer instructions, the pipeline at session
//! start, and the usage metric from tool calls that read memory files.

use std::sync::Arc;

use agentctx_core::MemoryExtractor;
use agentctx_core::MemoryUsageKey;
use agentctx_core::Session;
use agentctx_memory::MemoriesUsageKind;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutRecorder;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

fn developer_texts(prompt: &agentctx_model::Prompt<'_>) -> Vec<String> {
    prompt
        .items()
        .filter(|item| item.role() == Some("developer"))
        .filter_map(ResponseItem::message_text)
        .collect()
}

#[tokio::test]
async fn the_memory_summary_is_in_the_developer_instructions_of_the_first_request() {
    let dirs = dirs();
    let memories = dirs.home.join("memories");
    std::fs::create_dir_all(&memories).unwrap();
    std::fs::write(
        memories.join("memory_summary.md"),
        "- The user runs the tests with `cargo nextest run` before every commit.\n",
    )
    .unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("One."));
    model.push(ScriptedResponse::text("Two."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("first", &CancellationToken::new())
        .await
        .unwrap();
    session
        .run_turn("second", &CancellationToken::new())
        .await
        .unwrap();

    let prompts = model.prompts();
    let first = developer_texts(&prompts[0]);
    assert_eq!(first.len(), 1, "{first:#?}");
    let text = first[0].replace(&dirs.home.display().to_string(), "<home>");
    assert!(text.contains("cargo nextest run"));
    insta::assert_snapshot!("memory_developer_instructions", text);
    // The developer message stays in the history: the second turn carries it once, too.
    assert_eq!(developer_texts(&prompts[1]), first);
}

#[tokio::test]
async fn no_summary_or_use_memories_off_adds_no_developer_message() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("One."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let (mut session, _events) = Session::new(options.clone()).unwrap();
    session
        .run_turn("first", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(developer_texts(&model.prompts()[0]), Vec::<String>::new());

    let memories = dirs.home.join("memories");
    std::fs::create_dir_all(&memories).unwrap();
    std::fs::write(memories.join("memory_summary.md"), "- A fact.\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("One."));
    options.model = Arc::new(model.clone());
    options.memory.use_memories = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("first", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(developer_texts(&model.prompts()[0]), Vec::<String>::new());
}

#[tokio::test]
async fn the_pipeline_starts_at_session_start_and_learns_from_an_earlier_session() {
    let dirs = dirs();
    // An earlier, finished session under the home.
    let meta = SessionMetaLine {
        cwd: Some(dirs.cwd.display().to_string()),
        ..SessionMetaLine::default()
    };
    let mut recorder = RolloutRecorder::create(&dirs.home, meta).unwrap();
    recorder
        .record_response_items(&[
            ResponseItem::user_text(
                "Fix the failing login test. Always run the tests before you finish.",
            ),
            ResponseItem::function_call("c1", "shell", r#"{"command":"cargo test"}"#),
            ResponseItem::function_call_output("c1", "test result: ok. 12 passed"),
            ResponseItem::assistant_text("The login test passes now."),
        ])
        .unwrap();
    recorder.flush().unwrap();
    drop(recorder);

    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.extractor = MemoryExtractor::Offline;
    options.memory.min_rollout_idle_hours = 0;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap();
    // The turn did not wait for the pipeline, and the pipeline never used the session's model.
    assert_eq!(model.prompts().len(), 1);
    session.wait_for_memory_startup().await;
    let summary =
        std::fs::read_to_string(dirs.home.join("memories").join("memory_summary.md")).unwrap();
    assert!(
        summary.contains("Always run the tests before you finish."),
        "{summary}"
    );
}

#[tokio::test]
async fn generate_memories_off_starts_no_pipeline() {
    let dirs = dirs();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap();
    session.wait_for_memory_startup().await;
    assert!(!dirs.home.join("state.sqlite").exists());
}

#[tokio::test]
async fn tool_calls_that_read_memory_files_are_counted() {
    let dirs = dirs();
    let memories = dirs.home.join("memories");
    std::fs::create_dir_all(&memories).unwrap();
    std::fs::write(memories.join("MEMORY.md"), "# Memory\n- run the tests\n").unwrap();
    let memory_md = memories.join("MEMORY.md").display().to_string();
    let model = ScriptedModelClient::new("test-model");
    model.push(
        ScriptedResponse::new()
            .with_function_call(
                "c1",
                "shell",
                json!({"command": format!("cat {memory_md}")}).to_string(),
            )
            .with_function_call("c2", "shell", json!({"command": "echo hi"}).to_string()),
    );
    model.push(ScriptedResponse::text("Read it."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("what do you remember?", &CancellationToken::new())
        .await
        .unwrap();

    let usage: Vec<(MemoryUsageKey, u64)> = session.memory_usage().into_iter().collect();
    assert_eq!(
        usage,
        vec![(
            MemoryUsageKey {
                kind: MemoriesUsageKind::MemoryMd,
                tool: "shell".to_string(),
                success: true,
            },
            1
        )]
    );
}

#[test]
fn the_memory_section_of_config_toml_reaches_the_settings() {
    let config = agentctx_core::Config::from_toml(
        "[memory]\ngenerate_memories = false\nextractor = \"offline\"\nmin_rollout_idle_hours = 2\n",
        std::path::Path::new("config.toml"),
    )
    .unwrap();
    assert!(!config.memory.generate_memories);
    assert!(config.memory.use_memories);
    assert_eq!(config.memory.extractor, MemoryExtractor::Offline);
    assert_eq!(config.memory.min_rollout_idle_hours, 2);
}
