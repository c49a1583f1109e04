//! The built-in model table: what the vendors document about the models agentctx knows by name.
//!
//! Each row names the page it was checked against. Context windows are what a request may
//! fill; output limits are the most tokens one response may generate; efforts are the
//! `reasoning.effort` values the API accepts for the model (anything else is a 400). A model no
//! row matches takes its window and output limit from LiteLLM's table (`price_table.rs`). See
//! docs/design/model-providers.md, "The model table".

use crate::model_info::MaxTokensField;
use crate::model_info::ModelInfo;
use crate::price_table::PriceTable;
use crate::prompt::ReasoningEffort;

use ReasoningEffort::High;
use ReasoningEffort::Low;
use ReasoningEffort::Medium;
use ReasoningEffort::Minimal;
use ReasoningEffort::XHigh;

/// One row of the table.
#[derive(Debug, Clone, Copy)]
struct KnownModel {
    /// The slug; a longer slug that starts with it (a dated snapshot) matches too.
    slug: &'static str,
    /// Tokens one request may fill.
    context_window: i64,
    /// The output limit.
    max_output_tokens: i64,
    /// Accepted reasoning efforts, lowest first; empty for a model that does not reason through
    /// an effort (Anthropic models think by a token budget instead).
    efforts: &'static [ReasoningEffort],
    /// True when the model reasons (OpenAI effort or Anthropic extended thinking).
    reasons: bool,
    /// True for OpenAI models: Chat Completions takes `max_completion_tokens` from them.
    openai: bool,
}

/// OpenAI's GPT-5 family has a 400,000-token window of which up to 128,000 are output, so the
/// input can never exceed 272,000 tokens; that input limit is what compaction must respect and
/// what codex reports as the window, so the table uses it.
const GPT5_INPUT_WINDOW: i64 = 272_000;

const TABLE: &[KnownModel] = &[
    // https://platform.openai.com/docs/models/gpt-5 (400K window, 128K output); efforts from
    // codex-rs core/src/openai_models/model_presets.rs ("gpt-5": minimal, low, medium, high).
    openai(
        "gpt-5",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Minimal, Low, Medium, High],
    ),
    // https://platform.openai.com/docs/models/gpt-5-codex (400K, 128K); codex-rs model_presets.rs
    // ("gpt-5-codex": low, medium, high; no minimal).
    openai(
        "gpt-5-codex",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Low, Medium, High],
    ),
    // codex-rs model_presets.rs ("gpt-5-codex-mini": medium, high).
    openai(
        "gpt-5-codex-mini",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Medium, High],
    ),
    // https://platform.openai.com/docs/models/gpt-5.1 (400K, 128K); the API reference of
    // `reasoning.effort` ("gpt-5.1 supports none, low, medium, high") and codex-rs presets.
    openai("gpt-5.1", GPT5_INPUT_WINDOW, 128_000, &[Low, Medium, High]),
    // https://platform.openai.com/docs/models/gpt-5.1-codex (400K, 128K); codex-rs presets.
    openai(
        "gpt-5.1-codex",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Low, Medium, High],
    ),
    // codex-rs model_presets.rs ("gpt-5.1-codex-mini": medium, high).
    openai(
        "gpt-5.1-codex-mini",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Medium, High],
    ),
    // https://platform.openai.com/docs/models/gpt-5.1-codex-max (400K, 128K); the first model
    // with `xhigh` (API reference: "xhigh is supported for all models after gpt-5.1-codex-max";
    // codex-rs presets: low, medium, high, xhigh).
    openai(
        "gpt-5.1-codex-max",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Low, Medium, High, XHigh],
    ),
    // https://platform.openai.com/docs/models/gpt-5.2 (400K, 128K); codex-rs presets ("gpt-5.2":
    // low, medium, high, xhigh).
    openai(
        "gpt-5.2",
        GPT5_INPUT_WINDOW,
        128_000,
        &[Low, Medium, High, XHigh],
    ),
    // https://platform.openai.com/docs/models/o3 (200K window, 100K output); o-series models
    // take low, medium, high (https://platform.openai.com/docs/guides/reasoning).
    openai("o3", 200_000, 100_000, &[Low, Medium, High]),
    // https://platform.openai.com/docs/models/o4-mini (200K, 100K); low, medium, high.
    openai("o4-mini", 200_000, 100_000, &[Low, Medium, High]),
    // https://platform.openai.com/docs/models/gpt-4.1 (1,047,576 window, 32,768 output); not a
    // reasoning model.
    KnownModel {
        slug: "gpt-4.1",
        context_window: 1_047_576,
        max_output_tokens: 32_768,
        efforts: &[],
        reasons: false,
        openai: true,
    },
    // https://docs.claude.com/en/docs/about-claude/models/overview (200K window, 64K output,
    // extended thinking). The 1M window of Sonnet 4 / 4.5 is a beta behind a header this crate
    // does not send.
    anthropic("claude-sonnet-4", 200_000, 64_000),
    // Same page: Claude Sonnet 4.5, 200K window, 64K output.
    anthropic("claude-sonnet-4-5", 200_000, 64_000),
    // Same page: Claude Opus 4.1, 200K window, 32K output.
    anthropic("claude-opus-4-1", 200_000, 32_000),
    // Same page: Claude Haiku 4.5, 200K window, 64K output, extended thinking.
    anthropic("claude-haiku-4-5", 200_000, 64_000),
];

