//! The decision control of the tool hooks, live (Claude Code's hooks reference, "PreToolUse
//! decision control", "PermissionRequest decision control", "PostToolUse decision control",
//! <https://code.claude.com/docs/en/hooks>): a `PreToolUse` hook's `updatedInput` and
//! `allow` / `ask` / `defer`, a `PermissionRequest` hook's `updatedInput`,
//! `updatedPermissions`, `message` and `interrupt`, a `PostToolUse` hook's
//! `updatedToolOutput` and `updatedMCPToolOutput`, each changing what the live tool path does;
//! and the call's `tool_use_id` in the per-call inputs.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_core::ApprovalDecision;
use agentctx_core::ApprovalPolicy;
use agentctx_core::ApprovalRequest;
use agentctx_core::Approver;
use agentctx_core::FixedApprover;
use agentctx_core::HookCommand;
use agentctx_core::HookMatcher;
use agentctx_core::McpConnectionManager;
use agentctx_core::Session;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::hooks_events::capture;
use super::hooks_events::captured;
use super::mcp::rmcp_server;
use super::support::dirs;
use super::support::drain;
use super::support::options;
use super::support::warnings;

fn hook(matcher: &str, command: String) -> HookMatcher {
    HookMatcher {
        matcher: Some(matcher.to_owned()),
        hooks: vec![HookCommand::shell(command)],
    }
}

/// A hook that logs its input to `log` and prints `output`.
fn logging_hook(matcher: &str, log: &std::path::Path, output: &str) -> HookMatcher {
    hook(
        matcher,
        format!(
            "input=$(cat); printf '%s\\n' \"$input\" >> '{}'; echo '{output}'",
            log.display()
        ),
    )
}

/// What the model read of each call, in order, from the session's history.
fn outputs(session: &Session) -> Vec<String> {
    session
        .history()
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { output, .. } => Some(output.text_content()),
            _ => None,
        })
        .collect()
}

/// Answers with `answers` in order (then refuses), and records what it was asked.
struct Recording {
    answers: Mutex<Vec<ApprovalDecision>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Recording {
    fn new(answers: &[ApprovalDecision]) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.iter().rev().copied().collect()),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait]
impl Approver for Recording {
    async fn decide(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.asked.lock().unwrap().push(request.clone());
        self.answers
            .lock()
            .unwrap()
            .pop()
            .unwrap_or(ApprovalDecision::Denied)
    }
}

/// A `PreToolUse` command hook rewrites a write with `updatedInput` and allows it: the tool
/// writes what the hook said where it said, without asking the approver (who would refuse);
/// the hooks' inputs carry the call's `tool_use_id`, and `PostToolUse` sees the input the call
/// ran with.
#[tokio::test]
async fn a_pre_tool_use_hook_rewrites_the_input_and_the_tool_runs_with_it() {
    let dirs = dirs();
    let (pre_log, post_log) = (dirs.home.join("pre.jsonl"), dirs.home.join("post.jsonl"));
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_write_1",
        "write_file",
        r#"{"path": "a.txt", "content": "from the model\n"}"#,
    ));
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.approval = ApprovalPolicy::OnRequest;
    options.approver = Some(Arc::new(FixedApprover(ApprovalDecision::Denied)));
    let decision = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "writes go to b.txt", "updatedInput": {"file_path": "b.txt", "content": "from the hook\n"}}}"#;
    options.hooks.events.insert(
        "PreToolUse".to_owned(),
        vec![logging_hook("Write", &pre_log, decision)],
    );
    options
        .hooks
        .events
        .insert("PostToolUse".to_owned(), vec![capture(&post_log)]);
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("write a.txt", &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(
        std::fs::read_to_string(dirs.cwd.join("b.txt")).unwrap(),
        "from the hook\n"
    );
    assert!(!dirs.cwd.join("a.txt").exists());
    assert_eq!(
        outputs(&session),
        vec!["Wrote 14 bytes to b.txt".to_owned()]
    );
    assert_eq!(
        warnings(drain(&mut events)),
        vec!["a PreToolUse hook allowed Write: writes go to b.txt".to_owned()]
    );
    let pre = captured(&pre_log, &dirs, &session);
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["tool_use_id"], "call_write_1");
    assert_eq!(pre[0]["tool_input"]["file_path"], "a.txt");
    let post = captured(&post_log, &dirs, &session);
    assert_eq!(post.len(), 1);
    assert_eq!(post[0]["tool_use_id"], "call_write_1");
    assert_eq!(
        post[0]["tool_input"],
        json!({"path": "b.txt", "file_path": "b.txt", "content": "from the hook\n"})
    );
}

