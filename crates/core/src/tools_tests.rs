use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_model::ToolSpec;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::TodoStatus;
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::approval::FixedApprover;

struct Fixture {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    ctx: ToolContext,
    events: tokio::sync::mpsc::UnboundedReceiver<SessionEvent>,
}

fn fixture(policy: ApprovalPolicy, approver: Option<ApprovalDecision>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    let home = dir.path().join("home");
    let (tx, events) = tokio::sync::mpsc::unbounded_channel();
    let ctx = ToolContext {
        cwd: cwd.clone(),
        plans_dir: home.join("plans"),
        home,
        state: Arc::new(Mutex::new(SessionState::default())),
        approval: policy,
        approver: approver.map(|decision| Arc::new(FixedApprover(decision)) as Arc<dyn Approver>),
        observers: Vec::new(),
        events: Some(tx),
        cancel: CancellationToken::new(),
        subagents: None,
        turn: 1,
        call_approval: std::sync::Arc::default(),
    };
    Fixture {
        _dir: dir,
        cwd,
        ctx,
        events,
    }
}

async fn call(ctx: &ToolContext, name: &str, args: serde_json::Value) -> ToolOutput {
    let registry = ToolRegistry::with_builtin_tools();
    registry
        .get(name)
        .unwrap()
        .handle(ctx, &args.to_string())
        .await
}

#[tokio::test]
async fn read_file_numbers_lines_and_pages() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    std::fs::write(f.cwd.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let all = call(&f.ctx, "read_file", serde_json::json!({"path": "a.txt"})).await;
    assert_eq!(
        all,
        ToolOutput::ok("     1\tone\n     2\ttwo\n     3\tthree\n")
    );
    let page = call(
        &f.ctx,
        "read_file",
        serde_json::json!({"path": "a.txt", "offset": 2, "limit": 1}),
    )
    .await;
    assert_eq!(
        page,
        ToolOutput::ok("     2\ttwo\n... 1 more lines; read on with offset 3\n")
    );
    let missing = call(&f.ctx, "read_file", serde_json::json!({"path": "nope.txt"})).await;
    assert!(!missing.success);
}

#[tokio::test]
async fn edit_file_needs_one_exact_match() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    std::fs::write(f.cwd.join("a.rs"), "let x = 1;\nlet x = 1;\nlet y = 2;\n").unwrap();
    let twice = call(
        &f.ctx,
        "edit_file",
        serde_json::json!({"path": "a.rs", "old_string": "let x = 1;", "new_string": "let x = 3;"}),
    )
    .await;
    assert!(!twice.success);
    assert!(twice.text.contains("occurs 2 times"), "{}", twice.text);
    let none = call(
        &f.ctx,
        "edit_file",
        serde_json::json!({"path": "a.rs", "old_string": "let z", "new_string": "q"}),
    )
    .await;
    assert!(none.text.contains("not found"), "{}", none.text);
    let once = call(
        &f.ctx,
        "edit_file",
        serde_json::json!({"path": "a.rs", "old_string": "let y = 2;", "new_string": "let y = 5;"}),
    )
    .await;
    assert!(once.success, "{}", once.text);
    assert_eq!(
        std::fs::read_to_string(f.cwd.join("a.rs")).unwrap(),
        "let x = 1;\nlet x = 1;\nlet y = 5;\n"
    );
}

#[tokio::test]
async fn writes_and_shell_need_approval() {
    let f = fixture(ApprovalPolicy::OnRequest, Some(ApprovalDecision::Denied));
    let write = call(
        &f.ctx,
        "write_file",
        serde_json::json!({"path": "new.txt", "content": "x"}),
    )
    .await;
    assert!(!write.success);
    assert!(!f.cwd.join("new.txt").exists());
    let shell = call(
        &f.ctx,
        "shell",
        serde_json::json!({"command": "touch made.txt"}),
    )
    .await;
    assert!(!shell.success);
    assert!(!f.cwd.join("made.txt").exists());

    // No approver to ask: refused, never run silently.
    let nobody = fixture(ApprovalPolicy::OnRequest, None);
    let shell = call(
        &nobody.ctx,
        "shell",
        serde_json::json!({"command": "touch made.txt"}),
    )
    .await;
    assert!(!shell.success);
    assert!(!nobody.cwd.join("made.txt").exists());

    let approved = fixture(ApprovalPolicy::OnRequest, Some(ApprovalDecision::Approved));
    let write = call(
        &approved.ctx,
        "write_file",
        serde_json::json!({"path": "dir/new.txt", "content": "hello"}),
    )
    .await;
    assert!(write.success, "{}", write.text);
    assert_eq!(
        std::fs::read_to_string(approved.cwd.join("dir/new.txt")).unwrap(),
        "hello"
    );
}

