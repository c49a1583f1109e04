//! Subagents: the critical system reminder of their definition, core-tier reminders only, and
//! none of the parent's reminders.

use std::sync::Arc;

use agentctx_core::AgentDefinition;
use agentctx_core::EXPLORE_CRITICAL_REMINDER;
use agentctx_core::PLAN_CRITICAL_REMINDER;
use agentctx_core::Session;
use agentctx_core::SubagentExecutor;
use agentctx_engine::SystemReminderConfig;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::is_system_reminder_message;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

#[test]
fn build_initial_messages_injects_the_critical_reminder_and_drops_the_parents() {
    let model = Arc::new(ScriptedModelClient::new("m"));
    let executor = SubagentExecutor::new(
        AgentDefinition::explore(),
        model,
        SystemReminderConfig::default(),
    );
    let parent = vec![
        ResponseItem::user_text("Earlier question"),
        ResponseItem::user_text("<system-reminder>\nparent-only reminder\n</system-reminder>"),
        ResponseItem::assistant_text("Earlier answer"),
    ];
    let messages = executor.build_initial_messages(&parent, "Find the parser");
    let texts: Vec<String> = messages
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert_eq!(
        texts,
        vec![
            AgentDefinition::explore().system_prompt.unwrap(),
            format!("<system-reminder>\n{EXPLORE_CRITICAL_REMINDER}\n</system-reminder>"),
            "Earlier question".to_string(),
            "Earlier answer".to_string(),
            "Find the parser".to_string(),
        ]
    );
    assert_eq!(messages[0].role(), Some("system"));
    assert!(is_system_reminder_message(&messages[1]));
}

#[test]
fn builtin_explore_and_plan_agents_carry_their_reminders() {
    let agents = AgentDefinition::builtin();
    let names: Vec<&str> = agents.iter().map(|agent| agent.name.as_str()).collect();
    assert_eq!(names, vec!["Explore", "Plan"]);
    assert_eq!(
        agents[0].critical_system_reminder.as_deref(),
        Some(EXPLORE_CRITICAL_REMINDER)
    );
    assert_eq!(
        agents[1].critical_system_reminder.as_deref(),
        Some(PLAN_CRITICAL_REMINDER)
    );
    assert!(
        EXPLORE_CRITICAL_REMINDER.starts_with("CRITICAL: This is a READ-ONLY exploration task")
    );
    assert!(PLAN_CRITICAL_REMINDER.starts_with("CRITICAL: This is a PLANNING task"));
}

#[tokio::test]
async fn a_task_runs_the_subagent_with_its_reminder_and_without_the_parents() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::write(dirs.cwd.join("lib.rs"), "pub fn parse() {}\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    // Main agent: hands the search to Plan.
    model.push(ScriptedResponse::new().with_function_call(
        "call_task",
        "task",
        r#"{"agent":"Plan","prompt":"Where is parse defined? Plan a rename."}"#,
    ));
    // Subagent: reads, then reports.
    model.push(ScriptedResponse::new().with_function_call(
        "sub_read",
        "read_file",
        r#"{"path":"lib.rs"}"#,
    ));
    model.push(ScriptedResponse::text(
        "parse is in lib.rs line 1; rename it there.",
    ));
    // Main agent again.
    model.push(ScriptedResponse::text("Done: see the plan."));

    let mut options = options(&dirs, Arc::new(model.clone()));
    options.reminders.critical_instruction = Some("Keep answers short.".to_string());
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn(
            "Look at @notes.txt then plan renaming parse",
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.last_message.as_deref(), Some("Done: see the plan."));

    let prompts = model.prompts();
    assert_eq!(prompts.len(), 4);
    let parent_texts: Vec<String> = prompts[0]
        .items()
        .filter_map(ResponseItem::message_text)
        .collect();
    assert!(
        parent_texts
            .iter()
            .any(|text| text.contains("remember the milk")),
        "{parent_texts:#?}"
    );

    for sub in &prompts[1..3] {
        let texts: Vec<String> = sub.items().filter_map(ResponseItem::message_text).collect();
        assert!(
            texts.contains(&format!(
                "<system-reminder>\n{PLAN_CRITICAL_REMINDER}\n</system-reminder>"
            )),
            "{texts:#?}"
        );
        // Never the parent's reminders (the @-mention), never its conversation.
        assert!(
            !texts.iter().any(|text| text.contains("remember the milk")),
            "{texts:#?}"
        );
        assert!(
            !texts.iter().any(|text| text.contains("Look at @notes.txt")),
            "{texts:#?}"
        );
        // Core-tier reminders still run (the critical instruction); main-agent-only ones do not.
        assert!(
            texts
                .iter()
                .any(|text| text.contains("Keep answers short.")),
            "{texts:#?}"
        );
        assert!(
            !texts.iter().any(|text| text.contains("tokens")),
            "{texts:#?}"
        );
        // Read-only tools only.
        let tools: Vec<&str> = sub.tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(tools, vec!["read_file", "grep", "glob", "list_dir"]);
    }
    let report = prompts[3]
        .items()
        .find_map(|item| match item {
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            } if call_id == "call_task" => Some(output.text_content()),
            _ => None,
        })
        .unwrap();
    assert_eq!(report, "parse is in lib.rs line 1; rename it there.");
}
