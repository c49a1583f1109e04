//! The provider's own compaction behind the engine's full-compaction tier, and the readable
//! copy that keeps every opaque compaction item portable. See docs/design/compaction.md,
//! "Remote compaction and the readable copy".
//!
//! - [`decide`]: whether a full compaction goes to the provider (`[compact] mode`, what the
//!   client supports) or stays local, and why.
//! - [`compact_remotely`]: the history sent as codex-rs sends it (`core/src/compact_remote.rs`,
//!   `run_remote_compact_task_inner_impl`, openai/codex 683f0a68), the provider's answer
//!   filtered as codex filters it (`agentctx_compact::process_remote_history`), every opaque item
//!   of it given a readable copy and its writer. A failure is returned as a reason; the caller
//!   compacts locally.
//! - [`with_readable_copies`] and [`portable_item`]: a compaction item that entered the history
//!   any other way (a server-side compaction streamed in a normal response) gets its copy too, and
//!   a provider that cannot read an item is sent its copy instead.

use std::borrow::Cow;

use agentctx_compact::ContextWindow;
use agentctx_compact::InitialContextInjection;
use agentctx_compact::RemoteCompactionInput;
use agentctx_compact::offline_summary_budget;
use agentctx_compact::process_remote_history;
use agentctx_compact::readable_copy;
use agentctx_context::ContextManager;
use agentctx_context::InputModality;
use agentctx_context::TokenEstimator;
use agentctx_context::approx_token_count;
use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_model::ProviderIdentity;
use agentctx_model::WireApi;
use agentctx_protocol::CompactMode;
use agentctx_protocol::LoopEvent;
use agentctx_protocol::ResponseItem;

/// Where a full compaction runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FullCompactionPath {
    /// At the provider.
    Remote,
    /// Here, as asked (`local`) or as `auto` settles for a provider without remote compaction.
    Local,
    /// Here, although `remote` was asked: the reason, for the log and the result.
    LocalInstead(String),
}

/// The path of a full compaction under `mode` with `model` (the summary model the host passed).
pub(crate) fn decide(mode: CompactMode, model: Option<&dyn ModelClient>) -> FullCompactionPath {
    let supported = model.is_some_and(|model| model.remote_compaction().endpoint);
    match (mode, model) {
        (CompactMode::Local, _) => FullCompactionPath::Local,
        (CompactMode::Remote | CompactMode::Auto, Some(_)) if supported => {
            FullCompactionPath::Remote
        }
        (CompactMode::Auto, _) => FullCompactionPath::Local,
        (CompactMode::Remote, None) => FullCompactionPath::LocalInstead(
            "remote compaction asked for, but no model was given to compact with".to_string(),
        ),
        (CompactMode::Remote, Some(model)) => FullCompactionPath::LocalInstead(format!(
            "remote compaction asked for, but provider `{}` has no compaction endpoint",
            model.provider_identity()
        )),
    }
}

/// A history the provider compacted, filtered and ready to install (before restoration).
#[derive(Debug, Clone)]
pub(crate) struct RemotelyCompacted {
    /// The new history.
    pub(crate) history: Vec<ResponseItem>,
    /// The completed event.
    pub(crate) event: LoopEvent,
}