#[tokio::test]
async fn path_escapes_are_tool_errors() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    for path in ["../outside.txt", "/etc/hosts"] {
        let read = call(&f.ctx, "read_file", serde_json::json!({"path": path})).await;
        assert!(!read.success);
        assert!(
            read.text.contains("outside the working directory"),
            "{}",
            read.text
        );
        let write = call(
            &f.ctx,
            "write_file",
            serde_json::json!({"path": path, "content": "x"}),
        )
        .await;
        assert!(!write.success);
    }
}

#[tokio::test]
async fn persisted_tool_results_and_memories_are_readable_but_not_writable() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let results = f.ctx.home.join("tool-results");
    let memories = f.ctx.home.join("memories");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::create_dir_all(&memories).unwrap();
    let persisted = results.join("call_7.txt");
    std::fs::write(&persisted, "needle in the whole output\n").unwrap();
    std::fs::write(memories.join("MEMORY.md"), "- the user prefers tabs\n").unwrap();

    // The path a `<persisted-output path=…>` marker names reads.
    let read = call(
        &f.ctx,
        "read_file",
        serde_json::json!({"path": persisted.to_str().unwrap()}),
    )
    .await;
    assert!(read.success, "{}", read.text);
    assert!(
        read.text.contains("needle in the whole output"),
        "{}",
        read.text
    );
    // grep searches the memory folder.
    let grep = call(
        &f.ctx,
        "grep",
        serde_json::json!({"pattern": "tabs", "path": memories.to_str().unwrap()}),
    )
    .await;
    assert!(grep.success, "{}", grep.text);
    assert!(grep.text.contains("MEMORY.md"), "{}", grep.text);
    // Nothing writes there.
    let write = call(
        &f.ctx,
        "write_file",
        serde_json::json!({"path": persisted.to_str().unwrap(), "content": "x"}),
    )
    .await;
    assert!(!write.success);
    assert!(
        write.text.contains("outside the working directory"),
        "{}",
        write.text
    );
    // The rest of the home stays refused.
    let config = f.ctx.home.join("config.toml");
    std::fs::write(&config, "model = \"x\"\n").unwrap();
    let refused = call(
        &f.ctx,
        "read_file",
        serde_json::json!({"path": config.to_str().unwrap()}),
    )
    .await;
    assert!(!refused.success, "{}", refused.text);
}

#[tokio::test]
async fn shell_runs_in_foreground_and_background() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let out = call(&f.ctx, "shell", serde_json::json!({"command": "echo hi"})).await;
    assert_eq!(
        out,
        ToolOutput::ok("exit_code: 0\nstdout:\nhi\n\nstderr:\n")
    );
    let failed = call(&f.ctx, "shell", serde_json::json!({"command": "exit 4"})).await;
    assert!(!failed.success);
    assert!(failed.text.starts_with("exit_code: 4"), "{}", failed.text);

    let started = call(
        &f.ctx,
        "shell",
        serde_json::json!({"command": "echo bg; sleep 600", "run_in_background": true}),
    )
    .await;
    assert!(started.text.contains("shell_1"), "{}", started.text);
    let mut seen = String::new();
    for _ in 0..200 {
        let out = call(
            &f.ctx,
            "bash_output",
            serde_json::json!({"shell_id": "shell_1"}),
        )
        .await;
        seen.push_str(&out.text);
        if seen.contains("bg\n") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(seen.contains("<status>running</status>"), "{seen}");
    let killed = call(
        &f.ctx,
        "kill_shell",
        serde_json::json!({"shell_id": "shell_1"}),
    )
    .await;
    assert_eq!(killed, ToolOutput::ok("Killed shell_1"));
    let unknown = call(
        &f.ctx,
        "bash_output",
        serde_json::json!({"shell_id": "shell_9"}),
    )
    .await;
    assert!(!unknown.success);
}

