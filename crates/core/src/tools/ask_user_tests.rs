use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;

use super::*;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use crate::approval::Approver;
use crate::approval::FixedApprover;
use crate::tools::search_test_support::Project;

/// Answers every question with `answer`, and remembers what it was asked.
struct Answering {
    answer: Option<String>,
    asked: Mutex<Vec<UserQuestion>>,
}

#[async_trait]
impl Approver for Answering {
    async fn decide(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Denied
    }

    async fn ask(&self, question: &UserQuestion) -> Option<String> {
        self.asked.lock().unwrap().push(question.clone());
        self.answer.clone()
    }
}

#[tokio::test]
async fn the_answer_goes_back_to_the_model_and_the_question_to_the_approver() {
    let approver = Arc::new(Answering {
        answer: Some("  use SQLite  \n".to_string()),
        asked: Mutex::new(Vec::new()),
    });
    let project = Project::with_approver(Some(approver.clone()));
    let output = project
        .call(
            &AskUserTool,
            serde_json::json!({"question": "Which store?", "options": ["SQLite", "files"]}),
        )
        .await;
    assert_eq!(output, ToolOutput::ok("The user answered: use SQLite"));
    assert_eq!(
        *approver.asked.lock().unwrap(),
        vec![UserQuestion {
            question: "Which store?".to_string(),
            options: vec!["SQLite".to_string(), "files".to_string()],
        }]
    );
}

#[tokio::test]
async fn without_anyone_to_answer_the_call_is_refused_with_a_way_forward() {
    let nobody = Project::new();
    let output = nobody
        .call(
            &AskUserTool,
            serde_json::json!({"question": "Which store?"}),
        )
        .await;
    assert_eq!(output, ToolOutput::error(NO_ONE_TO_ASK));
    // An approver that cannot ask (the default of the trait) is the same as none.
    let fixed = Project::with_approver(Some(Arc::new(FixedApprover(ApprovalDecision::Approved))));
    let output = fixed
        .call(
            &AskUserTool,
            serde_json::json!({"question": "Which store?"}),
        )
        .await;
    assert_eq!(output, ToolOutput::error(NO_ONE_TO_ASK));
}

#[tokio::test]
async fn empty_questions_and_too_many_options_are_tool_errors() {
    let project = Project::new();
    let empty = project
        .call(&AskUserTool, serde_json::json!({"question": "  "}))
        .await;
    assert_eq!(
        empty,
        ToolOutput::error("Error: ask_user: the question is empty")
    );
    let options: Vec<String> = (0..=MAX_QUESTION_OPTIONS).map(|n| n.to_string()).collect();
    let many = project
        .call(
            &AskUserTool,
            serde_json::json!({"question": "Pick", "options": options}),
        )
        .await;
    assert_eq!(
        many,
        ToolOutput::error(format!(
            "Error: ask_user: at most {MAX_QUESTION_OPTIONS} options"
        ))
    );
}
