use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::approval::ApprovalAnswer;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalPolicy;
use crate::approval::ApprovalRequest;
use crate::approval::Approver;
use crate::session_state::SessionState;
use crate::tools::BeforeCall;
use crate::tools::ToolCall;
use crate::tools::ToolCallInterceptor;
use crate::tools::ToolContext;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;
use crate::tools::WriteFileTool;

fn args(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_pre_tool_use_input_replaces_the_arguments_and_its_file_path_is_the_path() {
    let original = r#"{"path": "a.txt", "content": "x"}"#;
    // The whole input as the hook saw it, `file_path` changed.
    let updated = updated_arguments(
        original,
        &json!({"path": "a.txt", "file_path": "b.txt", "content": "y"}),
        false,
    );
    assert_eq!(
        args(&updated.unwrap()),
        json!({"path": "b.txt", "content": "y"})
    );
    // Claude Code's shape alone.
    let updated = updated_arguments(original, &json!({"file_path": "c.txt"}), false);
    assert_eq!(args(&updated.unwrap()), json!({"path": "c.txt"}));
    // `path` changed, `file_path` left as shown.
    let updated = updated_arguments(
        original,
        &json!({"path": "d.txt", "file_path": "a.txt", "content": "x"}),
        false,
    );
    assert_eq!(
        args(&updated.unwrap()),
        json!({"path": "d.txt", "content": "x"})
    );
    assert_eq!(updated_arguments(original, &json!("rm -rf /"), false), None);
}

#[test]
fn a_permission_request_input_keeps_what_the_hook_did_not_see() {
    let original = r#"{"command": "npm test", "timeout_ms": 1000}"#;
    let updated = updated_arguments(original, &json!({"command": "npm test -- --ci"}), true);
    assert_eq!(
        args(&updated.unwrap()),
        json!({"command": "npm test -- --ci", "timeout_ms": 1000})
    );
}

struct Fixture {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
}

fn context(policy: ApprovalPolicy, approver: Option<Arc<dyn Approver>>) -> (Fixture, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let ctx = ToolContext {
        cwd: cwd.clone(),
        home: cwd.join(".home"),
        plans_dir: cwd.join(".plans"),
        state: Arc::new(Mutex::new(SessionState::default())),
        approval: policy,
        approver,
        observers: Vec::new(),
        events: None,
        cancel: CancellationToken::new(),
        subagents: None,
        turn: 1,
        call_approval: Arc::default(),
    };
    (Fixture { _dir: dir, cwd }, ctx)
}

/// Answers every request with `answer`, and records what it was asked.
struct Scripted {
    answer: ApprovalAnswer,
    asked: Mutex<Vec<ApprovalRequest>>,
}

#[async_trait]
impl Approver for Scripted {
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.answer(request).await.decision
    }

    async fn answer(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.asked.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

fn scripted(answer: ApprovalAnswer) -> Arc<Scripted> {
    Arc::new(Scripted {
        answer,
        asked: Mutex::new(Vec::new()),
    })
}

/// Rewrites every call's content, approves it, records the call ids and arguments it saw, and
/// replaces the output afterwards.
#[derive(Default)]
struct Rewriter {
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl ToolCallInterceptor for Rewriter {
    async fn before_call(&self, ctx: &ToolContext, call: ToolCall<'_>) -> BeforeCall {
        self.seen
            .lock()
            .unwrap()
            .push(format!("before {} {}", call.call_id, call.arguments));
        ctx.call_approval.approve();
        BeforeCall::Rewrite(r#"{"path": "a.txt", "content": "rewritten"}"#.to_owned())
    }

    async fn after_call(&self, _ctx: &ToolContext, call: ToolCall<'_>, output: &mut ToolOutput) {
        self.seen
            .lock()
            .unwrap()
            .push(format!("after {} {}", call.call_id, call.arguments));
        output.text = format!("replaced: {}", output.text);
    }
}

fn registry(interceptor: Option<Arc<dyn ToolCallInterceptor>>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(WriteFileTool));
    if let Some(interceptor) = interceptor {
        registry.add_interceptor(interceptor);
    }
    registry
}

#[tokio::test]
async fn an_interceptor_rewrites_and_approves_the_call_and_replaces_its_output() {
    let approver = scripted(ApprovalDecision::Denied.into());
    let (f, ctx) = context(ApprovalPolicy::OnRequest, Some(approver.clone()));
    let rewriter = Arc::new(Rewriter::default());
    let registry = registry(Some(rewriter.clone()));
    let output = registry
        .dispatch(
            &ctx,
            "call_7",
            "write_file",
            r#"{"path": "a.txt", "content": "original"}"#,
        )
        .await;
    assert_eq!(output.text, "replaced: Wrote 9 bytes to a.txt");
    assert_eq!(
        std::fs::read_to_string(f.cwd.join("a.txt")).unwrap(),
        "rewritten"
    );
    // Approved before it ran: the approver was not asked.
    assert!(approver.asked.lock().unwrap().is_empty());
    assert_eq!(
        *rewriter.seen.lock().unwrap(),
        vec![
            r#"before call_7 {"path": "a.txt", "content": "original"}"#.to_owned(),
            r#"after call_7 {"path": "a.txt", "content": "rewritten"}"#.to_owned(),
        ]
    );
    // The approval was the call's own: the context it was dispatched with is untouched.
    assert!(!ctx.call_approval.is_approved());
}

#[tokio::test]
async fn an_approval_with_other_input_runs_the_call_again_with_it() {
    let approver = scripted(ApprovalAnswer {
        updated_input: Some(json!({"content": "from the hook"})),
        ..ApprovalDecision::Approved.into()
    });
    let (f, ctx) = context(ApprovalPolicy::OnRequest, Some(approver.clone()));
    let output = registry(None)
        .dispatch(
            &ctx,
            "call_1",
            "write_file",
            r#"{"path": "a.txt", "content": "from the model"}"#,
        )
        .await;
    assert!(output.success, "{}", output.text);
    assert_eq!(
        std::fs::read_to_string(f.cwd.join("a.txt")).unwrap(),
        "from the hook"
    );
    // Asked once: the second run was approved already.
    assert_eq!(approver.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_denial_message_reaches_the_model_and_never_refuses_a_preapproved_call() {
    let approver = scripted(ApprovalAnswer {
        message: Some("not on a Friday".to_owned()),
        ..ApprovalDecision::Denied.into()
    });
    let (_f, ctx) = context(ApprovalPolicy::OnRequest, Some(approver));
    let output = registry(None)
        .dispatch(
            &ctx,
            "call_1",
            "write_file",
            r#"{"path": "a.txt", "content": "x"}"#,
        )
        .await;
    assert_eq!(
        output.text,
        "Error: the user did not approve writing a.txt\nReason: not on a Friday"
    );
    // The policy `Never` refuses even a call a hook approved.
    let (_f, ctx) = context(ApprovalPolicy::Never, None);
    let rewriter: Arc<dyn ToolCallInterceptor> = Arc::new(Rewriter::default());
    let output = registry(Some(rewriter))
        .dispatch(&ctx, "call_2", "write_file", "{}")
        .await;
    assert_eq!(
        output.text,
        "replaced: Error: the user did not approve writing a.txt"
    );
}