/// Compacts `history` at the provider of `model`: the request is codex's (no trailing
/// model-switch message, no ghost snapshots, trailing tool outputs trimmed to the window, the
/// base instructions, no tools), the answer is filtered as codex filters it with the initial
/// context put back by `injection`, the carried items after it, and every opaque item of the
/// answer given the readable copy of `history` and `model`'s identity as its writer. `Err` is
/// the reason to compact locally instead (the call failed, or nothing usable came back).
pub(crate) async fn compact_remotely(
    model: &dyn ModelClient,
    history: &[ResponseItem],
    initial_context: Vec<ResponseItem>,
    injection: InitialContextInjection,
    base_instructions: &str,
    window: ContextWindow,
    estimator: &dyn TokenEstimator,
) -> Result<RemotelyCompacted, String> {
    let identity = model.provider_identity();
    let input =
        RemoteCompactionInput::new(history, window.window_tokens, base_instructions, estimator);
    if input.trimmed > 0 {
        tracing::info!(
            trimmed = input.trimmed,
            "trimmed history items before remote compaction"
        );
    }
    // An opaque item of another provider goes as its readable copy, as in any request; the
    // view is the one a normal request sends (calls and outputs paired).
    let mut view = ContextManager::new();
    view.replace(input.items);
    let prompt_items: Vec<Cow<'_, ResponseItem>> = view
        .prompt_view(&InputModality::TEXT_AND_IMAGE)
        .into_iter()
        .filter_map(|item| portable_item(item, Some(&identity)))
        .collect();
    let prompt = Prompt {
        instructions: base_instructions.to_string(),
        input: prompt_items,
        ..Prompt::default()
    };
    let remote = model
        .compact_remote(&prompt)
        .await
        .map_err(|error| format!("remote compaction at `{identity}` failed: {error}"))?;
    let copy = readable_copy(history, offline_summary_budget(window.effective_tokens()));
    let writer = serde_json::to_value(&identity).ok();
    let remote: Vec<ResponseItem> = remote
        .into_iter()
        .map(|mut item| {
            if matches!(item, ResponseItem::Compaction { .. }) && item.readable_copy().is_none() {
                item.set_readable_copy(copy.clone());
                if let Some(writer) = &writer {
                    item.set_compaction_writer(writer.clone());
                }
            }
            item
        })
        .collect();
    let kept_before = history.len();
    let new_history = process_remote_history(remote, initial_context, injection, input.carried);
    let kept = new_history
        .iter()
        .filter(|item| agentctx_compact::should_keep_remote_item(item))
        .count();
    if kept == 0 {
        return Err(format!(
            "remote compaction at `{identity}` returned no item to keep"
        ));
    }
    let event = LoopEvent::CompactionCompleted {
        removed_messages: i32::try_from(kept_before.saturating_sub(kept)).unwrap_or(i32::MAX),
        summary_tokens: i32::try_from(approx_token_count(&copy)).unwrap_or(i32::MAX),
    };
    Ok(RemotelyCompacted {
        history: new_history,
        event,
    })
}

/// Whether `reader` can be sent `item`: anything but a compaction item can; a compaction item
/// when its recorded writer is the same provider ([`ProviderIdentity::can_read`]), or, with no
/// recorded writer (a codex-rs rollout, a compaction recorded before agentctx kept writers),
/// when `reader` speaks the Responses API, the only one that writes such items.
pub(crate) fn can_read(reader: &ProviderIdentity, item: &ResponseItem) -> bool {
    if !matches!(item, ResponseItem::Compaction { .. }) {
        return true;
    }
    match item
        .compaction_writer()
        .and_then(|writer| serde_json::from_value::<ProviderIdentity>(writer.clone()).ok())
    {
        Some(writer) => reader.can_read(&writer),
        None => reader.wire_api == WireApi::Responses,
    }
}

/// `item` as a request to `reader` carries it: unchanged when `reader` can read it (or is not
/// known), else the readable copy in its place; an opaque item with no copy is left out (the
/// provider would reject it), with a warning.
pub(crate) fn portable_item<'a>(
    item: Cow<'a, ResponseItem>,
    reader: Option<&ProviderIdentity>,
) -> Option<Cow<'a, ResponseItem>> {
    let Some(reader) = reader else {
        return Some(item);
    };
    if can_read(reader, &item) {
        return Some(item);
    }
    match item.readable_copy_message() {
        Some(copy) => Some(Cow::Owned(copy)),
        None => {
            tracing::warn!(
                provider = %reader,
                "a compaction item this provider cannot read has no readable copy; left out"
            );
            None
        }
    }
}

/// `items`, about to enter a history that holds `history`, with every compaction item that has
/// no readable copy given one (the offline summary of what precedes it: the provider compacted
/// the context it was sent) and `writer` as its writer when known. Borrowed when nothing
/// changes. A host persists what this returns, so the rollout keeps the copy.
pub(crate) fn with_readable_copies<'a>(
    history: &[ResponseItem],
    items: &'a [ResponseItem],
    writer: Option<&ProviderIdentity>,
    window: ContextWindow,
) -> Cow<'a, [ResponseItem]> {
    let needs_copy = |item: &ResponseItem| {
        matches!(item, ResponseItem::Compaction { .. }) && item.readable_copy().is_none()
    };
    if !items.iter().any(needs_copy) {
        return Cow::Borrowed(items);
    }
    let budget = offline_summary_budget(window.effective_tokens());
    let writer = writer.and_then(|writer| serde_json::to_value(writer).ok());
    let mut out: Vec<ResponseItem> = Vec::with_capacity(items.len());
    for item in items {
        let mut item = item.clone();
        if needs_copy(&item) {
            let replaced: Vec<ResponseItem> = history.iter().chain(out.iter()).cloned().collect();
            item.set_readable_copy(readable_copy(&replaced, budget));
            if let Some(writer) = &writer {
                item.set_compaction_writer(writer.clone());
            }
        }
        out.push(item);
    }
    Cow::Owned(out)
}

#[cfg(test)]
#[path = "remote_compaction_tests.rs"]
mod tests;
