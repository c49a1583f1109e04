//! Reference-context diffing: what changed since the last turn, as model-visible items.
//!
//! Instead of re-sending the whole initial context every turn, the harness keeps the settings
//! of the last turn (a [`TurnContextItem`], the *reference context item*) and sends only the
//! differences along five dimensions, each computed independently:
//!
//! 1. environment context (cwd, date, timezone) — a contextual `user` message,
//! 2. permissions (sandbox or approval policy changed),
//! 3. collaboration mode,
//! 4. personality (only when the model did not change),
//! 5. model instructions (the model changed) — the `<model_switch>` section.
//!
//! Dimensions 2–5 become sections of one `developer` message, model switch first so the new
//! model reads its instructions before anything else. When there is no reference item (first
//! turn, after compaction or rollback) the caller sends the full initial context instead.

use agentctx_protocol::COLLABORATION_MODE_CLOSE_TAG;
use agentctx_protocol::COLLABORATION_MODE_OPEN_TAG;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ENVIRONMENT_CONTEXT_CLOSE_TAG;
use agentctx_protocol::ENVIRONMENT_CONTEXT_OPEN_TAG;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::MODEL_SWITCH_CLOSE_TAG;
use agentctx_protocol::MODEL_SWITCH_OPEN_TAG;
use agentctx_protocol::PERSONALITY_SPEC_CLOSE_TAG;
use agentctx_protocol::PERSONALITY_SPEC_OPEN_TAG;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TurnContextItem;
use agentctx_protocol::is_user_turn_start;
use serde_json::Value;

use crate::contextual_user_message::wrap_contextual_fragment;

/// The `<model_switch>` developer section telling a new model how to continue.
pub(crate) fn model_switch_message(model_instructions: &str) -> String {
    format!(
        "{MODEL_SWITCH_OPEN_TAG}\nThe user was previously using a different model. Please continue the conversation according to the following instructions:\n\n{model_instructions}\n{MODEL_SWITCH_CLOSE_TAG}"
    )
}

/// The `<personality_spec>` developer section announcing a new communication style.
pub(crate) fn personality_spec_message(spec: &str) -> String {
    format!(
        "{PERSONALITY_SPEC_OPEN_TAG} The user has requested a new communication style. Future messages should adhere to the following personality: \n{spec} {PERSONALITY_SPEC_CLOSE_TAG}"
    )
}

/// The `<collaboration_mode>` developer section; `None` when the instructions are empty.
pub(crate) fn collaboration_mode_message(instructions: &str) -> Option<String> {
    if instructions.is_empty() {
        return None;
    }
    Some(format!(
        "{COLLABORATION_MODE_OPEN_TAG}{instructions}{COLLABORATION_MODE_CLOSE_TAG}"
    ))
}

/// The model-visible settings of the turn about to start, as the harness computed them. The
/// texts (`*_instructions`, `personality_message`) are rendered by the caller, which owns the
/// templates; this module only decides which of them the model must see again.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnSettings {
    /// Model slug.
    pub model: String,
    /// Working directory.
    pub cwd: Option<String>,
    /// Shell name (`bash`, `zsh`, ...). Shown in the environment context, never diffed.
    pub shell: Option<String>,
    /// Current date, as shown to the model.
    pub current_date: Option<String>,
    /// Timezone, as shown to the model.
    pub timezone: Option<String>,
    /// Approval policy (opaque, compared as JSON).
    pub approval_policy: Option<Value>,
    /// Sandbox policy (opaque, compared as JSON).
    pub sandbox_policy: Option<Value>,
    /// Collaboration mode (opaque, compared as JSON).
    pub collaboration_mode: Option<Value>,
    /// Personality (opaque, compared as JSON).
    pub personality: Option<Value>,
    /// Reasoning effort, recorded in the reference item.
    pub effort: Option<Value>,
    /// Reasoning summary setting, recorded in the reference item.
    pub summary: Option<Value>,
    /// The model's own instructions, sent inside `<model_switch>` when the model changes.
    pub model_instructions: String,
    /// Rendered permissions instructions; `None` disables the permissions dimension.
    pub permissions_instructions: Option<String>,
    /// Rendered collaboration-mode instructions (without tags).
    pub collaboration_mode_instructions: Option<String>,
    /// The personality message of the model for `personality`.
    pub personality_message: Option<String>,
}

