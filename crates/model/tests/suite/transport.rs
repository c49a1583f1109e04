//! Connections that fail or never answer: a refused connection names its cause, and a server
//! that accepts the connection but never sends a status line times out with a message naming
//! the URL, the wait and the setting to change.

use std::time::Duration;

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::WireApi;

use super::support::Loopback;
use super::support::client;
use super::support::loopback;
use super::support::provider;
use super::support::rich_prompt;

/// The error `client.stream` ends with, failing the test when it has not ended after an hour
/// of (virtual) time.
async fn stream_error(client: &dyn ModelClient, wire_api: WireApi) -> ModelError {
    let prompt = rich_prompt(wire_api);
    let result = tokio::time::timeout(Duration::from_secs(3600), client.stream(&prompt))
        .await
        .expect("the request must end by itself, not hang");
    match result {
        Ok(_) => panic!("expected an error, got a stream"),
        Err(error) => error,
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_times_out_naming_the_url() {
    let server = loopback(vec![Loopback::Silent, Loopback::Silent, Loopback::Silent]).await;
    let mut provider = provider(WireApi::Chat, &format!("{}/v1", server.base_url));
    provider.stream_idle_timeout_ms = Some(30_000);
    let client = client(provider, "model");

    let error = stream_error(&client, WireApi::Chat).await;

    let message = error.to_string().replace(&server.base_url, "http://SERVER");
    insta::assert_snapshot!(message, @"no response from http://SERVER/v1/chat/completions within 30s: the server took the request but sent nothing back; if it is still working through a long prompt, raise `stream_idle_timeout_ms` for this provider (0 waits forever)");
    // Waiting another 30 s for a server that did not answer helps nobody.
    assert!(!error.is_retryable());
    assert!(server.requests.lock().unwrap().len() <= 1);
}

#[tokio::test(start_paused = true)]
async fn a_refused_connection_names_its_cause() {
    // A port nobody listens on: bound, then released.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let client = client(
        provider(WireApi::Chat, &format!("http://{address}/v1")),
        "model",
    );

    let error = stream_error(&client, WireApi::Chat).await;

    let message = error.to_string().replace(&address.to_string(), "ADDRESS");
    insta::assert_snapshot!(message, @"transport error: connection refused at http://ADDRESS/v1/chat/completions (is the server running?)");
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_cannot_open_times_out_naming_the_url() {
    // A listener whose accept queue is full: the kernel drops further SYNs, so a connect hangs
    // as it does towards an address that drops packets.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let address = listener.local_addr().unwrap();
    let mut queued = Vec::new();
    let full = tokio::task::spawn_blocking(move || {
        for _ in 0..16 {
            match std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)) {
                Ok(stream) => queued.push(stream),
                Err(_) => return Some(queued),
            }
        }
        None
    })
    .await
    .unwrap();
    let Some(_queued) = full else {
        // This kernel accepts connections past the backlog: nothing to test here.
        return;
    };
    // The client as built for production (its own connect timeout), not the tests' one.
    let client = agentctx_model::HttpModelClient::new(
        provider(WireApi::Chat, &format!("http://{address}/v1")),
        "model",
        &super::support::env(&[]),
    )
    .unwrap();

    let error = stream_error(&client, WireApi::Chat).await;

    let message = error.to_string().replace(&address.to_string(), "ADDRESS");
    insta::assert_snapshot!(message, @"transport error: no connection to http://ADDRESS/v1/chat/completions within 10s (is the address right and the server reachable?)");
    drop(listener);
}
