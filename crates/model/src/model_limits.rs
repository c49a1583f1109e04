//! The model in use with its context window and output limit, and where each came from:
//! [`ModelConfig::resolve_model`].
//!
//! Strongest first: a flag (`--context-window`, applied by the host with
//! [`ResolvedModel::set_context_window`]), `model_context_window` / `model_max_output_tokens`
//! at the top of `config.toml` (as codex reads them: codex-rs `core/src/config/mod.rs`,
//! `Config::model_context_window`), the provider's entry for the model, the server when asked
//! (`crate::probe_context_window`, only when nothing else knew the window), the built-in model
//! table, the default. See docs/design/model-providers.md, "Windows".

use crate::model_info::LimitSource;
use crate::model_info::ModelInfo;
use crate::provider_config::ModelConfig;
use crate::provider_config::find_model_entry;
use crate::provider_env::ResolvedProvider;

/// The model in use: its slug, what is known of it, and where its limits came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedModel {
    /// The model slug.
    pub slug: String,
    /// What is known of the model, limits included.
    pub info: ModelInfo,
    /// Where `info.context_window` came from.
    pub context_window_source: LimitSource,
    /// Where `info.max_output_tokens` came from; `None` while no limit is known.
    pub max_output_tokens_source: Option<LimitSource>,
}

impl ResolvedModel {
    /// True when nothing configured or built in knew the window (it is the default).
    pub fn window_is_unknown(&self) -> bool {
        self.context_window_source == LimitSource::Default
    }

    /// Sets the window from a stronger source (a flag, the server).
    pub fn set_context_window(&mut self, tokens: i64, source: LimitSource) {
        self.info.context_window = tokens;
        self.context_window_source = source;
    }
}

impl ModelConfig {
    /// The model `slug` on `provider` (resolved from this configuration) with its limits and
    /// their sources, before any flag or server probe.
    pub fn resolve_model(&self, provider: &ResolvedProvider, slug: &str) -> ResolvedModel {
        let mut info = provider.config.model_info(slug);
        // The user's own entry, apart from the preset's rows it was merged with.
        let user_entry = self
            .model_providers
            .get(&provider.id)
            .and_then(|entry| find_model_entry(&entry.models, slug));
        let known_row = provider
            .config
            .configured_model(slug)
            .cloned()
            .map(|entry| entry.apply_to(ModelInfo::default()))
            .or_else(|| provider.config.table_model(slug));
        let row_window = provider
            .config
            .configured_model(slug)
            .and_then(|entry| entry.context_window)
            .or_else(|| {
                provider
                    .config
                    .table_model(slug)
                    .map(|row| row.context_window)
            });

        let context_window_source = if let Some(window) = self.model_context_window {
            info.context_window = window;
            LimitSource::ConfigTopLevel
        } else if user_entry.is_some_and(|entry| entry.context_window.is_some()) {
            LimitSource::ProviderModel
        } else if row_window.is_some() {
            LimitSource::ModelTable
        } else {
            LimitSource::Default
        };

        let max_output_tokens_source = if let Some(max_output) = self.model_max_output_tokens {
            info.max_output_tokens = Some(max_output);
            Some(LimitSource::ConfigTopLevel)
        } else if user_entry.is_some_and(|entry| entry.max_output_tokens.is_some()) {
            Some(LimitSource::ProviderModel)
        } else if known_row.is_some_and(|row| row.max_output_tokens.is_some()) {
            Some(LimitSource::ModelTable)
        } else {
            None
        };
        ResolvedModel {
            slug: slug.to_string(),
            info,
            context_window_source,
            max_output_tokens_source,
        }
    }
}

#[cfg(test)]
#[path = "model_limits_tests.rs"]
mod tests;
