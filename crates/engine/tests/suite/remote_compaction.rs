//! Full compaction at the provider through the engine's policy (`[compact] mode`), the codex
//! filter of its answer, the readable copy of its opaque item, the fallback to local
//! compaction, and the copy sent to a provider that cannot read the item.

use std::path::Path;

use agentctx_compact::CompactConfig;
use agentctx_compact::render_history;
use agentctx_context::TurnSettings;
use agentctx_engine::Compaction;
use agentctx_engine::CompactionTier;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::PreparedRequest;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::ProviderConfig;
use agentctx_model::ProviderIdentity;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::ScriptedModelClient;
use agentctx_model::WireApi;
use agentctx_protocol::CompactMode;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;
use wiremock::matchers::path;

const TASK: &str = "Fix the flaky test in parser.rs";

fn engine(home: &Path, mode: CompactMode) -> ContextEngine {
    ContextEngine::new(EngineOptions {
        cwd: home.to_path_buf(),
        home: home.to_path_buf(),
        session_id: "s1".to_string(),
        reminders: Default::default(),
        compact: CompactConfig {
            mode,
            ..CompactConfig::default()
        },
        context_window: 200_000,
        max_output_tokens: None,
    })
}

fn initial_context() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text(
            "<permissions instructions>ask first</permissions instructions>",
        ),
        ResponseItem::user_text(
            "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        ),
    ]
}

/// One turn: the task, a read, the model's plan, a ghost snapshot, and a model switch recorded
/// after the turn (what codex takes out of a compaction request and puts back after it).
fn session(engine: &mut ContextEngine) {
    let settings = TurnSettings {
        model: "gpt-5".to_string(),
        ..TurnSettings::default()
    };
    engine.begin_turn(&settings, "t1".to_string(), initial_context, TASK);
    engine.record_items(&[
        ResponseItem::function_call("call_1", "read_file", r#"{"path":"parser.rs"}"#),
        ResponseItem::function_call_output("call_1", "fn parse() { flaky() }"),
        ResponseItem::assistant_text("I'll pin the random seed instead of retrying."),
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({"id": "ghost-1"}),
            extra: ExtraFields::new(),
        },
        ResponseItem::developer_text("<model_switch>\nYou are now gpt-5.1.\n</model_switch>"),
    ]);
}

/// What `/responses/compact` answers, as the API reference describes its `output` ("all user
/// messages, followed by a single compaction item":
/// <https://developers.openai.com/api/reference/resources/responses>, "Compact a response"),
/// with a stale developer message and the environment context an older server echoed back,
/// which codex-rs's `should_keep_compacted_history_item` drops.
fn provider_history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text("<permissions instructions>stale</permissions instructions>"),
        ResponseItem::user_text(
            "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        ),
        ResponseItem::user_text(TASK),
        serde_json::from_value(json!({"type": "compaction", "encrypted_content": "gAAAA-OPAQUE"}))
            .unwrap(),
    ]
}

fn remote_client() -> ScriptedModelClient {
    ScriptedModelClient::new("gpt-5")
        .with_remote_compaction(RemoteCompactionSupport {
            endpoint: true,
            ..RemoteCompactionSupport::NONE
        })
        .with_provider_identity(openai())
}

fn openai() -> ProviderIdentity {
    ProviderIdentity::new(WireApi::Responses, "https://api.openai.com/v1")
}

async fn compact(engine: &mut ContextEngine, model: &dyn ModelClient) -> Compaction {
    engine
        .compact(
            Some(model),
            agentctx_engine::CompactReason::MidTurn,
            initial_context(),
            "You are a coding agent.",
            &HostState::default(),
            1,
        )
        .await
}

fn prepared(engine: &ContextEngine) -> PreparedRequest {
    PreparedRequest {
        recorded: Vec::new(),
        prompt_only: Vec::new(),
        prompt_tail: Vec::new(),
        fired: Vec::new(),
        micro: None,
        micro_cost: None,
        usage: engine.context_usage(),
    }
}

fn the_opaque_item(history: &[ResponseItem]) -> &ResponseItem {
    history
        .iter()
        .find(|item| matches!(item, ResponseItem::Compaction { .. }))
        .expect("a compaction item")
}

