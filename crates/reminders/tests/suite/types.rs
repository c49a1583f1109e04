//! Core types: tags per type, `is_meta`, tiers, catalogue order, conversion to a message.

use agentctx_protocol::ResponseItem;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::XmlTag;
use agentctx_reminders::is_reminder_item;
use agentctx_reminders::is_system_reminder_message;
use pretty_assertions::assert_eq;

/// The types only the main agent gets, in catalogue order, written out by hand.
const MAIN_AGENT_ONLY: [&str; 16] = [
    "ide_selection",
    "ide_opened_file",
    "output_style",
    "queued_commands",
    "teammate_message",
    "diagnostics",
    "lsp_diagnostics",
    "background_task",
    "task_progress",
    "async_agent_status",
    "async_hook_responses",
    "session_memory",
    "ultramemory",
    "token_usage",
    "budget_usd",
    "verify_plan_reminder",
];

#[test]
fn reminders_use_the_correct_xml_tag_per_type() {
    let wrapped =
        |attachment_type: AttachmentType| SystemReminder::new(attachment_type, "body").wrap_xml();
    assert_eq!(
        wrapped(AttachmentType::TodoReminder),
        "<system-reminder>\nbody\n</system-reminder>"
    );
    assert_eq!(
        wrapped(AttachmentType::AsyncAgentStatus),
        "<system-notification>body</system-notification>"
    );
    assert_eq!(
        wrapped(AttachmentType::SessionMemory),
        "<session-memory>\nbody\n</session-memory>"
    );
    assert_eq!(
        wrapped(AttachmentType::Diagnostics),
        "<new-diagnostics>body</new-diagnostics>"
    );
    assert_eq!(
        wrapped(AttachmentType::LspDiagnostics),
        "<new-diagnostics>body</new-diagnostics>"
    );
    assert_eq!(wrapped(AttachmentType::TeammateMessage), "body");
    // Background shells, token usage and budget use <system-reminder> too.
    for attachment_type in [
        AttachmentType::BackgroundTask,
        AttachmentType::TokenUsage,
        AttachmentType::BudgetUsd,
        AttachmentType::ChangedFiles,
        AttachmentType::PlanMode,
        AttachmentType::CriticalInstruction,
    ] {
        assert_eq!(
            attachment_type.xml_tag(),
            XmlTag::SystemReminder,
            "{attachment_type}"
        );
    }
}

#[test]
fn all_reminders_have_is_meta_true() {
    for attachment_type in AttachmentType::ALL {
        let reminder = SystemReminder::new(*attachment_type, "x");
        assert!(reminder.is_meta(), "{attachment_type}");
    }
    // Deserialising can turn neither off: `is_meta` stays true and the tier is the type's,
    // whatever the input says.
    let json =
        r#"{"attachment_type":"token_usage","content":"x","tier":"user_prompt","is_meta":false}"#;
    let reminder: SystemReminder = serde_json::from_str(json).unwrap();
    assert!(reminder.is_meta());
    assert_eq!(reminder.tier(), ReminderTier::MainAgentOnly);
    let written = serde_json::to_value(&reminder).unwrap();
    assert_eq!(written["is_meta"], serde_json::Value::Bool(true));
    assert_eq!(written["tier"], "main_agent_only");
}

#[test]
fn a_reminder_becomes_a_user_message_recognised_as_a_reminder() {
    let reminder = SystemReminder::new(AttachmentType::CriticalInstruction, "Run the tests.");
    let item = ResponseItem::from(reminder);
    assert_eq!(
        item,
        ResponseItem::user_text("<system-reminder>\nRun the tests.\n</system-reminder>")
    );
    assert!(is_system_reminder_message(&item));
    let teammate = SystemReminder::new(
        AttachmentType::TeammateMessage,
        "<teammate-message teammate_id=\"a\">hi</teammate-message>",
    );
    assert!(is_reminder_item(&teammate.to_response_item()));
}

#[test]
fn the_catalogue_is_complete_and_ordered_by_tier() {
    let names: Vec<&str> = AttachmentType::ALL.iter().map(|t| t.as_str()).collect();
    insta::assert_snapshot!("catalogue", names.join("\n"));
    // The tier of each type, written out: the three tiers decide who gets a reminder at all.
    let counts = |tier: ReminderTier| {
        AttachmentType::ALL
            .iter()
            .filter(|t| t.tier() == tier)
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        counts(ReminderTier::UserPrompt),
        ["at_mentioned_files", "mcp_resources", "agent_mentions"]
    );
    assert_eq!(counts(ReminderTier::MainAgentOnly), MAIN_AGENT_ONLY);
    // Tiers never go backwards along the catalogue order.
    let tiers: Vec<ReminderTier> = AttachmentType::ALL.iter().map(|t| t.tier()).collect();
    let mut sorted = tiers.clone();
    sorted.sort();
    assert_eq!(tiers, sorted);
    for attachment_type in AttachmentType::ALL {
        assert_eq!(
            AttachmentType::from_name(attachment_type.as_str()),
            Some(*attachment_type)
        );
        let json = serde_json::to_string(attachment_type).unwrap();
        assert_eq!(json, format!("\"{attachment_type}\""));
    }
    assert_eq!(
        ReminderTier::ALL,
        [
            ReminderTier::UserPrompt,
            ReminderTier::Core,
            ReminderTier::MainAgentOnly
        ]
    );
}

#[test]
fn every_attachment_type_has_exactly_one_default_generator_and_no_generator_lacks_a_type() {
    let generators = agentctx_reminders::default_generators();
    let mut types: Vec<AttachmentType> = generators
        .iter()
        .map(|generator| generator.attachment_type())
        .collect();
    types.sort();
    assert_eq!(types, AttachmentType::ALL.to_vec());
    let mut names: Vec<&str> = generators
        .iter()
        .map(|generator| generator.name())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), generators.len(), "generator names are unique");
    // The tier each default generator runs in, as the orchestrator sees it, against the tiers
    // written out by hand (a generator that overrode `tier()` wrongly would show here).
    let user_prompt = ["at_mentioned_files", "mcp_resources", "agent_mentions"];
    for generator in &generators {
        let name = generator.name();
        let expected = if user_prompt.contains(&name) {
            ReminderTier::UserPrompt
        } else if MAIN_AGENT_ONLY.contains(&name) {
            ReminderTier::MainAgentOnly
        } else {
            ReminderTier::Core
        };
        assert_eq!(generator.tier(), expected, "{name}");
    }
}
