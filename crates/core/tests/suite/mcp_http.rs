//! A streamable-HTTP server by `url`: the rmcp test server's handler served in-process over
//! hyper by rmcp's `StreamableHttpService`, reached through the same session path as a stdio
//! server.

#[path = "../../examples/mcp_test_server/handler.rs"]
mod handler;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;

use agentctx_core::McpServerConfig;
use agentctx_model::ScriptedResponse;
use hyper_util::rt::TokioIo;
use pretty_assertions::assert_eq;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use super::mcp::drain;
use super::mcp::session_with;
use super::mcp::tool_names;
use super::mcp::unavailable;

/// Serves the test handler on a free local port; returns its URL and the accept loop.
async fn serve() -> (String, tokio::task::JoinHandle<()>) {
    let service = StreamableHttpService::new(
        || Ok(handler::TestServer),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service.clone();
            tokio::spawn(async move {
                let handle = hyper::service::service_fn(move |request| {
                    let service = service.clone();
                    async move { Ok::<_, Infallible>(service.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handle)
                    .await;
            });
        }
    });
    (format!("http://{address}/mcp"), accept)
}

#[tokio::test]
async fn a_streamable_http_server_offers_tools_answers_calls_and_serves_resources() {
    let (url, accept) = serve().await;
    let servers = BTreeMap::from([("web".to_string(), McpServerConfig::http(url))]);
    let mut s = session_with(servers).await;
    s.model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "mcp__web__echo",
        r#"{"text": "over http"}"#,
    ));
    s.model.push(ScriptedResponse::text("done"));
    s.session
        .run_turn(
            &format!("echo it and read @web:{}", handler::GREETING_URI),
            &CancellationToken::new(),
        )
        .await
        .expect("turn");

    let prompts = s.model.prompts();
    assert_eq!(
        tool_names(&prompts[0]),
        vec!["mcp__web__echo", "mcp__web__add", "mcp__web__crash"]
    );
    let first = serde_json::to_string(&prompts[0].input).expect("json");
    assert!(first.contains(handler::GREETING), "{first}");
    let second = serde_json::to_string(&prompts[1].input).expect("json");
    assert!(second.contains("echo: over http"), "{second}");
    assert_eq!(unavailable(&drain(&mut s.events)), Vec::new());
    accept.abort();
}