/// `ask` asks the approver even under auto-approval, showing the input the call will run with
/// (after `updatedInput`) and the hook's reason; a yes runs it, a no refuses it.
#[tokio::test]
async fn a_pre_tool_use_ask_shows_the_updated_input_to_the_user() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("public.txt"), "public\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    for id in ["call_read_1", "call_read_2"] {
        model.push(ScriptedResponse::new().with_function_call(
            id,
            "read_file",
            r#"{"path": "secret.txt"}"#,
        ));
    }
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let approver = Recording::new(&[ApprovalDecision::Approved, ApprovalDecision::Denied]);
    options.approver = Some(approver.clone());
    let decision = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "secrets are swapped for public.txt", "updatedInput": {"path": "public.txt"}}}"#;
    options.hooks.events.insert(
        "PreToolUse".to_owned(),
        vec![logging_hook("Read", &dirs.home.join("pre.jsonl"), decision)],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("read the secret", &CancellationToken::new())
        .await
        .unwrap();

    let asked = ApprovalRequest::ToolCall {
        tool: "Read".to_owned(),
        input: json!({"path": "public.txt", "file_path": "public.txt"}),
        reason: Some("secrets are swapped for public.txt".to_owned()),
    };
    assert_eq!(approver.asked(), vec![asked.clone(), asked]);
    let outputs = outputs(&session);
    assert!(outputs[0].contains("public"), "{outputs:?}");
    insta::assert_snapshot!("pre_tool_use_ask_refused", outputs[1]);
}