#[tokio::test]
async fn remote_compaction_through_the_policy_keeps_what_codex_keeps_and_a_readable_copy() {
    let home = tempfile::tempdir().unwrap();
    let mut engine = engine(home.path(), CompactMode::Remote);
    session(&mut engine);
    let client = remote_client();
    client.push_compaction(Ok(provider_history()));

    let compaction = compact(&mut engine, &client).await;
    assert_eq!(compaction.tier, CompactionTier::Remote);
    assert_eq!(compaction.remote_fallback, None);

    // The request: the history without the ghost snapshot and the trailing model switch.
    let prompts = client.compaction_prompts();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].instructions, "You are a coding agent.");
    insta::assert_snapshot!(render_history(&prompts[0].items().cloned().collect::<Vec<_>>()), @r#"
    00:message/developer:<permissions instructions>ask first</permissions instructions>
    01:message/user:<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>
    02:message/user:Fix the flaky test in parser.rs
    03:function_call/-:read_file {"path":"parser.rs"}
    04:function_call_output/-:fn parse() { flaky() }
    05:message/assistant:I'll pin the random seed instead of retrying.
    "#);

    // The new history: what codex keeps (the task, the compaction item), the fresh initial
    // context before the last user message (mid-turn), then the model switch and the ghost
    // snapshot carried across.
    insta::assert_snapshot!(render_history(engine.history()), @r"
    00:message/developer:<permissions instructions>ask first</permissions instructions>
    01:message/user:<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>
    02:message/user:Fix the flaky test in parser.rs
    03:compaction/-:
    04:message/developer:<model_switch>\nYou are now gpt-5.1.\n</model_switch>
    05:ghost_snapshot/-:
    ");
    assert_eq!(compaction.history, engine.history());

    // Beside the opaque item: the offline digest of what it replaced, and who wrote it.
    let item = the_opaque_item(engine.history()).clone();
    let copy = item.readable_copy().unwrap();
    assert!(copy.contains(TASK), "{copy}");
    assert!(copy.contains("pin the random seed"), "{copy}");
    assert!(copy.contains("parser.rs"), "{copy}");
    assert_eq!(
        item.compaction_writer(),
        Some(&serde_json::to_value(openai()).unwrap())
    );
    // The recorded `compacted` line says what the history holds, in words.
    let line = compaction.compacted_item();
    assert!(line.message.contains(copy), "{}", line.message);
    assert_eq!(line.replacement_history.as_deref(), Some(engine.history()));

    // The same provider is sent the item as it wrote it; another one the copy.
    engine.set_provider(openai());
    let sent: Vec<ResponseItem> = engine
        .prompt_input(&prepared(&engine))
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    assert!(
        sent.iter()
            .any(|item| matches!(item, ResponseItem::Compaction { .. }))
    );
    engine.set_provider(ProviderIdentity::new(
        WireApi::Anthropic,
        "https://api.anthropic.com",
    ));
    let sent: Vec<ResponseItem> = engine
        .prompt_input(&prepared(&engine))
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    assert!(
        !sent
            .iter()
            .any(|item| matches!(item, ResponseItem::Compaction { .. }))
    );
    assert!(sent.contains(&item.readable_copy_message().unwrap()));
}

#[tokio::test]
async fn a_failing_remote_compaction_falls_back_to_local_with_the_reason() {
    let home = tempfile::tempdir().unwrap();
    let mut engine = engine(home.path(), CompactMode::Remote);
    session(&mut engine);
    let client = remote_client();
    client.push_compaction(Err(ModelError::Server {
        status: 500,
        body: "upstream compaction failed".to_string(),
        retry_after: None,
    }));
    client.push_text("The user asked to fix the flaky parser test; the seed will be pinned.");

    let compaction = compact(&mut engine, &client).await;
    assert_eq!(compaction.tier, CompactionTier::FullModel);
    let reason = compaction.remote_fallback.clone().unwrap();
    assert!(
        reason.contains("remote compaction at `responses@api.openai.com` failed"),
        "{reason}"
    );
    assert!(reason.contains("upstream compaction failed"), "{reason}");
    // Nothing lost: the local summary and the task verbatim, no opaque item.
    let texts: Vec<String> = engine
        .history()
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert!(texts.iter().any(|text| text == TASK), "{texts:#?}");
    assert!(compaction.summary.contains("the seed will be pinned"));
    assert!(
        !engine
            .history()
            .iter()
            .any(|item| matches!(item, ResponseItem::Compaction { .. }))
    );
    assert_eq!(client.compaction_prompts().len(), 1);
}

#[tokio::test]
async fn remote_mode_without_an_endpoint_says_so_and_auto_stays_local_silently() {
    let home = tempfile::tempdir().unwrap();
    let mut remote = engine(home.path(), CompactMode::Remote);
    session(&mut remote);
    let plain = ScriptedModelClient::new("gpt-5");
    plain.push_text("SUMMARY ONE");
    let compaction = compact(&mut remote, &plain).await;
    assert_eq!(compaction.tier, CompactionTier::FullModel);
    assert_eq!(
        compaction.remote_fallback.as_deref(),
        Some("remote compaction asked for, but provider `responses` has no compaction endpoint")
    );

    let home = tempfile::tempdir().unwrap();
    let mut auto = engine(home.path(), CompactMode::Auto);
    session(&mut auto);
    plain.push_text("SUMMARY TWO");
    let compaction = compact(&mut auto, &plain).await;
    assert_eq!(compaction.tier, CompactionTier::FullModel);
    assert_eq!(compaction.remote_fallback, None);

    // `local` never asks the provider, even one with an endpoint.
    let home = tempfile::tempdir().unwrap();
    let mut local = engine(home.path(), CompactMode::Local);
    session(&mut local);
    let client = remote_client();
    client.push_text("SUMMARY THREE");
    let compaction = compact(&mut local, &client).await;
    assert_eq!(compaction.tier, CompactionTier::FullModel);
    assert!(client.compaction_prompts().is_empty());
}

/// The `/responses/compact` answer body as the API reference gives it (an `output` list, then
/// `usage`), holding [`provider_history`].
fn compact_answer() -> Value {
    json!({
        "id": "resp_compact_1",
        "object": "response.compaction",
        "output": serde_json::to_value(provider_history()).unwrap(),
        "usage": {"input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500}
    })
}

#[tokio::test]
async fn remote_compaction_over_the_responses_wire() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses/compact"))
        .respond_with(ResponseTemplate::new(200).set_body_json(compact_answer()))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = ProviderConfig {
        name: "openai-test".to_string(),
        base_url: format!("{}/v1", server.uri()),
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api: WireApi::Responses,
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
        ..ProviderConfig::default()
    };
    provider.context_management.compact_endpoint = Some(true);
    let env = |name: &str| (name == "TEST_API_KEY").then(|| "sk-test".to_string());
    let client = HttpModelClient::new(provider, "gpt-5", &env).unwrap();

    let home = tempfile::tempdir().unwrap();
    let mut engine = engine(home.path(), CompactMode::Auto);
    session(&mut engine);
    let compaction = compact(&mut engine, &client).await;
    assert_eq!(compaction.tier, CompactionTier::Remote, "{compaction:#?}");

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    insta::assert_json_snapshot!("responses_compact_request_body", body);
    // The opaque item is kept verbatim (its copy and writer beside it), so later requests send
    // it back as the provider wrote it.
    let item = the_opaque_item(engine.history());
    assert_eq!(
        item.without_harness_fields(),
        provider_history().pop().unwrap()
    );
    assert_eq!(
        item.compaction_writer(),
        Some(&serde_json::to_value(client.provider_identity()).unwrap())
    );
}

fn line(kind: &str, payload: Value) -> String {
    json!({"timestamp": "2026-11-26T10:00:00.000Z", "type": kind, "payload": payload}).to_string()
}

#[tokio::test]
async fn replay_and_resume_read_the_copy_from_the_rollout() {
    let home = tempfile::tempdir().unwrap();
    let mut engine = engine(home.path(), CompactMode::Remote);
    session(&mut engine);
    let client = remote_client();
    client.push_compaction(Ok(provider_history()));
    let compaction = compact(&mut engine, &client).await;
    // The lines a host writes: the turn, the compaction with its replacement history.
    let text = [
        line(
            "session_meta",
            json!({"id": "s1", "cwd": "/nonexistent/project", "originator": "agentctx"}),
        ),
        line(
            "turn_context",
            json!({"cwd": "/nonexistent/project", "model": "gpt-5"}),
        ),
        line(
            "response_item",
            serde_json::to_value(ResponseItem::user_text(TASK)).unwrap(),
        ),
        line(
            "compacted",
            serde_json::to_value(compaction.compacted_item()).unwrap(),
        ),
    ]
    .join("\n");
    let reader = |text: &str| {
        agentctx_rollout::RolloutReader::new(
            Path::new("s1.jsonl"),
            std::io::Cursor::new(text.as_bytes().to_vec()),
        )
    };
    let copy = the_opaque_item(engine.history())
        .readable_copy()
        .unwrap()
        .to_string();

    // Resume reads the item back with its copy and writer.
    let recorded =
        agentctx_engine::read_recorded_session(reader(&text), agentctx_engine::StopPoint::End)
            .unwrap();
    assert_eq!(recorded.items, engine.history());
    // A compaction item streamed in a normal response is a `response_item` line: read alike.
    let mut streamed: ResponseItem =
        serde_json::from_value(json!({"type": "compaction", "encrypted_content": "gAAAA-2"}))
            .unwrap();
    streamed.set_readable_copy("STREAMED COPY");
    let with_streamed = format!(
        "{text}\n{}",
        line("response_item", serde_json::to_value(&streamed).unwrap())
    );
    let recorded = agentctx_engine::read_recorded_session(
        reader(&with_streamed),
        agentctx_engine::StopPoint::End,
    )
    .unwrap();
    assert_eq!(recorded.items.last(), Some(&streamed));

    // The replay shows the copy as the compaction's summary and beside the kept item.
    let replay = agentctx_engine::replay::replay_reader(
        reader(&text),
        &agentctx_engine::replay::ReplayOptions::default(),
        None,
    )
    .unwrap();
    let shown = &replay.recorded_compactions[0];
    assert!(shown.summary.contains(&copy[..200]), "{shown:#?}");
    let start: String = copy.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        shown
            .kept
            .iter()
            .any(|kept| kept.starts_with("compaction: ") && start.starts_with(&kept[12..])),
        "{shown:#?}"
    );
}