impl TurnSettings {
    /// The settings of a turn on `model` in `cwd`, every other dimension unset.
    pub fn new(model: &str, cwd: Option<String>) -> Self {
        Self {
            model: model.to_string(),
            cwd,
            ..Self::default()
        }
    }

    /// The reference item to keep for the next turn's diff (and to persist in the rollout).
    pub fn to_turn_context_item(&self, turn_id: Option<String>) -> TurnContextItem {
        let mut extra = ExtraFields::new();
        if let Some(date) = &self.current_date {
            extra.insert("current_date".to_string(), Value::String(date.clone()));
        }
        if let Some(timezone) = &self.timezone {
            extra.insert("timezone".to_string(), Value::String(timezone.clone()));
        }
        TurnContextItem {
            turn_id,
            cwd: self.cwd.clone(),
            approval_policy: self.approval_policy.clone(),
            sandbox_policy: self.sandbox_policy.clone(),
            model: Some(self.model.clone()),
            effort: self.effort.clone(),
            summary: self.summary.clone(),
            personality: self.personality.clone(),
            collaboration_mode: self.collaboration_mode.clone(),
            extra,
        }
    }

    /// The full environment context of this turn.
    pub fn environment_context(&self) -> EnvironmentContext {
        EnvironmentContext {
            cwd: self.cwd.clone(),
            shell: self.shell.clone(),
            current_date: self.current_date.clone(),
            timezone: self.timezone.clone(),
        }
    }
}

/// The `<environment_context>` fragment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnvironmentContext {
    /// Working directory; `None` in a diff where it did not change.
    pub cwd: Option<String>,
    /// Shell name.
    pub shell: Option<String>,
    /// Current date.
    pub current_date: Option<String>,
    /// Timezone.
    pub timezone: Option<String>,
}

impl EnvironmentContext {
    /// The environment of a host that shows the model its working directory alone.
    pub fn from_cwd(cwd: Option<String>) -> Self {
        Self {
            cwd,
            ..Self::default()
        }
    }

    /// The environment recorded in a reference item.
    pub fn from_turn_context_item(item: &TurnContextItem, shell: Option<&str>) -> Self {
        Self {
            cwd: item.cwd.clone(),
            shell: shell.map(str::to_string),
            current_date: extra_string(&item.extra, "current_date"),
            timezone: extra_string(&item.extra, "timezone"),
        }
    }

    /// Equal in every field but the shell, which cannot change from turn to turn.
    pub fn equals_except_shell(&self, other: &Self) -> bool {
        self.cwd == other.cwd
            && self.current_date == other.current_date
            && self.timezone == other.timezone
    }

    /// The diff sent when the environment changed: the cwd only if it changed, the shell, and the
    /// current date and timezone.
    pub fn diff(before: &TurnContextItem, after: &TurnSettings) -> Self {
        let cwd = if before.cwd == after.cwd {
            None
        } else {
            after.cwd.clone()
        };
        Self {
            cwd,
            shell: after.shell.clone(),
            current_date: after.current_date.clone(),
            timezone: after.timezone.clone(),
        }
    }

    /// The fragment text, one two-space-indented line per field.
    pub fn serialize_to_xml(&self) -> String {
        let mut lines = Vec::new();
        if let Some(cwd) = &self.cwd {
            lines.push(format!("  <cwd>{cwd}</cwd>"));
        }
        if let Some(shell) = &self.shell {
            lines.push(format!("  <shell>{shell}</shell>"));
        }
        if let Some(date) = &self.current_date {
            lines.push(format!("  <current_date>{date}</current_date>"));
        }
        if let Some(timezone) = &self.timezone {
            lines.push(format!("  <timezone>{timezone}</timezone>"));
        }
        wrap_contextual_fragment(
            ENVIRONMENT_CONTEXT_OPEN_TAG,
            &lines.join("\n"),
            ENVIRONMENT_CONTEXT_CLOSE_TAG,
        )
    }

    /// The fragment as a contextual `user` message.
    pub fn to_response_item(&self) -> ResponseItem {
        ResponseItem::user_text(self.serialize_to_xml())
    }
}

