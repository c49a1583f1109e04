//! The bodies of a session's requests as its page loads them: `request-NNNN.js` files beside the
//! page, each a call `agentctxBody(N, {…})` with the body the engine would send (the provider
//! client's own, as `agentctx replay --requests` writes it).
//!
//! A script rather than a JSON file: a page opened from disk may not `fetch` a file next to it
//! (Chromium refuses `file://` fetches), but it may add a `<script src>`, so a body is read only
//! when its request is expanded and the page stays small. Each session has a byte budget: a
//! prompt holds the whole history, so the bodies of a long session grow with the square of its
//! length; the requests past the budget are listed without a body.

use std::io::Write as _;
use std::path::Path;
use std::path::PathBuf;

use agentctx_engine::replay::RequestSink;
use agentctx_model::HttpModelClient;
use agentctx_model::Prompt;

use crate::replay_command::request_bodies::BodyClients;

/// The function a body file calls; `report.js` defines it.
pub(crate) const BODY_CALLBACK: &str = "agentctxBody";

/// The file of the `request`-th body.
pub(crate) fn body_file_name(request: usize) -> String {
    format!("request-{request:04}.js")
}

/// What a session's page can offer of its bodies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WrittenBodies {
    /// Requests 1 to `through` have a body file.
    pub(crate) through: usize,
    /// Why the others have none, when some have none.
    pub(crate) missing_reason: Option<String>,
}

/// Writes a session's bodies into its folder, until its budget is spent.
pub(crate) struct BodyFiles {
    dir: PathBuf,
    client: Result<HttpModelClient, String>,
    budget: u64,
    written_bytes: u64,
    written: WrittenBodies,
    created: bool,
    stopped: bool,
}

impl BodyFiles {
    /// Bodies for `session` into `dir` (created at the first body), `budget` bytes at most;
    /// none without `clients` or a budget.
    pub(crate) fn new(
        dir: PathBuf,
        clients: Option<&BodyClients>,
        session: &Path,
        budget: u64,
    ) -> Self {
        let client = match clients {
            Some(clients) if budget > 0 => clients.client(session).map_err(|err| {
                format!("no request bodies: {}", crate::error_report::one_line(&err))
            }),
            _ => Err("request bodies are not written (--bodies-mb 0)".to_string()),
        };
        Self {
            dir,
            client,
            budget,
            written_bytes: 0,
            written: WrittenBodies::default(),
            created: false,
            stopped: false,
        }
    }

    /// The sink the replay tells of each request, when bodies can be written at all.
    pub(crate) fn as_sink(&mut self) -> Option<&mut dyn RequestSink> {
        if self.client.is_ok() {
            Some(self as &mut dyn RequestSink)
        } else {
            None
        }
    }

    /// What was written.
    pub(crate) fn finish(self) -> WrittenBodies {
        let mut written = self.written;
        if let Err(reason) = self.client {
            written.missing_reason = Some(reason);
        }
        written
    }
}

impl RequestSink for BodyFiles {
    fn request(&mut self, request: usize, prompt: &Prompt<'_>) -> std::io::Result<()> {
        let Ok(client) = &self.client else {
            return Ok(());
        };
        if self.stopped {
            return Ok(());
        }
        let body = client.request_body(prompt);
        let mut bytes = Vec::with_capacity(4096);
        write!(bytes, "{BODY_CALLBACK}({request},")?;
        serde_json::to_writer(&mut bytes, &body)?;
        bytes.extend_from_slice(b");\n");
        let total = self.written_bytes + u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if total > self.budget {
            self.stopped = true;
            self.written.missing_reason = Some(format!(
                "the bodies from request {request} on are past this session's share of the body budget (--bodies-mb)"
            ));
            return Ok(());
        }
        if !self.created {
            std::fs::create_dir_all(&self.dir)?;
            self.created = true;
        }
        std::fs::write(self.dir.join(body_file_name(request)), &bytes)?;
        self.written_bytes = total;
        self.written.through = request;
        Ok(())
    }
}
