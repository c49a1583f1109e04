use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::body_json;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn chat_provider(base_url: &str) -> ProviderConfig {
    ProviderConfig {
        name: "local".to_string(),
        base_url: base_url.to_string(),
        wire_api: WireApi::Chat,
        ..ProviderConfig::default()
    }
}

#[test]
fn the_three_answers_are_read() {
    // llama.cpp: the slot's window, not the total of all slots.
    assert_eq!(
        llama_cpp_window(&json!({"n_ctx": 16384, "total_slots": 2,
            "default_generation_settings": {"n_ctx": 8192}})),
        Some(8192)
    );
    assert_eq!(llama_cpp_window(&json!({"n_ctx": 16384})), None);
    // Ollama: num_ctx when set, else the architecture's context length.
    let show = json!({
        "parameters": "stop                           \"<|im_end|>\"\nnum_ctx                        6144",
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}
    });
    assert_eq!(ollama_window(&show), Some(6144));
    let show = json!({
        "parameters": "temperature 0.6",
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}
    });
    assert_eq!(ollama_window(&show), Some(40960));
    assert_eq!(ollama_window(&json!({"model_info": {}})), None);
    // LM Studio: the loaded window before the maximum, of the model asked for.
    let models = json!({"object": "list", "data": [
        {"id": "other", "max_context_length": 1000},
        {"id": "qwen3-8b", "state": "loaded", "max_context_length": 32768, "loaded_context_length": 4096},
    ]});
    assert_eq!(lmstudio_window(&models, "qwen3-8b"), Some(4096));
    assert_eq!(lmstudio_window(&models, "other"), Some(1000));
    assert_eq!(lmstudio_window(&models, "missing"), None);
}

#[tokio::test]
async fn a_llama_cpp_server_reports_its_slot_window() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                json!({"n_ctx": 8192, "default_generation_settings": {"n_ctx": 4096}}),
            ),
        )
        .mount(&server)
        .await;
    let provider = chat_provider(&format!("{}/v1", server.uri()));
    let found = probe_context_window("llama", &provider, "smollm2", &no_env).await;
    assert_eq!(
        found,
        Some(ProbedWindow {
            tokens: 4096,
            url: format!("{}/props", server.uri()),
        })
    );
}

#[tokio::test]
async fn ollama_is_asked_about_the_model_in_use() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/show"))
        .and(body_json(json!({"model": "qwen3:8b"})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "parameters": "num_ctx 8192",
            "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}
        })))
        .mount(&server)
        .await;
    let provider = chat_provider(&format!("{}/v1", server.uri()));
    let found = probe_context_window("ollama", &provider, "qwen3:8b", &no_env).await;
    assert_eq!(found.map(|found| found.tokens), Some(8192));
    // Only Ollama's endpoint was asked.
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
}

#[tokio::test]
async fn a_custom_chat_provider_tries_each_server_kind_in_turn() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v0/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [{"id": "qwen3-8b", "max_context_length": 32768}]
        })))
        .mount(&server)
        .await;
    let provider = chat_provider(&format!("{}/v1/", server.uri()));
    let found = probe_context_window("my-box", &provider, "qwen3-8b", &no_env).await;
    assert_eq!(found.map(|found| found.tokens), Some(32768));
    let paths: Vec<String> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| request.url.path().to_string())
        .collect();
    assert_eq!(paths, ["/props", "/api/show", "/api/v0/models"]);
}

#[tokio::test]
async fn a_server_without_any_of_them_leaves_the_window_unknown() {
    // llama-cpp-python answers 404 on all three.
    let server = MockServer::start().await;
    let provider = chat_provider(&format!("{}/v1", server.uri()));
    assert_eq!(
        probe_context_window("llama", &provider, "m", &no_env).await,
        None
    );
    // Other wire APIs are never probed.
    let responses = ProviderConfig {
        wire_api: WireApi::Responses,
        ..provider
    };
    assert_eq!(
        probe_context_window("x", &responses, "m", &no_env).await,
        None
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_is_given_up_on() {
    // Accepts connections and never writes a byte.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let _holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let provider = chat_provider(&format!("http://{address}/v1"));
    let started = tokio::time::Instant::now();
    let found = probe_context_window("llama", &provider, "m", &no_env).await;
    assert_eq!(found, None);
    assert!(started.elapsed() >= WINDOW_PROBE_TIMEOUT);
}

#[test]
fn the_root_drops_the_openai_prefix() {
    assert_eq!(server_root("http://h:8080/v1"), "http://h:8080");
    assert_eq!(server_root("http://h:8080/v1/"), "http://h:8080");
    assert_eq!(server_root("http://h:8080"), "http://h:8080");
}
