use std::sync::Mutex;

use pretty_assertions::assert_eq;
use tokio::io::BufReader;
use tokio::io::DuplexStream;

use super::*;

/// Records notifications; answers `workspace/configuration` with `[1]`.
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, Value)>>);

impl Incoming for Recorder {
    fn notification(&self, method: &str, params: Value) {
        self.0.lock().unwrap().push((method.to_owned(), params));
    }
    fn request(&self, method: &str, _params: Value) -> Response {
        match method {
            "workspace/configuration" => Ok(json!([1])),
            _ => Err((METHOD_NOT_FOUND, format!("no {method}"))),
        }
    }
}

/// The server's ends of the pipes: what the client writes, and where to write to the client.
struct FakeServer {
    from_client: BufReader<DuplexStream>,
    to_client: DuplexStream,
}

impl FakeServer {
    async fn receive(&mut self) -> Value {
        let body = read_message(&mut self.from_client).await.unwrap().unwrap();
        serde_json::from_slice(&body).unwrap()
    }
    async fn send(&mut self, message: Value) {
        write_message(&mut self.to_client, &serde_json::to_vec(&message).unwrap())
            .await
            .unwrap();
    }
}

fn connect() -> (Connection, FakeServer, Arc<Recorder>) {
    let (client_in, server_out) = tokio::io::duplex(1 << 16);
    let (server_in, client_out) = tokio::io::duplex(1 << 16);
    let recorder = Arc::new(Recorder::default());
    let connection = Connection::start(
        "test",
        client_in,
        client_out,
        Arc::clone(&recorder) as Arc<dyn Incoming>,
    );
    let server = FakeServer {
        from_client: BufReader::new(server_out),
        to_client: server_in,
    };
    (connection, server, recorder)
}

#[tokio::test]
async fn responses_find_their_requests_and_server_requests_are_answered() {
    let (connection, mut server, recorder) = connect();
    let client = tokio::spawn(async move {
        let result = connection
            .request("initialize", json!({"x": 1}), Duration::from_secs(5))
            .await;
        (connection, result)
    });
    let request = server.receive().await;
    assert_eq!(request["method"], "initialize");
    assert_eq!(request["params"], json!({"x": 1}));
    // Before answering, the server asks something and notifies something.
    server
        .send(json!({"jsonrpc": "2.0", "id": "s1", "method": "workspace/configuration", "params": {}}))
        .await;
    server
        .send(json!({"jsonrpc": "2.0", "id": 7, "method": "window/showDocument", "params": {}}))
        .await;
    server
        .send(json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": "hi"}}))
        .await;
    assert_eq!(
        server.receive().await,
        json!({"jsonrpc": "2.0", "id": "s1", "result": [1]})
    );
    let refused = server.receive().await;
    assert_eq!(refused["id"], 7);
    assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND);
    server
        .send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"capabilities": {}}}))
        .await;
    let (connection, result) = client.await.unwrap();
    assert_eq!(result.unwrap(), json!({"capabilities": {}}));
    assert_eq!(
        recorder.0.lock().unwrap().clone(),
        vec![("window/logMessage".to_owned(), json!({"message": "hi"}))]
    );
    connection.notify("initialized", json!({})).unwrap();
    assert_eq!(server.receive().await["method"], "initialized");
}

#[tokio::test]
async fn an_error_response_is_a_typed_refusal() {
    let (connection, mut server, _) = connect();
    let client = tokio::spawn(async move {
        connection
            .request("shutdown", Value::Null, Duration::from_secs(5))
            .await
    });
    let request = server.receive().await;
    server
        .send(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32600, "message": "no"}}))
        .await;
    let err = client.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, LspError::Refused { code: -32600, message, .. } if message == "no"),
        "{err}"
    );
}

#[tokio::test]
async fn a_server_that_exits_fails_the_waiting_request_and_later_sends() {
    let (connection, server, _) = connect();
    let connection = Arc::new(connection);
    let client = {
        let connection = Arc::clone(&connection);
        tokio::spawn(async move {
            connection
                .request("initialize", Value::Null, Duration::from_secs(60))
                .await
        })
    };
    tokio::task::yield_now().await;
    drop(server);
    let err = client.await.unwrap().unwrap_err();
    assert!(matches!(err, LspError::Exited { .. }), "{err}");
    assert!(!connection.is_alive());
    assert!(matches!(
        connection.notify("exit", Value::Null),
        Err(LspError::Exited { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_request_nobody_answers_times_out() {
    let (connection, _server, _) = connect();
    let err = connection
        .request("initialize", Value::Null, Duration::from_secs(30))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LspError::Timeout { seconds: 30, .. }),
        "{err}"
    );
}

#[tokio::test]
async fn garbage_from_the_server_is_skipped() {
    let (connection, mut server, recorder) = connect();
    write_message(&mut server.to_client, b"not json")
        .await
        .unwrap();
    server.send(json!({"jsonrpc": "2.0"})).await;
    server
        .send(json!({"jsonrpc": "2.0", "method": "$/progress", "params": {}}))
        .await;
    for _ in 0..100 {
        if !recorder.0.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(recorder.0.lock().unwrap().len(), 1);
    assert!(connection.is_alive());
}
