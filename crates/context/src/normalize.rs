//! Invariants of the history sent to the model.
//!
//! Every tool call has exactly one output, every output has its call, and images are only sent to
//! models that accept them. A call without output gets a synthetic `"aborted"` output right after
//! it, with an id derived from the call id (UUIDv5) so the prompt stays byte-identical from turn
//! to turn and the provider's prompt cache keeps hitting.

use std::borrow::Cow;
use std::collections::HashSet;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use serde_json::Value;
use uuid::Uuid;

use crate::input_modality::InputModality;
use crate::prompt_pairing::has_images;

/// The output recorded for a call that never got one.
pub(crate) const ABORTED_OUTPUT_TEXT: &str = "aborted";

/// What replaces an image when the model does not accept images.
pub(crate) const IMAGE_OMITTED_PLACEHOLDER: &str =
    "image content omitted because you do not support image input";

/// Namespace of the UUIDv5 ids of synthetic outputs (fixed forever: changing it changes prompts).
const SYNTHETIC_OUTPUT_NAMESPACE: Uuid = Uuid::from_u128(0x5f0c_7a1e_93d2_4b7c_a0e4_6c1d_2b8f_9e31);

/// The stable id of the synthetic output of `call_id`: `fco_<uuid>` for function outputs,
/// `ctco_<uuid>` for custom tool outputs.
pub(crate) fn synthetic_output_id(prefix: &str, call_id: &str) -> String {
    let uuid = Uuid::new_v5(
        &SYNTHETIC_OUTPUT_NAMESPACE,
        format!("{prefix}:{call_id}").as_bytes(),
    );
    format!("{prefix}_{uuid}")
}

// The in-place form, kept as the reference `prompt_view` is tested against.
#[cfg(test)]
/// Applies every invariant: missing outputs added, orphan outputs removed, images stripped when
/// `input_modalities` lacks [`InputModality::Image`].
pub(crate) fn normalize_history(items: &mut Vec<ResponseItem>, input_modalities: &[InputModality]) {
    ensure_call_outputs_present(items);
    remove_orphan_outputs(items);
    strip_images_when_unsupported(input_modalities, items);
}

/// The normalised prompt of `items` without copying them: what [`normalize_history`] makes of a
/// copy, with ghost snapshots left out, but each item borrowed from `items` unless normalisation
/// adds it (an aborted output) or changes it (images replaced). One pass to collect the call and
/// output ids (borrowed, not cloned), one to build the view; the history is never deep-copied.
/// See docs/design/performance.md, "Per-turn pipeline".
pub(crate) fn prompt_view<'a>(
    items: &'a [ResponseItem],
    input_modalities: &[InputModality],
) -> Vec<Cow<'a, ResponseItem>> {
    let mut function_calls: HashSet<&str> = HashSet::new();
    let mut custom_calls: HashSet<&str> = HashSet::new();
    let mut function_outputs: HashSet<&str> = HashSet::new();
    let mut custom_outputs: HashSet<&str> = HashSet::new();
    for item in items {
        match item {
            ResponseItem::FunctionCall { call_id, .. }
            | ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => {
                function_calls.insert(call_id);
            }
            ResponseItem::CustomToolCall { call_id, .. } => {
                custom_calls.insert(call_id);
            }
            ResponseItem::FunctionCallOutput { call_id, .. } => {
                function_outputs.insert(call_id);
            }
            ResponseItem::CustomToolCallOutput { call_id, .. } => {
                custom_outputs.insert(call_id);
            }
            _ => {}
        }
    }
    let strip_images = !input_modalities.contains(&InputModality::Image);
    let mut view = Vec::with_capacity(items.len());
    for item in items {
        let keep = match item {
            ResponseItem::GhostSnapshot { .. } => false,
            ResponseItem::FunctionCallOutput { call_id, .. } => {
                let keep = function_calls.contains(call_id.as_str());
                if !keep {
                    tracing::debug!(call_id, "removing an output without its call");
                }
                keep
            }
            ResponseItem::CustomToolCallOutput { call_id, .. } => {
                let keep = custom_calls.contains(call_id.as_str());
                if !keep {
                    tracing::debug!(call_id, "removing a custom output without its call");
                }
                keep
            }
            _ => true,
        };
        if keep {
            view.push(without_images(item, strip_images));
        }
        match item {
            ResponseItem::FunctionCall { call_id, .. }
            | ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } if !function_outputs.contains(call_id.as_str()) => {
                tracing::debug!(call_id, "adding an aborted output for a call without one");
                view.push(Cow::Owned(aborted_function_output(call_id)));
            }
            ResponseItem::CustomToolCall { call_id, .. }
                if !custom_outputs.contains(call_id.as_str()) =>
            {
                tracing::debug!(
                    call_id,
                    "adding an aborted output for a custom call without one"
                );
                view.push(Cow::Owned(aborted_custom_output(call_id)));
            }
            _ => {}
        }
    }
    view
}

/// `item` borrowed, or a copy with its images replaced when `strip` and it has any.
fn without_images(item: &ResponseItem, strip: bool) -> Cow<'_, ResponseItem> {
    if strip && has_images(item) {
        let mut owned = item.clone();
        replace_images(&mut owned, IMAGE_OMITTED_PLACEHOLDER);
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(item)
    }
}