fn extra_string(extra: &ExtraFields, key: &str) -> Option<String> {
    extra.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Dimension 1: the environment diff message, `None` when nothing but the shell changed.
pub(crate) fn build_environment_update_item(
    previous: Option<&TurnContextItem>,
    next: &TurnSettings,
) -> Option<ResponseItem> {
    let previous = previous?;
    let before = EnvironmentContext::from_turn_context_item(previous, next.shell.as_deref());
    if before.equals_except_shell(&next.environment_context()) {
        return None;
    }
    Some(EnvironmentContext::diff(previous, next).to_response_item())
}

/// Dimension 2: the permissions section, when the sandbox or approval policy changed.
pub(crate) fn build_permissions_update_item(
    previous: Option<&TurnContextItem>,
    next: &TurnSettings,
) -> Option<String> {
    let instructions = next.permissions_instructions.as_ref()?;
    let previous = previous?;
    if previous.sandbox_policy == next.sandbox_policy
        && previous.approval_policy == next.approval_policy
    {
        return None;
    }
    Some(instructions.clone())
}

/// Dimension 3: the collaboration-mode section, when the mode changed and the new one has
/// instructions (with none, the previous instructions stay in effect in the history).
pub(crate) fn build_collaboration_mode_update_item(
    previous: Option<&TurnContextItem>,
    next: &TurnSettings,
) -> Option<String> {
    let previous = previous?;
    if previous.collaboration_mode == next.collaboration_mode {
        return None;
    }
    collaboration_mode_message(next.collaboration_mode_instructions.as_deref()?)
}

/// Dimension 4: the personality section, when the personality changed on the same model (a model
/// switch carries the new model's instructions, personality included).
pub(crate) fn build_personality_update_item(
    previous: Option<&TurnContextItem>,
    next: &TurnSettings,
) -> Option<String> {
    let previous = previous?;
    if previous.model.as_deref() != Some(next.model.as_str()) {
        return None;
    }
    next.personality.as_ref()?;
    if previous.personality == next.personality {
        return None;
    }
    let message = next.personality_message.as_deref()?;
    if message.is_empty() {
        return None;
    }
    Some(personality_spec_message(message))
}

/// Dimension 5: the `<model_switch>` section, when the previous turn used another model and the
/// new model has instructions.
pub(crate) fn build_model_instructions_update_item(
    previous_model: Option<&str>,
    next: &TurnSettings,
) -> Option<String> {
    let previous_model = previous_model?;
    if previous_model == next.model || next.model_instructions.is_empty() {
        return None;
    }
    Some(model_switch_message(&next.model_instructions))
}

/// The items to record before a turn when a reference item exists: at most one `developer`
/// message (model switch, permissions, collaboration mode, personality, in this order, one text
/// part each) followed by at most one contextual `user` message with the environment diff.
///
/// `previous_model` is the model of the previous user turn; when `None`, the reference item's
/// model is used.
pub(crate) fn build_settings_update_items(
    previous: Option<&TurnContextItem>,
    previous_model: Option<&str>,
    next: &TurnSettings,
) -> Vec<ResponseItem> {
    let previous_model = previous_model.or_else(|| previous.and_then(|item| item.model.as_deref()));
    let sections: Vec<String> = [
        build_model_instructions_update_item(previous_model, next),
        build_permissions_update_item(previous, next),
        build_collaboration_mode_update_item(previous, next),
        build_personality_update_item(previous, next),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut items = Vec::with_capacity(2);
    if !sections.is_empty() {
        items.push(ResponseItem::Message {
            id: None,
            role: "developer".to_string(),
            content: sections.into_iter().map(ContentItem::input_text).collect(),
            extra: ExtraFields::new(),
        });
    }
    if let Some(environment) = build_environment_update_item(previous, next) {
        items.push(environment);
    }
    items
}

/// True for a developer message holding a `<model_switch>` section.
pub(crate) fn is_model_switch_message(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { role, content, .. } if role == "developer" => content
            .iter()
            .filter_map(ContentItem::as_text)
            .any(|text| text.starts_with("<model_switch>")),
        _ => false,
    }
}

/// Removes and returns the newest `<model_switch>` developer message recorded after the last user
/// turn, so compaction can summarise the history without it and re-attach it afterwards.
pub fn extract_trailing_model_switch_update(items: &mut Vec<ResponseItem>) -> Option<ResponseItem> {
    let last_user_turn = items.iter().rposition(is_user_turn_start);
    let index = items
        .iter()
        .enumerate()
        .rev()
        .take_while(|(index, _)| last_user_turn.is_none_or(|boundary| *index > boundary))
        .find(|(_, item)| is_model_switch_message(item))
        .map(|(index, _)| index)?;
    Some(items.remove(index))
}

#[cfg(test)]
#[path = "settings_update_tests.rs"]
mod tests;
