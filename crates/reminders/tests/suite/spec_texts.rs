//! Every reminder text the specification spells out, compared with the spec's own code.
//!
//! The expected values below are the spec's format strings copied verbatim (line continuations
//! included), so a drift from the spec fails here even when a snapshot was re-recorded.
//! Sources: `system-reminder-design.md` §4.2, §6.2.1–6.2.5 and `key-features.md` "Plan Mode
//! System Reminders" and "Micro-Compact System Reminder".

use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::BackgroundTaskInfo;
use agentctx_reminders::BackgroundTaskStatus;
use agentctx_reminders::BackgroundTaskType;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::TodoState;
use agentctx_reminders::generators::background_task::render_task_line;
use agentctx_reminders::generators::changed_files::render_modified;
use agentctx_reminders::generators::micro_compact::render_micro_compact;
use agentctx_reminders::generators::nested_memory::MemoryFile;
use agentctx_reminders::generators::nested_memory::render_nested_memory;
use agentctx_reminders::generators::plan_mode::render_full_plan_reminder;
use agentctx_reminders::generators::plan_mode::render_plan_mode_reentry;
use agentctx_reminders::generators::plan_mode::render_sparse_plan_reminder;
use agentctx_reminders::generators::plan_mode::render_sub_agent_plan_reminder;
use agentctx_reminders::generators::todo_reminder::render_todo_reminder;
use pretty_assertions::assert_eq;

const PLAN: &str = "/home/user/.claude/plans/brave-otter.md";

/// `build_reentry_content` of design §6.2.2, verbatim.
fn spec_reentry(plan_file_path: &str) -> String {
    format!(
        "## Re-entering Plan Mode\n\n\
         You are returning to plan mode after having previously exited it. \
         A plan file exists at {plan_file_path} from your previous planning session.\n\n\
         **Before proceeding with any new planning, you should:**\n\
         1. Read the existing plan file to understand what was previously planned\n\
         2. Evaluate the user's current request against that plan\n\
         3. Decide how to proceed:\n\
            - **Different task**: If the user's request is for a different task—even if it's similar \
              or related—start fresh by overwriting the existing plan\n\
            - **Same task, continuing**: If this is explicitly a continuation or refinement of \
              the exact same task, modify the existing plan while cleaning up outdated sections\n\
         4. Continue on with the plan process and most importantly you should always edit the \
            plan file one way or the other before calling ExitPlanMode\n\n\
         Treat this as a fresh planning session. Do not assume the existing plan is relevant \
         without evaluating it first."
    )
}

#[test]
fn plan_mode_reentry_is_the_spec_text() {
    assert_eq!(
        render_plan_mode_reentry(Path::new(PLAN)),
        spec_reentry(PLAN)
    );
}

#[test]
fn plan_mode_sparse_is_the_spec_text() {
    let plan_file_path = Path::new(PLAN);
    let spec = format!(
        "Plan mode still active (see full instructions earlier in conversation). Read-only except plan file ({}). Follow 5-phase workflow. End turns with AskUserQuestion (for clarifications) or ExitPlanMode (for plan approval). Never ask about plan approval via text or AskUserQuestion.",
        plan_file_path.display()
    );
    assert_eq!(render_sparse_plan_reminder(plan_file_path), spec);
}

#[test]
fn plan_mode_full_has_the_spec_frame_and_all_five_phases() {
    let text = render_full_plan_reminder(Path::new(PLAN), false, 3, 1);
    assert!(text.starts_with("Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any edits (with the exception of the plan file mentioned below), run any non-readonly tools (including changing configs or making commits), or otherwise make any changes to the system. This supercedes any other instructions you have received.\n\n## Plan File Info:\nNo plan file exists yet. You should create your plan at /home/user/.claude/plans/brave-otter.md using the Write tool.\n\n"));
    let phases: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("### Phase "))
        .collect();
    assert_eq!(
        phases,
        [
            "### Phase 1: Initial Understanding",
            "### Phase 2: Design",
            "### Phase 3: Review",
            "### Phase 4: Final Plan",
            "### Phase 5: Call ExitPlanMode",
        ]
    );
    assert!(text.contains("**Launch up to 3 Explore agents IN PARALLEL**"));
    assert!(text.contains("You can launch up to 1 agent(s) in parallel."));
    assert!(text.ends_with("Do NOT ask about plan approval in any other way."));
}

