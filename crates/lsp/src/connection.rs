//! JSON-RPC over a server's pipes: requests matched to their responses by id, notifications,
//! and the requests a server sends the client, answered by an [`Incoming`] handler.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use serde_json::json;
use tokio::io::AsyncRead;
use tokio::io::AsyncWrite;
use tokio::io::BufReader;
use tokio::sync::mpsc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::LspError;
use crate::framing::read_message;
use crate::framing::write_message;

/// JSON-RPC's "method not found".
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;

/// A request's outcome: its `result`, or its `error`'s code and message.
type Response = Result<Value, (i64, String)>;

/// What the client does with what the server sends on its own.
pub(crate) trait Incoming: Send + Sync + 'static {
    /// A notification (`textDocument/publishDiagnostics`, `window/logMessage`).
    fn notification(&self, method: &str, params: Value);
    /// A request (`workspace/configuration`): its result, or an error code and message.
    fn request(&self, method: &str, params: Value) -> Response;
}

/// One server's JSON-RPC connection.
pub(crate) struct Connection {
    language: String,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Response>>>>,
    next_id: AtomicI64,
    alive: Arc<AtomicBool>,
    tasks: [JoinHandle<()>; 2],
}

impl Connection {
    /// Starts reading `output` and writing to `input`.
    pub(crate) fn start(
        language: &str,
        input: impl AsyncWrite + Unpin + Send + 'static,
        output: impl AsyncRead + Unpin + Send + 'static,
        incoming: Arc<dyn Incoming>,
    ) -> Self {
        let (outgoing, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        let pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Response>>>> = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let writer = {
            let alive = Arc::clone(&alive);
            let language = language.to_owned();
            tokio::spawn(async move {
                let mut input = input;
                while let Some(body) = to_write.recv().await {
                    if let Err(err) = write_message(&mut input, &body).await {
                        tracing::warn!(%language, "writing to the language server failed: {err}");
                        alive.store(false, Ordering::SeqCst);
                        break;
                    }
                }
            })
        };
        let reader = {
            let alive = Arc::clone(&alive);
            let pending = Arc::clone(&pending);
            let outgoing = outgoing.clone();
            let language = language.to_owned();
            tokio::spawn(async move {
                let mut output = BufReader::new(output);
                loop {
                    match read_message(&mut output).await {
                        Ok(Some(body)) => dispatch(&body, &pending, &outgoing, incoming.as_ref()),
                        Ok(None) => break,
                        Err(err) => {
                            tracing::warn!(%language, "reading from the language server failed: {err}");
                            break;
                        }
                    }
                }
                alive.store(false, Ordering::SeqCst);
                // Every waiting request learns that no answer will come.
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clear();
            })
        };
        Self {
            language: language.to_owned(),
            outgoing,
            pending,
            next_id: AtomicI64::new(1),
            alive,
            tasks: [writer, reader],
        }
    }

    /// Whether the server's output is still open and writes succeed.
    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    fn send(&self, message: &Value) -> Result<(), LspError> {
        if !self.is_alive() {
            return Err(self.exited());
        }
        let body = serde_json::to_vec(message)
            .map_err(|err| LspError::Frame(format!("could not encode a message: {err}")))?;
        self.outgoing.send(body).map_err(|_| self.exited())
    }

    fn exited(&self) -> LspError {
        LspError::Exited {
            language: self.language.clone(),
        }
    }

    /// Sends a notification.
    pub(crate) fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits up to `timeout` for its result.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, sender);
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if let Err(err) = sent {
            self.forget(id);
            return Err(err);
        }
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err((code, message)))) => Err(LspError::Refused {
                language: self.language.clone(),
                method: method.to_owned(),
                code,
                message,
            }),
            Ok(Err(_)) => Err(self.exited()),
            Err(_) => {
                self.forget(id);
                Err(LspError::Timeout {
                    language: self.language.clone(),
                    method: method.to_owned(),
                    seconds: timeout.as_secs(),
                })
            }
        }
    }

    fn forget(&self, id: i64) {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Routes one message from the server: a response to its waiting request, a request to
/// `incoming` (answered at once), a notification to `incoming`. A message that is not JSON-RPC
/// is logged and skipped.
fn dispatch(
    body: &[u8],
    pending: &Mutex<HashMap<i64, oneshot::Sender<Response>>>,
    outgoing: &mpsc::UnboundedSender<Vec<u8>>,
    incoming: &dyn Incoming,
) {
    let message: Value = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(err) => {
            tracing::warn!("skipped a language-server message that is not JSON: {err}");
            return;
        }
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").cloned();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    match (method, id) {
        (Some(method), Some(id)) => {
            let answer = match incoming.request(method, params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, text)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
                }
            };
            if let Ok(bytes) = serde_json::to_vec(&answer) {
                // A closed channel means the connection is going away: nothing to answer.
                let _ = outgoing.send(bytes);
            }
        }
        (Some(method), None) => incoming.notification(method, params),
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else {
                tracing::warn!("skipped a language-server response with a non-numeric id: {id}");
                return;
            };
            let response = match message.get("error") {
                Some(error) => Err((
                    error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                )),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let waiting = pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
            if let Some(waiting) = waiting {
                // The requester may have timed out and gone.
                let _ = waiting.send(response);
            }
        }
        (None, None) => {
            tracing::warn!("skipped a language-server message with neither method nor id")
        }
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
