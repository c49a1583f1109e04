use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn settings() -> TurnSettings {
    TurnSettings {
        model: "gpt-5".to_string(),
        cwd: Some("/repo".to_string()),
        shell: Some("bash".to_string()),
        current_date: Some("2026-11-21".to_string()),
        timezone: Some("Europe/Paris".to_string()),
        approval_policy: Some(json!("on-request")),
        sandbox_policy: Some(json!({"type": "workspace-write"})),
        collaboration_mode: Some(json!({"mode": "default"})),
        personality: Some(json!("pragmatic")),
        effort: Some(json!("medium")),
        summary: Some(json!("auto")),
        model_instructions: "You are gpt-5.".to_string(),
        permissions_instructions: Some(
            "<permissions instructions>\nsandbox: workspace-write\n</permissions instructions>"
                .to_string(),
        ),
        collaboration_mode_instructions: Some("You are in Default mode.".to_string()),
        personality_message: Some("Be pragmatic.".to_string()),
    }
}

fn texts(items: &[ResponseItem]) -> String {
    items
        .iter()
        .map(|item| {
            format!(
                "--- {}\n{}",
                item.role().unwrap_or("?"),
                match item {
                    ResponseItem::Message { content, .. } => content
                        .iter()
                        .filter_map(ContentItem::as_text)
                        .collect::<Vec<_>>()
                        .join("\n-- next section --\n"),
                    _ => String::new(),
                }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn nothing_changed_gives_nothing() {
    let current = settings();
    let reference = current.to_turn_context_item(None);
    assert_eq!(
        build_settings_update_items(Some(&reference), None, &current),
        Vec::new()
    );
}

#[test]
fn no_reference_gives_nothing_but_model_switch_can_still_be_built() {
    let current = settings();
    assert_eq!(
        build_settings_update_items(None, None, &current),
        Vec::new()
    );
    assert_eq!(
        build_model_instructions_update_item(Some("o3"), &current),
        Some(model_switch_message("You are gpt-5."))
    );
}

#[test]
fn shell_alone_does_not_count_as_an_environment_change() {
    let mut current = settings();
    let reference = current.to_turn_context_item(None);
    current.shell = Some("zsh".to_string());
    assert_eq!(
        build_environment_update_item(Some(&reference), &current),
        None
    );
}

#[test]
fn each_dimension_is_detected_independently() {
    let base = settings();
    let reference = base.to_turn_context_item(None);

    let mut cwd = base.clone();
    cwd.cwd = Some("/elsewhere".to_string());
    let items = build_settings_update_items(Some(&reference), None, &cwd);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].role(), Some("user"));

    let mut permissions = base.clone();
    permissions.approval_policy = Some(json!("never"));
    assert!(build_permissions_update_item(Some(&reference), &permissions).is_some());
    assert_eq!(
        build_settings_update_items(Some(&reference), None, &permissions).len(),
        1
    );

    let mut collaboration = base.clone();
    collaboration.collaboration_mode = Some(json!({"mode": "plan"}));
    collaboration.collaboration_mode_instructions = Some("You are in Plan mode.".to_string());
    assert_eq!(
        build_collaboration_mode_update_item(Some(&reference), &collaboration),
        Some("<collaboration_mode>You are in Plan mode.</collaboration_mode>".to_string())
    );

    let mut empty_mode = collaboration;
    empty_mode.collaboration_mode_instructions = Some(String::new());
    assert_eq!(
        build_collaboration_mode_update_item(Some(&reference), &empty_mode),
        None
    );

    let mut personality = base.clone();
    personality.personality = Some(json!("friendly"));
    personality.personality_message = Some("Be friendly.".to_string());
    assert_eq!(
        build_personality_update_item(Some(&reference), &personality),
        Some(personality_spec_message("Be friendly."))
    );

    let mut model = base;
    model.model = "o3".to_string();
    model.model_instructions = "You are o3.".to_string();
    assert_eq!(
        build_model_instructions_update_item(reference.model.as_deref(), &model),
        Some(model_switch_message("You are o3."))
    );
}

#[test]
fn personality_is_not_sent_with_a_model_switch() {
    let base = settings();
    let reference = base.to_turn_context_item(None);
    let mut next = base;
    next.model = "o3".to_string();
    next.model_instructions = "You are o3.".to_string();
    next.personality = Some(json!("friendly"));
    assert_eq!(build_personality_update_item(Some(&reference), &next), None);
    let items = build_settings_update_items(Some(&reference), None, &next);
    assert_eq!(items.len(), 1);
    assert!(is_model_switch_message(&items[0]));
}

#[test]
fn empty_model_instructions_send_no_switch() {
    let mut next = settings();
    next.model = "local-model".to_string();
    next.model_instructions = String::new();
    assert_eq!(
        build_model_instructions_update_item(Some("gpt-5"), &next),
        None
    );
}

#[test]
fn previous_turn_model_wins_over_the_reference_model() {
    let base = settings();
    let reference = base.to_turn_context_item(None);
    // The reference says gpt-5 (same as now) but the previous user turn ran on o3.
    let items = build_settings_update_items(Some(&reference), Some("o3"), &base);
    assert_eq!(items.len(), 1);
    assert!(is_model_switch_message(&items[0]));
}

#[test]
fn everything_changed_snapshot() {
    let base = settings();
    let reference = base.to_turn_context_item(Some("turn-1".to_string()));
    let mut next = base;
    next.model = "o3".to_string();
    next.model_instructions = "You are o3, a reasoning model.".to_string();
    next.cwd = Some("/repo/sub".to_string());
    next.current_date = Some("2026-11-22".to_string());
    next.sandbox_policy = Some(json!({"type": "read-only"}));
    next.permissions_instructions = Some(
        "<permissions instructions>\nsandbox: read-only\n</permissions instructions>".to_string(),
    );
    next.collaboration_mode = Some(json!({"mode": "plan"}));
    next.collaboration_mode_instructions = Some("You are in Plan mode.".to_string());
    let items = build_settings_update_items(Some(&reference), None, &next);
    assert_eq!(items.len(), 2);
    insta::assert_snapshot!("settings_update_everything_changed", texts(&items));
}

#[test]
fn personality_and_environment_snapshot() {
    let base = settings();
    let reference = base.to_turn_context_item(None);
    let mut next = base;
    next.personality = Some(json!("friendly"));
    next.personality_message = Some("Be warm and encouraging.".to_string());
    next.timezone = Some("Asia/Seoul".to_string());
    let items = build_settings_update_items(Some(&reference), None, &next);
    insta::assert_snapshot!("settings_update_personality_and_environment", texts(&items));
}

#[test]
fn model_switch_message_snapshot() {
    insta::assert_snapshot!(
        "model_switch_message",
        model_switch_message("You are o3.\nThink step by step.")
    );
}

#[test]
fn full_environment_context_snapshot() {
    insta::assert_snapshot!(
        "environment_context_full",
        settings().environment_context().serialize_to_xml()
    );
}

#[test]
fn reference_item_round_trips_date_and_timezone() {
    let current = settings();
    let item = current.to_turn_context_item(Some("t".to_string()));
    assert_eq!(
        EnvironmentContext::from_turn_context_item(&item, Some("bash")),
        current.environment_context()
    );
    assert_eq!(item.model.as_deref(), Some("gpt-5"));
    assert_eq!(item.turn_id.as_deref(), Some("t"));
}

#[test]
fn trailing_model_switch_is_extracted_only_after_the_last_user_turn() {
    let switch = ResponseItem::developer_text(model_switch_message("You are o3."));
    let mut items = vec![
        ResponseItem::user_text("first"),
        switch.clone(),
        ResponseItem::user_text("second"),
        ResponseItem::assistant_text("answer"),
    ];
    // The switch belongs to an earlier turn: nothing to extract.
    assert_eq!(extract_trailing_model_switch_update(&mut items), None);
    assert_eq!(items.len(), 4);

    items.push(switch.clone());
    items.push(ResponseItem::function_call("c", "shell", "{}"));
    assert_eq!(
        extract_trailing_model_switch_update(&mut items),
        Some(switch)
    );
    assert_eq!(items.len(), 5);
    assert!(!items.iter().skip(2).any(is_model_switch_message));
}