#[tokio::test(start_paused = true)]
async fn shell_timeout_kills_the_command() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let out = call(
        &f.ctx,
        "shell",
        serde_json::json!({"command": "sleep 600", "timeout_ms": 50}),
    )
    .await;
    assert_eq!(
        out,
        ToolOutput::error("Error: `sleep 600` timed out after 50 ms and was killed")
    );
}

#[tokio::test]
async fn todo_write_sets_the_list() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let out = call(
        &f.ctx,
        "todo_write",
        serde_json::json!({"todos": [
            {"content": "Fix bug", "status": "in_progress", "activeForm": "Fixing bug"},
            {"content": "Run tests", "status": "pending", "activeForm": "Running tests"}
        ]}),
    )
    .await;
    assert_eq!(out, ToolOutput::ok("Todo list updated: 2 items, 2 open."));
    let state = f.ctx.state();
    assert_eq!(state.todos.len(), 2);
    assert_eq!(state.todos[0].status, TodoStatus::InProgress);
    assert_eq!(state.last_todo_write_turn, Some(1));
}

#[tokio::test]
async fn plan_mode_allows_only_the_plan_file_and_exits_on_approval() {
    let mut f = fixture(ApprovalPolicy::OnRequest, Some(ApprovalDecision::Approved));
    let entered = call(&f.ctx, "enter_plan_mode", serde_json::json!({})).await;
    assert!(entered.success);
    let plan_file = f.ctx.state().plan.plan_file.clone().unwrap();
    assert!(plan_file.starts_with(f.ctx.home.join("plans")));
    assert_eq!(plan_file.extension().unwrap(), "md");
    assert!(matches!(
        f.events.try_recv().unwrap(),
        SessionEvent::Loop(LoopEvent::PlanModeEntered { .. })
    ));

    let blocked = call(
        &f.ctx,
        "write_file",
        serde_json::json!({"path": "src.rs", "content": "x"}),
    )
    .await;
    assert!(!blocked.success);
    assert!(blocked.text.contains("plan mode is on"), "{}", blocked.text);
    assert!(!f.cwd.join("src.rs").exists());
    let shell = call(&f.ctx, "shell", serde_json::json!({"command": "echo hi"})).await;
    assert!(!shell.success);

    let empty_exit = call(&f.ctx, "exit_plan_mode", serde_json::json!({})).await;
    assert!(!empty_exit.success, "an empty plan cannot be presented");
    let plan = call(
        &f.ctx,
        "write_file",
        serde_json::json!({"path": plan_file.to_str().unwrap(), "content": "# Plan\n1. do it\n"}),
    )
    .await;
    assert!(plan.success, "{}", plan.text);
    let exited = call(&f.ctx, "exit_plan_mode", serde_json::json!({})).await;
    assert!(exited.success, "{}", exited.text);
    assert!(!f.ctx.state().plan.active);
    assert!(f.ctx.state().plan.just_exited);

    // Re-entry keeps the same plan file.
    call(&f.ctx, "enter_plan_mode", serde_json::json!({})).await;
    assert_eq!(f.ctx.state().plan.plan_file.clone().unwrap(), plan_file);
}

#[tokio::test]
async fn rejected_plan_keeps_plan_mode() {
    let f = fixture(ApprovalPolicy::OnRequest, Some(ApprovalDecision::Denied));
    call(&f.ctx, "enter_plan_mode", serde_json::json!({})).await;
    let plan_file = f.ctx.state().plan.plan_file.clone().unwrap();
    std::fs::create_dir_all(plan_file.parent().unwrap()).unwrap();
    std::fs::write(&plan_file, "# Plan").unwrap();
    let exited = call(&f.ctx, "exit_plan_mode", serde_json::json!({})).await;
    assert!(!exited.success);
    assert!(f.ctx.state().plan.active);
}