const fn openai(
    slug: &'static str,
    context_window: i64,
    max_output_tokens: i64,
    efforts: &'static [ReasoningEffort],
) -> KnownModel {
    KnownModel {
        slug,
        context_window,
        max_output_tokens,
        efforts,
        reasons: true,
        openai: true,
    }
}

const fn anthropic(slug: &'static str, context_window: i64, max_output_tokens: i64) -> KnownModel {
    KnownModel {
        slug,
        context_window,
        max_output_tokens,
        efforts: &[],
        reasons: true,
        openai: false,
    }
}

impl KnownModel {
    fn model_info(&self) -> ModelInfo {
        ModelInfo {
            context_window: self.context_window,
            max_output_tokens: Some(self.max_output_tokens),
            supports_reasoning: Some(self.reasons),
            reasoning_efforts: self.efforts.to_vec(),
            max_tokens_field: if self.openai && self.reasons {
                MaxTokensField::MaxCompletionTokens
            } else {
                MaxTokensField::MaxTokens
            },
            ..ModelInfo::default()
        }
    }
}

/// The suffix Claude Code puts on a model id when the 1M-token context window is on
/// (`claude-sonnet-4-5[1m]`, `claude-opus-4-6[1m]`; its `/model` picker and `--model` take it,
/// and it reaches a transcript's `message.model` when the request carried it).
const ONE_MILLION_SUFFIX: &str = "[1m]";

/// The window of a model id with [`ONE_MILLION_SUFFIX`]: one million tokens.
pub(crate) const ONE_MILLION_WINDOW: i64 = 1_000_000;

/// The `anthropic-beta` value that opens a model's 1M-token context window
/// (<https://docs.anthropic.com/en/docs/build-with-claude/context-windows>, "1M token context
/// window": requests over 200,000 tokens need it; without it the model keeps its 200,000-token
/// window).
pub const CONTEXT_1M_BETA: &str = "context-1m-2025-08-07";

/// The model id to send for `slug` and whether it asks for the 1M-token window: Claude Code's
/// `[1m]` suffix (any case) names a mode of the model, not a model the provider knows, so the
/// id goes without it and the request carries [`CONTEXT_1M_BETA`] instead.
pub fn one_million_mode(slug: &str) -> (&str, bool) {
    match strip_suffix_ignore_case(slug, ONE_MILLION_SUFFIX) {
        Some(base) => (base, true),
        None => (slug, false),
    }
}

