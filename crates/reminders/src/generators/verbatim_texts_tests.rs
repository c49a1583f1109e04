//! The reminder texts that must stay word for word what docs/design/reminders.md ("Texts the
//! model sees") documents: the wording agents are trained on (Claude Code's), written out here a
//! second time as format strings (line continuations included), so a change of wording fails
//! here even when a snapshot was re-recorded.

use std::path::Path;
use std::path::PathBuf;

use super::background_task::render_task_line;
use super::changed_files::render_modified;
use super::micro_compact::render_micro_compact;
use super::nested_memory::MemoryFile;
use super::nested_memory::render_nested_memory;
use super::plan_mode::render_full_plan_reminder;
use super::plan_mode::render_plan_mode_reentry;
use super::plan_mode::render_sparse_plan_reminder;
use super::plan_mode::render_sub_agent_plan_reminder;
use super::todo_reminder::render_todo_reminder;
use crate::AttachmentType;
use crate::BackgroundTaskInfo;
use crate::BackgroundTaskStatus;
use crate::BackgroundTaskType;
use crate::SystemReminder;
use crate::TodoState;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use pretty_assertions::assert_eq;

const PLAN: &str = "/home/user/.claude/plans/brave-otter.md";

/// The re-entry text as documented, with its line continuations.
fn documented_reentry(plan_file_path: &str) -> String {
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
fn the_plan_mode_reentry_text_is_word_for_word_the_documented_one() {
    assert_eq!(
        render_plan_mode_reentry(Path::new(PLAN)),
        documented_reentry(PLAN)
    );
}

#[test]
fn the_sparse_plan_mode_text_is_word_for_word_the_documented_one() {
    let plan_file_path = Path::new(PLAN);
    let documented = format!(
        "Plan mode still active (see full instructions earlier in conversation). Read-only except plan file ({}). Follow 5-phase workflow. End turns with AskUserQuestion (for clarifications) or ExitPlanMode (for plan approval). Never ask about plan approval via text or AskUserQuestion.",
        plan_file_path.display()
    );
    assert_eq!(render_sparse_plan_reminder(plan_file_path), documented);
}

#[test]
fn the_full_plan_mode_text_has_the_documented_frame_and_all_five_phases() {
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
fn the_sub_agent_plan_mode_text_has_the_documented_plan_file_info() {
    let exists = render_sub_agent_plan_reminder(Path::new(PLAN), true);
    assert!(exists.contains("\n## Plan File Info:\nA plan file already exists at /home/user/.claude/plans/brave-otter.md. You can read it and make incremental edits using the Edit tool if you need to.\n\n"));
    assert!(exists.ends_with("Answer the user's query comprehensively, using the AskUserQuestion tool if you need to ask the user clarifying questions."));
}

#[test]
fn the_todo_reminder_text_is_word_for_word_the_documented_one() {
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
fn a_changed_file_section_is_word_for_word_the_documented_one() {
    let path = PathBuf::from("/work/project/src/main.rs");
    let diff = "@@ -1 +1 @@\n     1        -a\n            1 +b";
    let documented = format!(
        "Note: {} was modified, either by the user or by a linter. \
         This change was intentional, so make sure to take it into account \
         as you proceed (ie. don't revert it unless the user asks you to). \
         Don't tell the user this, since they are already aware. \
         Here are the relevant changes (shown with line numbers):\n{}\n\n",
        path.display(),
        diff
    );
    assert_eq!(render_modified(&path, diff), documented);
}

#[test]
fn a_background_shell_line_joins_its_parts_with_spaces() {
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
    assert_eq!(
        render_task_line(&task, true),
        "Background Bash bash_1 (command: cargo test) (status: completed) (exit code: 0) Has new output available. You can check its output using the BashOutput tool."
    );
}

#[test]
fn nested_memory_sections_are_separated_by_a_rule() {
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
    assert_eq!(
        render_nested_memory(&files),
        "Contents of /p/crates/CLAUDE.md:\n\none\n\n---\n\nContents of /p/AGENTS.md:\n\ntwo"
    );
}

#[test]
fn the_micro_compact_text_is_word_for_word_the_documented_one() {
    assert_eq!(
        render_micro_compact(3),
        "Micro-compact cleared 3 tool result(s) to reduce context size."
    );
}

#[test]
fn a_reminder_is_wrapped_in_its_tag_on_lines_of_their_own() {
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
