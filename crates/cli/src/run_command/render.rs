//! How `agentctx run` shows a session's events: streaming text on stdout and tool activity on
//! stderr, or (`--json`) every `SessionEvent` as one JSON line on stdout.

use std::io::Write;

use agentctx_core::SessionEvent;

/// Prints events as they arrive.
#[derive(Debug)]
pub(crate) struct Renderer {
    json: bool,
    /// Text deltas were printed since the last complete message (so it is not printed twice).
    streamed: bool,
}

impl Renderer {
    pub(crate) fn new(json: bool) -> Self {
        Self {
            json,
            streamed: false,
        }
    }

    pub(crate) fn render(&mut self, event: &SessionEvent) -> std::io::Result<()> {
        if self.json {
            let mut stdout = std::io::stdout().lock();
            serde_json::to_writer(&mut stdout, event)?;
            stdout.write_all(b"\n")?;
            return stdout.flush();
        }
        match event {
            SessionEvent::TextDelta { delta } => {
                self.streamed = true;
                let mut stdout = std::io::stdout().lock();
                stdout.write_all(delta.as_bytes())?;
                stdout.flush()?;
            }
            SessionEvent::AssistantMessage { text } => {
                let mut stdout = std::io::stdout().lock();
                if !self.streamed {
                    stdout.write_all(text.as_bytes())?;
                }
                self.streamed = false;
                stdout.write_all(b"\n")?;
                stdout.flush()?;
            }
            SessionEvent::ToolCallStarted {
                name, arguments, ..
            } => {
                writeln!(std::io::stderr().lock(), "> {name} {arguments}")?;
            }
            SessionEvent::ToolCallCompleted { name, success, .. } => {
                let status = if *success { "ok" } else { "failed" };
                writeln!(std::io::stderr().lock(), "< {name} {status}")?;
            }
            SessionEvent::Warning { message } => {
                writeln!(std::io::stderr().lock(), "warning: {message}")?;
            }
            SessionEvent::McpServerUnavailable { server, reason } => {
                writeln!(
                    std::io::stderr().lock(),
                    "warning: MCP server `{server}` is unavailable, its tools are withdrawn: {reason}"
                )?;
            }
            SessionEvent::Loop(event) => {
                tracing::info!(?event, "session event");
            }
            SessionEvent::TurnAborted { .. } => {
                writeln!(std::io::stderr().lock(), "\nturn cancelled")?;
            }
            SessionEvent::TurnStarted { .. }
            | SessionEvent::RequestStarted { .. }
            | SessionEvent::ReasoningDelta { .. }
            | SessionEvent::TokenUsage { .. }
            | SessionEvent::TurnCompleted { .. } => {}
        }
        Ok(())
    }
}
