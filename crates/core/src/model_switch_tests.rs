use agentctx_context::TurnSettings;
use pretty_assertions::assert_eq;

use super::PendingSwitch;
use super::initial_context_item;
use super::resume_warning;
use super::switch_message;

fn settings(model: &str) -> TurnSettings {
    TurnSettings {
        model: model.to_string(),
        cwd: Some("/work".to_string()),
        model_instructions: "You are a coding agent.".to_string(),
        ..TurnSettings::default()
    }
}

#[test]
fn the_switch_message_is_codexs_developer_section() {
    let item = switch_message("big-model", &settings("small-model")).unwrap();
    assert_eq!(item.role(), Some("developer"));
    insta::assert_snapshot!(item.message_text().unwrap(), @r"
    <model_switch>
    The user was previously using a different model. Please continue the conversation according to the following instructions:

    You are a coding agent.
    </model_switch>
    ");
}

#[test]
fn no_switch_message_for_the_same_model_or_without_a_pending_switch() {
    assert_eq!(switch_message("m", &settings("m")), None);
    assert_eq!(initial_context_item(None, &settings("m")), None);
    let pending = PendingSwitch::on_resume("big-model", "small-model");
    assert_eq!(pending.previous_model, "big-model");
    assert!(initial_context_item(Some(&pending), &settings("small-model")).is_some());
}

#[test]
fn a_resume_with_another_model_warns_as_codex_does() {
    assert_eq!(
        resume_warning("gpt-5", "gpt-5-mini"),
        "This session was recorded with model `gpt-5` but is resuming with `gpt-5-mini`. Consider switching back to `gpt-5` as it may affect performance."
    );
}