#[test]
fn the_read_only_registry_reads_and_searches_and_cannot_change_or_ask() {
    assert_eq!(
        ToolRegistry::read_only().names(),
        vec!["read_file", "grep", "glob", "list_dir"]
    );
    for tool in ToolRegistry::read_only().names() {
        let tool = ToolRegistry::read_only().get(&tool).unwrap();
        assert!(
            tool.parallel_safe(),
            "{} should be read-only",
            tool.spec().name
        );
    }
}

#[test]
fn registry_replaces_by_name_and_lists_in_order() {
    let mut registry = ToolRegistry::with_builtin_tools();
    assert_eq!(
        registry.names(),
        vec![
            "read_file",
            "grep",
            "glob",
            "list_dir",
            "write_file",
            "edit_file",
            "shell",
            "bash_output",
            "kill_shell",
            "todo_write",
            "ask_user",
            "enter_plan_mode",
            "exit_plan_mode",
            "task",
            "agent_output",
            "recall"
        ]
    );
    registry.register(Arc::new(ReadFileTool));
    assert_eq!(registry.names().len(), 16);
    assert!(registry.remove("task"));
    assert!(registry.get("task").is_none());
}

#[test]
fn every_builtin_tool_declares_its_class_for_micro_compaction() {
    let registry = ToolRegistry::with_builtin_tools();
    let classes: Vec<(String, Option<ToolClass>)> = registry
        .names()
        .into_iter()
        .map(|name| {
            let class = registry.get(&name).unwrap().class();
            (name, class)
        })
        .collect();
    let expected = [
        ("read_file", Some(ToolClass::Read)),
        ("grep", Some(ToolClass::Search)),
        ("glob", Some(ToolClass::List)),
        ("list_dir", Some(ToolClass::List)),
        ("write_file", Some(ToolClass::Write)),
        ("edit_file", Some(ToolClass::Edit)),
        ("shell", Some(ToolClass::Shell)),
        ("bash_output", Some(ToolClass::Shell)),
        ("kill_shell", None),
        ("todo_write", None),
        ("ask_user", None),
        ("enter_plan_mode", None),
        ("exit_plan_mode", None),
        ("task", None),
        ("agent_output", None),
        // Never cleared: what the model asked back stays until a full compaction.
        ("recall", None),
    ]
    .map(|(name, class)| (name.to_string(), class));
    assert_eq!(classes, expected);

    // What the engine is handed: the registry's word for its own tools, the recorded names
    // (Claude Code's `Grep`) for the others.
    let handed = registry.tool_classes();
    for (name, class) in &expected {
        assert_eq!(handed.class_of(name), *class, "{name}");
    }
    assert_eq!(handed.class_of("Grep"), Some(ToolClass::Search));
    assert_eq!(handed.class_of("mcp__github__get_issue"), None);
}

#[tokio::test]
async fn bad_arguments_are_tool_errors() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let registry = ToolRegistry::with_builtin_tools();
    let out = registry
        .get("read_file")
        .unwrap()
        .handle(&f.ctx, "{not json")
        .await;
    assert!(!out.success);
    assert!(
        out.text
            .starts_with("Error: invalid arguments for read_file"),
        "{}",
        out.text
    );
}

/// A tool that records when calls start and end, to see which ran together.
struct Probe {
    name: &'static str,
    parallel: bool,
    log: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl ToolHandler for Probe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_string(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
        }
    }

    fn parallel_safe(&self) -> bool {
        self.parallel
    }

    async fn handle(&self, _ctx: &ToolContext, arguments: &str) -> ToolOutput {
        self.log.lock().unwrap().push(format!("start {arguments}"));
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        self.log.lock().unwrap().push(format!("end {arguments}"));
        ToolOutput::ok(arguments)
    }
}

#[tokio::test(start_paused = true)]
async fn parallel_safe_calls_run_together_and_others_alone() {
    let f = fixture(ApprovalPolicy::AutoApprove, None);
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Probe {
        name: "look",
        parallel: true,
        log: Arc::clone(&log),
    }));
    registry.register(Arc::new(Probe {
        name: "change",
        parallel: false,
        log: Arc::clone(&log),
    }));
    let call = |id: &str, name: &str| (id.to_string(), name.to_string(), id.to_string());
    let calls = vec![
        call("1", "look"),
        call("2", "look"),
        call("3", "change"),
        call("4", "look"),
    ];
    let results = crate::turn_stream::run_tool_calls(&registry, &f.ctx, &calls).await;
    let outputs: Vec<String> = results
        .iter()
        .map(|(item, _)| item.call_id().unwrap().to_string())
        .collect();
    assert_eq!(outputs, vec!["1", "2", "3", "4"]);
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "start 1", "start 2", "end 1", "end 2", "start 3", "end 3", "start 4", "end 4"
        ]
    );
}

