//! `ask_user`: the model asks the user a question and waits for the answer (Claude Code's
//! `AskUserQuestion`, which the plan-mode instructions tell the model to use).
//!
//! The session's [`Approver`](crate::approval::Approver) asks: the CLI on the terminal in line
//! mode. When no one can answer (no approver, or one that cannot ask: a non-interactive run, a
//! subagent), the call is refused with a message telling the model to go on without an answer,
//! never left waiting.

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use crate::approval::UserQuestion;

/// The most options a question may offer.
pub(crate) const MAX_QUESTION_OPTIONS: usize = 8;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    question: String,
    #[serde(default)]
    options: Vec<String>,
}

/// Asks the user a question (read-only: it changes nothing).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AskUserTool;

/// What the model reads when no one can answer.
pub(crate) const NO_ONE_TO_ASK: &str = "Error: no one can answer questions in this session (it is not interactive). Do not wait for an answer: make the most reasonable assumption, say which one you made, and go on.";

#[async_trait]
impl ToolHandler for AskUserTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "ask_user".to_string(),
            description: "Asks the user a question and returns the answer (this is the AskUserQuestion tool that plan-mode instructions name). Use it to clarify requirements or to choose between approaches; offer the likely answers as options. Do not use it to ask for plan approval (call exit_plan_mode).".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The question, complete and specific"},
                    "options": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_QUESTION_OPTIONS, "description": "Suggested answers (the user may answer otherwise)"}
                },
                "required": ["question"],
                "additionalProperties": false
            }),
        }
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("ask_user", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let question = args.question.trim();
        if question.is_empty() {
            return ToolOutput::error("Error: ask_user: the question is empty");
        }
        if args.options.len() > MAX_QUESTION_OPTIONS {
            return ToolOutput::error(format!(
                "Error: ask_user: at most {MAX_QUESTION_OPTIONS} options"
            ));
        }
        let Some(approver) = &ctx.approver else {
            return ToolOutput::error(NO_ONE_TO_ASK);
        };
        let asked = UserQuestion {
            question: question.to_string(),
            options: args.options,
        };
        let answer = tokio::select! {
            answer = approver.ask(&asked) => answer,
            () = ctx.cancel.cancelled() => return ToolOutput::error("Error: ask_user: the turn was cancelled before the user answered"),
        };
        match answer {
            Some(answer) if !answer.trim().is_empty() => {
                ToolOutput::ok(format!("The user answered: {}", answer.trim()))
            }
            Some(_) => ToolOutput::ok(
                "The user gave no answer (an empty line). Go on with the most reasonable assumption and say which one you made.",
            ),
            None => ToolOutput::error(NO_ONE_TO_ASK),
        }
    }
}

#[cfg(test)]
#[path = "ask_user_tests.rs"]
mod tests;
