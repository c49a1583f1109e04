//! The engine's seams for opaque compaction items: which provider requests go to
//! ([`ContextEngine::set_provider`]), the readable copy given to a compaction item as it enters
//! the history ([`ContextEngine::with_readable_copies`]), and the copy sent in place of an item
//! the provider cannot read ([`ContextEngine::prompt_input`]). See docs/design/compaction.md,
//! "Remote compaction and the readable copy".

use std::borrow::Cow;

use agentctx_compact::offline_summary_budget;
use agentctx_compact::readable_copy;
use agentctx_model::ProviderIdentity;
use agentctx_protocol::ResponseItem;

use super::ContextEngine;
use crate::remote_compaction::can_read;
use crate::remote_compaction::portable_item;
use crate::remote_compaction::with_readable_copies;

impl ContextEngine {
    /// The client the next requests go to: its provider (as [`ContextEngine::set_provider`]),
    /// and whether that provider edits the context itself (Anthropic context editing,
    /// `agentctx_model::RemoteCompactionSupport::context_editing`). While it does, the engine's
    /// micro-compaction stands aside: the provider clears old tool results at its own trigger,
    /// and clearing them here as well would only change the prompt under the provider's cache.
    /// The usage the provider reports after its edits is what the engine records.
    pub fn set_client(&mut self, client: &dyn agentctx_model::ModelClient) {
        let identity = client.provider_identity();
        let ttl = match client.prompt_cache_ttl() {
            agentctx_model::PromptCacheTtl::FiveMinutes => crate::cost_model::CacheTtl::FiveMinutes,
            agentctx_model::PromptCacheTtl::OneHour => crate::cost_model::CacheTtl::OneHour,
        };
        self.set_cost_model(crate::cost_model::CostModel::for_model_with_ttl(
            client.slug(),
            Some(identity.wire_api),
            ttl,
        ));
        self.set_provider(identity);
        self.compactor
            .set_provider_edits_context(client.remote_compaction().context_editing);
    }

    /// What the provider reported of its own context management for the last response
    /// (`agentctx_model::ResponseEvent::ProviderContext`): the tokens its compaction step cost
    /// are added to the session's total usage (billed, but not part of the answer's usage, so the
    /// last request's usage and the window's occupancy are unchanged); its edits are logged.
    /// Returns the token info after it, for the host's `token_count` line, when it changed.
    pub fn record_provider_context(
        &mut self,
        report: &agentctx_model::ProviderContextReport,
    ) -> Option<agentctx_protocol::TokenUsageInfo> {
        for edit in &report.applied_edits {
            tracing::info!(
                kind = %edit.kind,
                cleared_input_tokens = edit.cleared_input_tokens,
                cleared_tool_uses = edit.cleared_tool_uses,
                cleared_thinking_turns = edit.cleared_thinking_turns,
                "the provider edited the context"
            );
        }
        let usage = report.compaction_usage.as_ref()?;
        self.history.add_billed_usage(usage);
        self.history.token_info().cloned()
    }

    /// The provider the next requests go to (`agentctx_model::ModelClient::provider_identity`
    /// of the session's client): a session starting, resuming on another provider, or moving to
    /// one (`/model`). A compaction item it cannot read (another provider wrote it) is sent as
    /// its readable copy from then on; the history keeps the item, so moving back sends it
    /// again. Until a host calls this, items are sent as they are.
    ///
    /// A compaction item the provider cannot read and that has no copy (one a codex-rs rollout
    /// recorded) gets one now: the offline summary of what precedes it in the history, which
    /// after a compaction is what the provider kept beside it (the user's messages).
    pub fn set_provider(&mut self, identity: ProviderIdentity) {
        let items = self.history.raw_items();
        if items
            .iter()
            .any(|item| item.readable_copy().is_none() && !can_read(&identity, item))
        {
            let budget = offline_summary_budget(self.compactor.window().effective_tokens());
            let mut annotated: Vec<ResponseItem> = Vec::with_capacity(items.len());
            for item in items {
                let mut item = item.clone();
                if item.readable_copy().is_none() && !can_read(&identity, &item) {
                    item.set_readable_copy(readable_copy(&annotated, budget));
                }
                annotated.push(item);
            }
            self.history.replace(annotated);
        }
        let images = if identity.wire_api == agentctx_model::WireApi::Anthropic {
            crate::ImageCosts::Anthropic
        } else {
            crate::ImageCosts::Fixed
        };
        self.set_image_costs(images);
        self.provider = Some(identity);
    }

    /// The provider set by [`ContextEngine::set_provider`].
    pub fn provider(&self) -> Option<&ProviderIdentity> {
        self.provider.as_ref()
    }

    /// `items` as the history will hold them: a compaction item with no readable copy (a
    /// server-side compaction streamed in a normal response) gets one, the offline summary of
    /// the history before it, with the session's provider as its writer. A host writes what
    /// this returns to its rollout, so replay, resume and `agentctx compact` read the copy;
    /// [`ContextEngine::record_items`] and [`ContextEngine::record_response`] apply it too.
    /// Borrowed (no copy) when no item needs one.
    pub fn with_readable_copies<'a>(&self, items: &'a [ResponseItem]) -> Cow<'a, [ResponseItem]> {
        with_readable_copies(
            self.history.raw_items(),
            items,
            self.provider.as_ref(),
            self.compactor.window(),
        )
    }

    /// `input` with every compaction item the provider cannot read replaced by its copy.
    pub(super) fn portable<'a>(
        &self,
        input: Vec<Cow<'a, ResponseItem>>,
    ) -> Vec<Cow<'a, ResponseItem>> {
        if self.provider.is_none()
            || !input
                .iter()
                .any(|item| matches!(item.as_ref(), ResponseItem::Compaction { .. }))
        {
            return input;
        }
        input
            .into_iter()
            .filter_map(|item| portable_item(item, self.provider.as_ref()))
            .collect()
    }
}
