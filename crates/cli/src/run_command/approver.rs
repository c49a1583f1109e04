//! The terminal's answer to approval requests: `agentctx run` shows the command or the write
//! and asks y/n on the terminal. With stdin not a terminal (a pipe, a script) nobody can answer,
//! so every request is refused with a message saying to pass `--yes`; nothing hangs.

use std::io::BufRead as _;
use std::io::Write as _;

use agentctx_core::ApprovalDecision;
use agentctx_core::ApprovalRequest;
use agentctx_core::Approver;
use agentctx_core::UserQuestion;
use async_trait::async_trait;

/// Asks on the terminal (stderr for the question, stdin for the answer).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TerminalApprover;

/// Refuses every request: stdin is not a terminal and `--yes` was not given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NonInteractiveApprover;

/// What the request shows the user.
pub(crate) fn describe(request: &ApprovalRequest) -> String {
    match request {
        ApprovalRequest::Shell { command } => format!("run the shell command `{command}`"),
        ApprovalRequest::Write { path, tool } => {
            format!("{tool} {}", path.display())
        }
        ApprovalRequest::Plan { plan_file, plan } => format!(
            "leave plan mode and implement the plan in {}:\n{}",
            plan_file.display(),
            plan.trim_end()
        ),
        ApprovalRequest::ToolCall {
            tool,
            input,
            reason,
        } => {
            let reason = reason
                .as_deref()
                .map(|reason| format!(" ({reason})"))
                .unwrap_or_default();
            format!("use {tool} with {input}{reason}")
        }
    }
}

#[async_trait]
impl Approver for TerminalApprover {
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let question = format!("\nallow: {}? [y/N] ", describe(request));
        let answer = tokio::task::spawn_blocking(move || {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(question.as_bytes());
            let _ = stderr.flush();
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map(|_| line)
        })
        .await;
        match answer {
            Ok(Ok(line)) if matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {
                ApprovalDecision::Approved
            }
            _ => ApprovalDecision::Denied,
        }
    }

    /// Shows the model's question and its options (numbered) on stderr and reads one line: a
    /// number picks that option, anything else is the answer as typed. End of input (Ctrl-D)
    /// or a read error means no answer.
    async fn ask(&self, question: &UserQuestion) -> Option<String> {
        let shown = render_question(question);
        let options = question.options.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(shown.as_bytes());
            let _ = stderr.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line),
            }
        })
        .await
        .ok()
        .flatten()?;
        Some(pick_option(&answer, &options))
    }
}

/// The question as the terminal shows it.
pub(crate) fn render_question(question: &UserQuestion) -> String {
    let mut shown = format!("\nquestion: {}\n", question.question.trim());
    for (index, option) in question.options.iter().enumerate() {
        shown.push_str(&format!("  {}. {option}\n", index + 1));
    }
    shown.push_str(if question.options.is_empty() {
        "answer: "
    } else {
        "answer (a number or your own words): "
    });
    shown
}

/// The answer `typed`: the option it numbers, else the text itself (trimmed).
pub(crate) fn pick_option(typed: &str, options: &[String]) -> String {
    let typed = typed.trim();
    typed
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_sub(1))
        .and_then(|index| options.get(index))
        .cloned()
        .unwrap_or_else(|| typed.to_string())
}

#[async_trait]
impl Approver for NonInteractiveApprover {
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let _ = writeln!(
            std::io::stderr().lock(),
            "refused: {} needs approval, but stdin is not a terminal to ask on (pass --yes or --approval auto to allow)",
            describe(request)
        );
        ApprovalDecision::Denied
    }
}

#[cfg(test)]
#[path = "approver_tests.rs"]
mod tests;
