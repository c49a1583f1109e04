//! A server started for the suite: its process, its log, its readiness, and its end.
//!
//! This module is the one place the harness builds a `std::process::Command`.

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use crate::error::InteropError;

/// How often readiness is probed.
const PROBE_EVERY: Duration = Duration::from_millis(250);

/// A free TCP port on 127.0.0.1 (bound, read and released; the server binds it next).
pub fn free_port() -> Result<u16, InteropError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(InteropError::io("cannot bind a loopback port"))?;
    let port = listener
        .local_addr()
        .map_err(InteropError::io("cannot read the bound port"))?
        .port();
    Ok(port)
}

/// A command for `program`, with its environment cleared of the variables that would point
/// `agentctx` or the servers elsewhere.
#[expect(
    clippy::disallowed_methods,
    reason = "the harness's one place that starts programs"
)]
pub(crate) fn command(program: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    for name in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
        "AGENTCTX_HOME",
        "RUST_LOG",
        // LiteLLM reads these; the suite's servers are local and keyless.
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        command.env_remove(name);
    }
    command
}

/// A running server; killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    name: String,
    child: Child,
    log_path: PathBuf,
    // Holds the log's folder for the server's lifetime.
    _log_dir: tempfile::TempDir,
}

impl ServerProcess {
    /// Starts `command` with stdout and stderr going to a log file.
    pub(crate) fn spawn(
        name: &str,
        mut command: std::process::Command,
    ) -> Result<Self, InteropError> {
        let log_dir = tempfile::tempdir().map_err(InteropError::io("cannot create a log dir"))?;
        let log_path = log_dir.path().join(format!("{name}.log"));
        let log = std::fs::File::create(&log_path).map_err(InteropError::io(format!(
            "cannot create {}",
            log_path.display()
        )))?;
        let err_log = log
            .try_clone()
            .map_err(InteropError::io("cannot share the log file"))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err_log)
            .spawn()
            .map_err(InteropError::io(format!("cannot start {name}")))?;
        Ok(Self {
            name: name.to_string(),
            child,
            log_path,
            _log_dir: log_dir,
        })
    }

    /// The server's output so far, its last `max_lines` lines.
    pub fn log_tail(&self, max_lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(max_lines)..].join("\n")
    }

    /// The whole log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// Waits until the server accepts connections on `port`, the process exits, or `timeout`
    /// passes. Both servers run under uvicorn, which finishes the application's start-up
    /// (loading the model, reading the proxy's config) before it binds its socket, so an
    /// accepted connection means the server is ready.
    pub(crate) fn wait_ready(&mut self, port: u16, timeout: Duration) -> Result<(), InteropError> {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .try_wait()
                .map_err(InteropError::io(format!("cannot poll {}", self.name)))?
            {
                return Err(InteropError::Exited {
                    server: self.name.clone(),
                    status: status.to_string(),
                    log_path: self.log_path.clone(),
                    log: self.log_tail(40),
                });
            }
            if std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok() {
                return Ok(());
            }
            if started.elapsed() > timeout {
                return Err(InteropError::NotReady {
                    server: self.name.clone(),
                    url: address.to_string(),
                    after: timeout,
                    log_path: self.log_path.clone(),
                    log: self.log_tail(40),
                });
            }
            std::thread::sleep(PROBE_EVERY);
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Already gone is fine; a kill that fails leaves nothing more to do.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
