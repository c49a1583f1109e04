//! How `agentctx run` shows a session's events: streaming text on stdout, tool activity and
//! compactions on stderr (a full compaction waits on a model request, seconds on a local model,
//! so its start and end are shown), or (`--json`) every `SessionEvent` as one JSON line on
//! stdout.

use std::io::Write;

use agentctx_core::SessionEvent;
use agentctx_protocol::LoopEvent;

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

    /// The answer of a slash command (`/help`, `/context`, a forked skill's report): the text
    /// on stdout, or one `{"type": "command_output", "text": …}` line with `--json`.
    pub(crate) fn command_output(&mut self, text: &str) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        if self.json {
            serde_json::to_writer(
                &mut stdout,
                &serde_json::json!({"type": "command_output", "text": text}),
            )?;
            stdout.write_all(b"\n")?;
        } else {
            stdout.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                stdout.write_all(b"\n")?;
            }
        }
        stdout.flush()
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
            // The engine's decisions are for `--json` and the logs; a compaction they ask for is
            // shown by its own events.
            SessionEvent::Decision(decision) => tracing::debug!(?decision, "engine decision"),
            SessionEvent::Loop(event) => match compaction_line(event) {
                Some(line) => writeln!(std::io::stderr().lock(), "{line}")?,
                None => tracing::info!(?event, "session event"),
            },
            SessionEvent::OutputTruncated {
                reason,
                cut_tool_calls,
                continuing,
                continuation,
                max_continuations,
            } => {
                let mut stdout = std::io::stdout().lock();
                if self.streamed {
                    // The cut text ends mid-line.
                    stdout.write_all(b"\n")?;
                    stdout.flush()?;
                }
                writeln!(
                    std::io::stderr().lock(),
                    "{}",
                    truncation_line(
                        reason,
                        *cut_tool_calls,
                        *continuing,
                        *continuation,
                        *max_continuations
                    )
                )?;
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

/// The stderr line of a compaction event; `None` for the other loop events (plan mode has its
/// own tool output, thinking is not shown).
pub(crate) fn compaction_line(event: &LoopEvent) -> Option<String> {
    match event {
        LoopEvent::CompactionStarted => {
            Some("compacting the conversation (summarising older messages)...".to_string())
        }
        LoopEvent::CompactionCompleted {
            removed_messages,
            summary_tokens,
        } => Some(format!(
            "compacted: {removed_messages} messages replaced by a summary of {summary_tokens} tokens"
        )),
        LoopEvent::MicroCompactionApplied { removed_results } => Some(format!(
            "compacted: {removed_results} old tool results cleared"
        )),
        LoopEvent::SessionMemoryCompactApplied {
            saved_tokens,
            summary_tokens,
        } => Some(format!(
            "compacted from session memory: {saved_tokens} tokens saved, summary of {summary_tokens} tokens"
        )),
        LoopEvent::PlanModeEntered { .. }
        | LoopEvent::PlanModeExited { .. }
        | LoopEvent::ThinkingDelta { .. }
        | LoopEvent::ThinkingComplete { .. } => None,
    }
}

/// The stderr notice of an answer cut at the output limit.
pub(crate) fn truncation_line(
    reason: &str,
    cut_tool_calls: usize,
    continuing: bool,
    continuation: u32,
    max_continuations: u32,
) -> String {
    let mut line = format!("the answer stopped at the model's output limit ({reason})");
    if cut_tool_calls > 0 {
        let plural = if cut_tool_calls == 1 { "" } else { "s" };
        line.push_str(&format!(
            "; {cut_tool_calls} tool call{plural} cut short, not run"
        ));
    }
    if continuing {
        line.push_str(&format!(
            "; asking it to continue ({continuation} of {max_continuations})"
        ));
    } else {
        line.push_str("; no continuation left, the answer is incomplete");
    }
    line
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