#[test]
fn a_codex_rollouts_compaction_item_gets_a_copy_when_the_session_moves_to_another_provider() {
    // What a codex-rs remote compaction leaves: the user's messages and the opaque item, no copy.
    let recorded = vec![
        ResponseItem::user_text(TASK),
        serde_json::from_value(json!({"type": "compaction", "encrypted_content": "gAAAA-CODEX"}))
            .unwrap(),
    ];
    let home = tempfile::tempdir().unwrap();
    let resumed = |provider: ProviderIdentity| {
        let mut history = agentctx_context::ContextManager::new();
        history.replace(recorded.clone());
        let mut engine = ContextEngine::with_history(
            EngineOptions {
                cwd: home.path().to_path_buf(),
                home: home.path().to_path_buf(),
                session_id: "s1".to_string(),
                reminders: Default::default(),
                compact: CompactConfig::default(),
                context_window: 200_000,
                max_output_tokens: None,
            },
            history,
        );
        engine.set_provider(provider);
        engine
    };
    // On OpenAI the item is read as it is: nothing changes.
    let openai_engine = resumed(openai());
    assert_eq!(openai_engine.history(), recorded.as_slice());
    // On Anthropic it gets a copy from what the history kept beside it, sent in its place.
    let anthropic = resumed(ProviderIdentity::new(
        WireApi::Anthropic,
        "https://api.anthropic.com",
    ));
    let copy = the_opaque_item(anthropic.history())
        .readable_copy()
        .unwrap()
        .to_string();
    assert!(copy.contains(TASK), "{copy}");
    let sent: Vec<ResponseItem> = anthropic
        .prompt_input(&prepared(&anthropic))
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    assert!(
        !sent
            .iter()
            .any(|item| matches!(item, ResponseItem::Compaction { .. }))
    );
    assert!(
        sent.iter()
            .any(|item| item.message_text().is_some_and(|text| text.contains(&copy)))
    );
}