#[test]
fn plan_mode_sub_agent_has_the_spec_plan_info() {
    let exists = render_sub_agent_plan_reminder(Path::new(PLAN), true);
    assert!(exists.contains("\n## Plan File Info:\nA plan file already exists at /home/user/.claude/plans/brave-otter.md. You can read it and make incremental edits using the Edit tool if you need to.\n\n"));
    assert!(exists.ends_with("Answer the user's query comprehensively, using the AskUserQuestion tool if you need to ask the user clarifying questions."));
}

#[test]
fn todo_reminder_is_the_spec_text() {
    // `build_content` of design §6.2.1, verbatim.
    let mut message = String::from(
        "The TodoWrite tool hasn't been used recently. If you're working on tasks \
         that would benefit from tracking progress, consider using the TodoWrite tool \
         to track progress. Also consider cleaning up the todo list if has become \
         stale and no longer matches what you are working on. Only use it if it's \
         relevant to the current work. This is just a gentle reminder - ignore if \
         not applicable. Make sure that you NEVER mention this reminder to the user\n",
    );
    let formatted_list = "1. [pending] Write the parser\n2. [in_progress] Test it";
    message.push_str(&format!(
        "\n\nHere are the existing contents of your todo list:\n\n[{formatted_list}]"
    ));

    let item = |content: &str, status| TodoItem {
        content: content.to_string(),
        status,
        active_form: String::new(),
    };
    let todo = TodoState {
        items: vec![
            item("Write the parser", TodoStatus::Pending),
            item("Test it", TodoStatus::InProgress),
        ],
        ..TodoState::default()
    };
    assert_eq!(render_todo_reminder(&todo), message);
}

#[test]
fn changed_files_section_is_the_spec_text() {
    // `build_content` of design §6.2.3 for one change, verbatim.
    let path = PathBuf::from("/work/project/src/main.rs");
    let diff = "@@ -1 +1 @@\n     1        -a\n            1 +b";
    let spec = format!(
        "Note: {} was modified, either by the user or by a linter. \
         This change was intentional, so make sure to take it into account \
         as you proceed (ie. don't revert it unless the user asks you to). \
         Don't tell the user this, since they are already aware. \
         Here are the relevant changes (shown with line numbers):\n{}\n\n",
        path.display(),
        diff
    );
    assert_eq!(render_modified(&path, diff), spec);
}

#[test]
fn background_shell_line_is_the_spec_text() {
    let task = BackgroundTaskInfo {
        task_id: "bash_1".to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo test".to_string()),
        description: "tests".to_string(),
        status: BackgroundTaskStatus::Completed,
        exit_code: Some(0),
        output_len: 10,
        delta_summary: None,
        progress_message: None,
    };
    // `build_content` of design §6.2.4: parts joined by spaces.
    assert_eq!(
        render_task_line(&task, true),
        "Background Bash bash_1 (command: cargo test) (status: completed) (exit code: 0) Has new output available. You can check its output using the BashOutput tool."
    );
}

#[test]
fn nested_memory_is_the_spec_text() {
    let files = [
        MemoryFile {
            path: PathBuf::from("/p/crates/CLAUDE.md"),
            content: "one".to_string(),
            omitted_lines: 0,
        },
        MemoryFile {
            path: PathBuf::from("/p/AGENTS.md"),
            content: "two".to_string(),
            omitted_lines: 0,
        },
    ];
    // `build_content` of design §6.2.5.
    assert_eq!(
        render_nested_memory(&files),
        "Contents of /p/crates/CLAUDE.md:\n\none\n\n---\n\nContents of /p/AGENTS.md:\n\ntwo"
    );
}

#[test]
fn micro_compact_is_the_spec_text() {
    assert_eq!(
        render_micro_compact(3),
        "Micro-compact cleared 3 tool result(s) to reduce context size."
    );
}

#[test]
fn todo_reminder_wraps_as_the_spec_example() {
    // Design §4.2 "Standard System Reminder" (its text is cut after the first sentences).
    let wrapped = SystemReminder::new(
        AttachmentType::TodoReminder,
        "The TodoWrite tool hasn't been used recently.",
    )
    .wrap_xml();
    assert_eq!(
        wrapped,
        "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"
    );
}