// The in-place form, kept as the reference `prompt_view` is tested against.
#[cfg(test)]
/// Inserts an `"aborted"` output immediately after every call that has none.
pub(crate) fn ensure_call_outputs_present(items: &mut Vec<ResponseItem>) {
    let mut function_outputs = HashSet::new();
    let mut custom_outputs = HashSet::new();
    for item in items.iter() {
        match item {
            ResponseItem::FunctionCallOutput { call_id, .. } => {
                function_outputs.insert(call_id.clone());
            }
            ResponseItem::CustomToolCallOutput { call_id, .. } => {
                custom_outputs.insert(call_id.clone());
            }
            _ => {}
        }
    }
    let mut inserts: Vec<(usize, ResponseItem)> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match item {
            ResponseItem::FunctionCall { call_id, .. }
            | ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } if !function_outputs.contains(call_id) => {
                tracing::debug!(call_id, "adding an aborted output for a call without one");
                inserts.push((index + 1, aborted_function_output(call_id)));
            }
            ResponseItem::CustomToolCall { call_id, .. } if !custom_outputs.contains(call_id) => {
                tracing::debug!(
                    call_id,
                    "adding an aborted output for a custom call without one"
                );
                inserts.push((index + 1, aborted_custom_output(call_id)));
            }
            _ => {}
        }
    }
    for (index, item) in inserts.into_iter().rev() {
        items.insert(index, item);
    }
}

fn aborted_function_output(call_id: &str) -> ResponseItem {
    ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload::text(ABORTED_OUTPUT_TEXT),
        extra: id_field(synthetic_output_id("fco", call_id)),
    }
}

fn aborted_custom_output(call_id: &str) -> ResponseItem {
    ResponseItem::CustomToolCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload::text(ABORTED_OUTPUT_TEXT),
        extra: id_field(synthetic_output_id("ctco", call_id)),
    }
}

fn id_field(id: String) -> ExtraFields {
    let mut extra = ExtraFields::new();
    extra.insert("id".to_string(), Value::String(id));
    extra
}

// The in-place form, kept as the reference `prompt_view` is tested against.
#[cfg(test)]
/// Removes outputs whose call is not in `items`. A function output matches a function call or a
/// local shell call; a custom output matches a custom call.
pub(crate) fn remove_orphan_outputs(items: &mut Vec<ResponseItem>) {
    let mut function_calls = HashSet::new();
    let mut custom_calls = HashSet::new();
    for item in items.iter() {
        match item {
            ResponseItem::FunctionCall { call_id, .. }
            | ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                ..
            } => {
                function_calls.insert(call_id.clone());
            }
            ResponseItem::CustomToolCall { call_id, .. } => {
                custom_calls.insert(call_id.clone());
            }
            _ => {}
        }
    }
    items.retain(|item| match item {
        ResponseItem::FunctionCallOutput { call_id, .. } => {
            let keep = function_calls.contains(call_id);
            if !keep {
                tracing::debug!(call_id, "removing an output without its call");
            }
            keep
        }
        ResponseItem::CustomToolCallOutput { call_id, .. } => {
            let keep = custom_calls.contains(call_id);
            if !keep {
                tracing::debug!(call_id, "removing a custom output without its call");
            }
            keep
        }
        _ => true,
    });
}

/// The index of `item`'s partner in `items`: the first output of a call, or the call of an
/// output (a function output's call may be a local shell call).
pub(crate) fn find_corresponding(items: &[ResponseItem], item: &ResponseItem) -> Option<usize> {
    match item {
        ResponseItem::FunctionCall { call_id, .. }
        | ResponseItem::LocalShellCall {
            call_id: Some(call_id),
            ..
        } => items.iter().position(|candidate| {
            matches!(candidate, ResponseItem::FunctionCallOutput { call_id: id, .. } if id == call_id)
        }),
        ResponseItem::CustomToolCall { call_id, .. } => items.iter().position(|candidate| {
            matches!(candidate, ResponseItem::CustomToolCallOutput { call_id: id, .. } if id == call_id)
        }),
        ResponseItem::FunctionCallOutput { call_id, .. } => items
            .iter()
            .position(|candidate| {
                matches!(candidate, ResponseItem::FunctionCall { call_id: id, .. } if id == call_id)
            })
            .or_else(|| {
                items.iter().position(|candidate| {
                    matches!(candidate, ResponseItem::LocalShellCall { call_id: Some(id), .. } if id == call_id)
                })
            }),
        ResponseItem::CustomToolCallOutput { call_id, .. } => items.iter().position(|candidate| {
            matches!(candidate, ResponseItem::CustomToolCall { call_id: id, .. } if id == call_id)
        }),
        _ => None,
    }
}

// The in-place form, kept as the reference `prompt_view` is tested against.
#[cfg(test)]
/// Replaces images in messages and tool outputs with [`IMAGE_OMITTED_PLACEHOLDER`] when
/// `input_modalities` lacks [`InputModality::Image`]. Returns true when something changed.
pub(crate) fn strip_images_when_unsupported(
    input_modalities: &[InputModality],
    items: &mut [ResponseItem],
) -> bool {
    if input_modalities.contains(&InputModality::Image) {
        return false;
    }
    let mut changed = false;
    for item in items.iter_mut() {
        changed |= replace_images(item, IMAGE_OMITTED_PLACEHOLDER);
    }
    changed
}

/// Replaces every image of `item` (message parts and tool output parts) with the text
/// `placeholder`. Returns true when something changed.
pub(crate) fn replace_images(item: &mut ResponseItem, placeholder: &str) -> bool {
    let mut changed = false;
    match item {
        ResponseItem::Message { content, .. } => {
            for part in content.iter_mut() {
                if matches!(part, ContentItem::InputImage { .. }) {
                    *part = ContentItem::input_text(placeholder);
                    changed = true;
                }
            }
        }
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => {
            if let FunctionCallOutputBody::ContentItems(parts) = &mut output.body {
                for part in parts.iter_mut() {
                    if matches!(part, FunctionCallOutputContentItem::InputImage { .. }) {
                        *part = FunctionCallOutputContentItem::InputText {
                            text: placeholder.to_string(),
                        };
                        changed = true;
                    }
                }
            }
        }
        _ => {}
    }
    changed
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