/// The table's entry for `slug`: an exact row, else the longest row that prefixes it (so
/// `gpt-5-2025-08-07` finds `gpt-5`), else the limits LiteLLM's table states for it (see
/// [`litellm_model`]). A vendor prefix as routers write it (`openai/gpt-5`) is ignored. A `[1m]`
/// suffix (any case) sets the window to one million tokens, on the row of the slug without it,
/// or on defaults when neither table knows that slug: the suffix alone says what the window is.
pub(crate) fn known_model(slug: &str) -> Option<ModelInfo> {
    let bare = slug.rsplit_once('/').map_or(slug, |(_, bare)| bare);
    let (bare, one_million) = match strip_suffix_ignore_case(bare, ONE_MILLION_SUFFIX) {
        Some(base) => (base, true),
        None => (bare, false),
    };
    let row = TABLE
        .iter()
        .filter(|row| bare.starts_with(row.slug))
        .max_by_key(|row| row.slug.len())
        .map(KnownModel::model_info)
        .or_else(|| litellm_model(bare));
    if !one_million {
        return row;
    }
    let mut info = row.unwrap_or_default();
    info.context_window = ONE_MILLION_WINDOW;
    Some(info)
}

/// What LiteLLM's price table (crate::price_table) says of a model no row here matches: its
/// `max_input_tokens` as the window and its `max_output_tokens`, nothing else (efforts, the
/// output-limit field and reasoning stay at their defaults, which send what is asked).
///
/// LiteLLM defines `max_input_tokens` as "max input tokens, if the provider specifies it" and
/// `max_output_tokens` likewise (the `sample_spec` entry of its table); its legacy `max_tokens`
/// is the output limit and is not read. The window here is what one request may fill, so the
/// input limit is taken as it is, never added to the output limit: for Anthropic models it is
/// the context window, for OpenAI's GPT-5 family it is the input share of it (`gpt-5`:
/// 272,000 of 400,000). LiteLLM is not uniform there (it lists `gpt-5.1-codex` at 400,000 and
/// `gpt-5.5` at 1,050,000, the whole window), which is one reason rows of this table, prefix
/// matches included, come first. An entry without `max_input_tokens` gives nothing: an output
/// limit alone says nothing of the input.
fn litellm_model(bare: &str) -> Option<ModelInfo> {
    let price = PriceTable::bundled().ok()?.lookup(bare)?;
    Some(ModelInfo {
        context_window: price.max_input_tokens.filter(|window| *window > 0)?,
        max_output_tokens: price.max_output_tokens.filter(|limit| *limit > 0),
        ..ModelInfo::default()
    })
}

/// `text` without `suffix`, ASCII case ignored; `None` when it does not end with it.
fn strip_suffix_ignore_case<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = text.len().checked_sub(suffix.len())?;
    let tail = text.get(cut..)?;
    tail.eq_ignore_ascii_case(suffix)
        .then(|| text.get(..cut))
        .flatten()
}

/// The context window the built-in table knows for a model id as a session recorded it (a
/// Codex `turn_context.model`, a Claude Code `message.model`), else the input limit LiteLLM's
/// table states for it; `None` for a model neither knows. A `[1m]` suffix is the
/// one-million-token window.
pub fn known_context_window(slug: &str) -> Option<i64> {
    known_model(slug).map(|info| info.context_window)
}

/// The rows whose slug starts with `prefix`, as `(slug, info)`, for the provider presets.
pub(crate) fn known_models(prefix: &str) -> Vec<(String, ModelInfo)> {
    TABLE
        .iter()
        .filter(|row| row.slug.starts_with(prefix))
        .map(|row| (row.slug.to_string(), row.model_info()))
        .collect()
}

#[cfg(test)]
#[path = "model_table_tests.rs"]
mod tests;