#[tokio::test]
async fn tool_error_texts() {
    let f = fixture(ApprovalPolicy::OnRequest, Some(ApprovalDecision::Denied));
    std::fs::write(f.cwd.join("a.rs"), "x\nx\n").unwrap();
    let mut texts = Vec::new();
    texts.push(
        call(&f.ctx, "read_file", serde_json::json!({"path": "../x"}))
            .await
            .text,
    );
    texts.push(
        call(
            &f.ctx,
            "edit_file",
            serde_json::json!({"path": "a.rs", "old_string": "y", "new_string": "z"}),
        )
        .await
        .text,
    );
    texts.push(
        call(
            &f.ctx,
            "edit_file",
            serde_json::json!({"path": "a.rs", "old_string": "x", "new_string": "z"}),
        )
        .await
        .text,
    );
    texts.push(
        call(
            &f.ctx,
            "write_file",
            serde_json::json!({"path": "b.rs", "content": "z"}),
        )
        .await
        .text,
    );
    texts.push(
        call(&f.ctx, "shell", serde_json::json!({"command": "ls"}))
            .await
            .text,
    );
    f.ctx.state().plan.slug = Some("calm-fox-baking".to_string());
    call(&f.ctx, "enter_plan_mode", serde_json::json!({})).await;
    texts.push(
        call(
            &f.ctx,
            "write_file",
            serde_json::json!({"path": "b.rs", "content": "z"}),
        )
        .await
        .text,
    );
    texts.push(
        call(&f.ctx, "shell", serde_json::json!({"command": "ls"}))
            .await
            .text,
    );
    let plan = f.ctx.state().plan.plan_file.clone().unwrap();
    std::fs::create_dir_all(plan.parent().unwrap()).unwrap();
    std::fs::write(&plan, "# Plan").unwrap();
    texts.push(
        call(&f.ctx, "exit_plan_mode", serde_json::json!({}))
            .await
            .text,
    );
    let joined = texts
        .join("\n---\n")
        .replace(&f.cwd.display().to_string(), "[CWD]")
        .replace(&f.ctx.home.display().to_string(), "[HOME]");
    insta::assert_snapshot!(joined);
}

#[test]
fn claude_code_names_map_both_ways_and_name_real_tools() {
    // Hooks see Claude Code's names: a `Grep|Glob` matcher matches our search tools.
    assert_eq!(claude_code_name("grep"), Some("Grep"));
    assert_eq!(claude_code_name("glob"), Some("Glob"));
    assert_eq!(claude_code_name("list_dir"), Some("LS"));
    assert_eq!(claude_code_name("ask_user"), Some("AskUserQuestion"));
    assert_eq!(claude_code_name("kill_shell"), Some("KillShell"));
    assert_eq!(claude_code_name("edit_file"), Some("Edit"));
    assert_eq!(claude_code_name("mcp__server__tool"), None);
    // A skill's `allowed-tools` takes every name Claude Code used, in any case.
    assert_eq!(tool_of_claude_code_name("MultiEdit"), Some("edit_file"));
    assert_eq!(tool_of_claude_code_name("killbash"), Some("kill_shell"));
    assert_eq!(tool_of_claude_code_name("LS"), Some("list_dir"));
    assert_eq!(tool_of_claude_code_name("WebFetch"), None);
    // Every tool of ours the table names is one a session offers (the `skill` tool comes with
    // the skills registry).
    let registry = ToolRegistry::with_builtin_tools();
    for (claude, ours) in CLAUDE_CODE_TOOL_NAMES {
        assert!(
            ours == "skill" || registry.get(ours).is_some(),
            "{claude} names {ours}, which no session offers"
        );
    }
}