/// A `PermissionRequest` hook allows a command with `updatedInput` (the command that runs) and
/// `updatedPermissions` (a session allow rule: the next matching command is approved without
/// the hook or the user), and denies another with a `message` the model reads and `interrupt`,
/// which ends the turn.
#[tokio::test]
async fn a_permission_request_hook_rewrites_adds_a_rule_and_interrupts() {
    let dirs = dirs();
    let log = dirs.home.join("permission.jsonl");
    let model = ScriptedModelClient::new("test-model");
    for (id, command) in [
        ("call_1", "npm test"),
        ("call_2", "echo again"),
        ("call_3", "rm -rf build"),
    ] {
        model.push(ScriptedResponse::new().with_function_call(
            id,
            "shell",
            json!({ "command": command }).to_string(),
        ));
    }
    model.push(ScriptedResponse::text("never requested"));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.approval = ApprovalPolicy::OnRequest;
    let approver = Recording::new(&[]);
    options.approver = Some(approver.clone());
    let script = format!(
        r#"input=$(cat); printf '%s\n' "$input" >> '{}'
if echo "$input" | grep -q 'npm test'; then
  echo '{{"hookSpecificOutput": {{"hookEventName": "PermissionRequest", "decision": {{"behavior": "allow", "updatedInput": {{"command": "echo rewritten"}}, "updatedPermissions": [{{"type": "addRules", "rules": [{{"toolName": "Bash", "ruleContent": "echo again"}}], "behavior": "allow", "destination": "session"}}]}}}}}}'
elif echo "$input" | grep -q 'rm -rf'; then
  echo '{{"hookSpecificOutput": {{"hookEventName": "PermissionRequest", "decision": {{"behavior": "deny", "message": "no rm -rf here", "interrupt": true}}}}}}'
fi"#,
        log.display()
    );
    options
        .hooks
        .events
        .insert("PermissionRequest".to_owned(), vec![hook("Bash", script)]);
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("test and clean", &CancellationToken::new())
        .await
        .unwrap();

    let outputs = outputs(&session);
    assert!(outputs[0].contains("rewritten"), "{outputs:?}");
    assert!(outputs[1].contains("again"), "{outputs:?}");
    insta::assert_snapshot!("permission_request_denied_with_message", outputs[2]);
    // The rule answered for `echo again`: the hook saw two requests, the user none.
    let requests = captured(&log, &dirs, &session);
    let commands: Vec<&str> = requests
        .iter()
        .map(|input| input["tool_input"]["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, vec!["npm test", "rm -rf build"]);
    assert_eq!(approver.asked(), Vec::new());
    // `interrupt`: no request after the denied call.
    assert_eq!(model.prompts().len(), 3);
}

/// `PostToolUse`'s `updatedToolOutput` replaces a built-in tool's output and
/// `updatedMCPToolOutput` an MCP tool's; the latter is ignored for a built-in tool.
#[tokio::test]
async fn post_tool_use_hooks_replace_what_the_model_reads() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "api_key=hunter2\n").unwrap();
    let servers = BTreeMap::from([("local".to_owned(), rmcp_server(&[]))]);
    let manager = McpConnectionManager::start(&servers, &dirs.cwd).await;
    let model = ScriptedModelClient::new("test-model");
    model.push(
        ScriptedResponse::new()
            .with_function_call("call_read", "read_file", r#"{"path": "a.txt"}"#)
            .with_function_call("call_ls", "list_dir", r#"{"path": "."}"#)
            .with_function_call("call_add", "mcp__local__add", r#"{"a": 2, "b": 40}"#),
    );
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    let log = dirs.home.join("post.jsonl");
    options.hooks.events.insert(
        "PostToolUse".to_owned(),
        vec![
            logging_hook(
                "Read",
                &log,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted by a hook]"}}"#,
            ),
            logging_hook(
                "mcp__local__add",
                &log,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {"sum": "hidden"}}}"#,
            ),
            logging_hook(
                "LS",
                &log,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "not for built-in tools"}}"#,
            ),
        ],
    );
    let (mut session, _events) = Session::new(options).unwrap();
    session.attach_mcp(Arc::new(manager));
    session
        .run_turn("look around", &CancellationToken::new())
        .await
        .unwrap();

    let outputs = outputs(&session);
    assert_eq!(outputs[0], "[redacted by a hook]");
    assert!(outputs[1].contains("a.txt"), "{outputs:?}");
    assert_eq!(outputs[2], r#"{"sum":"hidden"}"#);
    let mut ids: Vec<String> = captured(&log, &dirs, &session)
        .iter()
        .map(|input| input["tool_use_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    assert_eq!(ids, vec!["call_add", "call_ls", "call_read"]);
}

/// `defer` is for `claude -p` integrations that resume a parked call; agentctx has none, so it
/// is ignored with a warning, as Claude Code ignores it in interactive sessions.
#[tokio::test]
async fn a_pre_tool_use_defer_is_ignored_with_a_warning() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_1",
        "read_file",
        r#"{"path": "a.txt"}"#,
    ));
    model.push(ScriptedResponse::text("Done."));
    let mut options = options(&dirs, Arc::new(model.clone()));
    options.memory.generate_memories = false;
    options.hooks.events.insert(
        "PreToolUse".to_owned(),
        vec![logging_hook(
            "Read",
            &dirs.home.join("pre.jsonl"),
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#,
        )],
    );
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("read a.txt", &CancellationToken::new())
        .await
        .unwrap();

    assert!(outputs(&session)[0].contains("alpha"));
    insta::assert_snapshot!(
        "pre_tool_use_defer_warning",
        warnings(drain(&mut events)).join("\n")
    );
}
