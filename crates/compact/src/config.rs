//! [`CompactConfig`]: every compaction setting with its default, and the `AGENTCTX_`
//! environment switches (see docs/design/compaction.md, "Thresholds, context usage and
//! switches").

use std::collections::BTreeMap;
use std::ffi::OsString;

use agentctx_protocol::CompactMode;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// Tokens below the effective window where auto-compaction triggers.
pub(crate) const AUTO_COMPACT_BUFFER_TOKENS: u64 = 13_000;
/// Tokens below the effective window where the context warning starts.
pub(crate) const WARNING_BUFFER_TOKENS: u64 = 20_000;
/// Tokens below the effective window where the context error starts.
pub(crate) const ERROR_BUFFER_TOKENS: u64 = 20_000;
/// Tokens below the effective window where requests are refused.
pub(crate) const BLOCKING_BUFFER_TOKENS: u64 = 3_000;
/// The most output tokens the effective window reserves (the summary must fit).
pub(crate) const MAX_RESERVED_OUTPUT_TOKENS: u64 = 20_000;

/// The default of [`FullCompactConfig::max_summary_request_tokens`]: the input size above which
/// Anthropic (Claude Sonnet 4 and 4.5 on the 1M window) and Google (Gemini 2.5 Pro) bill every
/// input token of the request at their long-context price.
pub(crate) const MAX_SUMMARY_REQUEST_TOKENS: u64 = 200_000;
/// The default of [`StagedCompactConfig::keep_recent_tokens`].
pub(crate) const STAGED_KEEP_RECENT_TOKENS: u64 = 40_000;

/// The share of the whole window the output reserve may take at most, as a divisor (a quarter).
pub(crate) const RESERVED_OUTPUT_WINDOW_DIVISOR: u64 = 4;

/// How every token budget scales with the window: the configured figure is the value for large
/// windows, and a small window gets `min(figure, effective window × numerator / denominator)`.
/// Each share is chosen so that the defaults are unchanged from a 128,000-token window up (the
/// restoration budget from about 190,000), so large-window behaviour does not move; below that
/// every budget shrinks in proportion instead of staying a fixed offset that swallows the
/// window. See docs/design/compaction.md, "Small windows".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WindowShare {
    numerator: u64,
    denominator: u64,
}

impl WindowShare {
    const fn new(numerator: u64, denominator: u64) -> Self {
        Self {
            numerator,
            denominator,
        }
    }

    /// `figure`, capped at this share of `effective_window` (rounded down).
    pub(crate) fn cap(self, figure: u64, effective_window: u64) -> u64 {
        let share = u128::from(effective_window) * u128::from(self.numerator)
            / u128::from(self.denominator);
        figure.min(u64::try_from(share).unwrap_or(u64::MAX))
    }
}

/// Auto-compact buffer: an eighth (13,000 of 108,000 at 128K).
pub(crate) const AUTO_COMPACT_BUFFER_SHARE: WindowShare = WindowShare::new(1, 8);
/// Warning and error buffers: a fifth.
pub(crate) const WARNING_BUFFER_SHARE: WindowShare = WindowShare::new(1, 5);
/// Blocking buffer: a thirty-second.
pub(crate) const BLOCKING_BUFFER_SHARE: WindowShare = WindowShare::new(1, 32);
/// Recent user messages kept verbatim by full compaction: a fifth.
pub(crate) const USER_MESSAGE_SHARE: WindowShare = WindowShare::new(1, 5);
/// The offline summary (at most `OFFLINE_SUMMARY_MAX_TOKENS`, 10,000): a tenth.
pub(crate) const OFFLINE_SUMMARY_SHARE: WindowShare = WindowShare::new(1, 10);
/// All restored files: three tenths.
pub(crate) const RESTORATION_TOTAL_SHARE: WindowShare = WindowShare::new(3, 10);
/// One restored file: a tenth.
pub(crate) const RESTORATION_FILE_SHARE: WindowShare = WindowShare::new(1, 10);
/// The recent history staged compaction keeps verbatim: three eighths (40,500 at 128K).
pub(crate) const STAGED_KEEP_RECENT_SHARE: WindowShare = WindowShare::new(3, 8);
/// Micro-compaction's least saving: a fifth.
pub(crate) const MICRO_SAVINGS_SHARE: WindowShare = WindowShare::new(1, 5);
/// Micro-compaction's target for uncleared results: two fifths.
pub(crate) const MICRO_TARGET_SHARE: WindowShare = WindowShare::new(2, 5);
/// A result larger than this is persisted before it is cleared: a twentieth.
pub(crate) const MICRO_PERSIST_SHARE: WindowShare = WindowShare::new(1, 20);
/// History before the first session-memory extraction, and between two: a twentieth.
pub(crate) const EXTRACTION_INTERVAL_SHARE: WindowShare = WindowShare::new(1, 20);
/// What one extraction may write: a twenty-fifth.
pub(crate) const EXTRACTION_SUMMARY_SHARE: WindowShare = WindowShare::new(1, 25);
/// Session-memory compaction's least saving: a tenth.
pub(crate) const SESSION_MEMORY_SAVINGS_SHARE: WindowShare = WindowShare::new(1, 10);
/// The largest session summary compaction uses: two fifths.
pub(crate) const SESSION_MEMORY_SUMMARY_SHARE: WindowShare = WindowShare::new(2, 5);

/// The environment prefix of every switch.
const ENV_PREFIX: &str = "AGENTCTX_";

/// The compaction section of the configuration (`[compact]`). Every field has a default, so an
/// empty table (or none) gives [`CompactConfig::default`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CompactConfig {
    /// Master switch: false disables every tier, micro-compaction included (default true).
    pub enabled: bool,
    /// Where full compaction runs: `local` (our summary, default), `remote` (the provider's
    /// compaction endpoint, falling back to local with a logged reason) or `auto` (the
    /// provider's where it has one, else local). A `[model_providers.<id>]` entry's
    /// `compact_mode` wins for that provider. See docs/design/compaction.md, "Remote
    /// compaction and the readable copy".
    pub mode: CompactMode,
    /// Automatic compaction when usage crosses the trigger (default true). Explicit compaction
    /// and micro-compaction are not affected.
    pub auto_compact: bool,
    /// Micro-compaction of old tool results before every model request (default true).
    pub micro_compact: bool,
    /// Tokens below the effective window where auto-compaction triggers (default 13,000).
    pub auto_compact_buffer_tokens: u64,
    /// Tokens below the effective window where the context warning starts (default 20,000).
    pub warning_buffer_tokens: u64,
    /// Tokens below the effective window where the context error starts (default 20,000).
    pub error_buffer_tokens: u64,
    /// Tokens below the effective window where requests are refused (default 3,000).
    pub blocking_buffer_tokens: u64,
    /// Auto-compact at this percentage (1-100) of the effective window, when that is earlier
    /// than the buffer rule (default none).
    pub auto_compact_percent_override: Option<u8>,
    /// A token budget besides the window: auto-compact once the context holds this many tokens,
    /// capped at the window's own trigger (Claude Code's `autoCompactWindow`). `"auto"` (the
    /// default) lets the engine's cost model choose one for windows of at least 500,000 tokens
    /// and none below; `"off"` sets none; a number sets that budget. See
    /// docs/design/cost-model.md, "The token budget".
    pub auto_compact_tokens: AutoCompactTokens,
    /// An absolute blocking limit in tokens, capped at the effective window (default none).
    pub blocking_limit_override: Option<u64>,
    /// The most output tokens subtracted from the window to give the effective window; the
    /// model's own output limit is used when smaller (default 20,000).
    pub max_reserved_output_tokens: u64,
    /// Histories with fewer items are never compacted (default 4).
    pub min_messages_before_compact: usize,
    /// Micro-compaction.
    pub micro: MicroCompactConfig,
    /// Full compaction through a model.
    pub full: FullCompactConfig,
    /// Staged compaction at the token budget: old tool outputs masked, then the oldest part of
    /// the history summarised with the recent turns kept verbatim, and a full compaction only
    /// when those do not suffice.
    pub staged: StagedCompactConfig,
    /// The session-memory tier and its background extraction.
    pub session_memory: SessionMemoryConfig,
    /// Context restoration after a full compaction.
    pub restoration: ContextRestorationConfig,
    /// Detection of compactions that do not free enough.
    pub thrash_guard: ThrashGuardConfig,
}

impl Default for CompactConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            mode: CompactMode::Local,
            auto_compact: true,
            micro_compact: true,
            auto_compact_buffer_tokens: AUTO_COMPACT_BUFFER_TOKENS,
            warning_buffer_tokens: WARNING_BUFFER_TOKENS,
            error_buffer_tokens: ERROR_BUFFER_TOKENS,
            blocking_buffer_tokens: BLOCKING_BUFFER_TOKENS,
            auto_compact_percent_override: None,
            auto_compact_tokens: AutoCompactTokens::default(),
            blocking_limit_override: None,
            max_reserved_output_tokens: MAX_RESERVED_OUTPUT_TOKENS,
            min_messages_before_compact: 4,
            micro: MicroCompactConfig::default(),
            full: FullCompactConfig::default(),
            staged: StagedCompactConfig::default(),
            session_memory: SessionMemoryConfig::default(),
            restoration: ContextRestorationConfig::default(),
            thrash_guard: ThrashGuardConfig::default(),
        }
    }
}

/// The token budget of [`CompactConfig::auto_compact_tokens`]: `"auto"`, `"off"` or a number
/// of tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AutoCompactTokens {
    /// Auto-compact once the context holds this many tokens (capped at the window's trigger).
    Tokens(u64),
    /// `"auto"` or `"off"`.
    Keyword(BudgetKeyword),
}

/// The words [`AutoCompactTokens`] takes besides a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKeyword {
    /// The engine's cost model chooses the budget (windows of at least 500,000 tokens only).
    Auto,
    /// No budget: only the window's trigger.
    Off,
}

impl Default for AutoCompactTokens {
    fn default() -> Self {
        Self::Keyword(BudgetKeyword::Auto)
    }
}

impl AutoCompactTokens {
    /// The budget set in tokens, when one is.
    pub fn tokens(self) -> Option<u64> {
        match self {
            Self::Tokens(tokens) => Some(tokens),
            Self::Keyword(_) => None,
        }
    }

    /// Whether the engine chooses the budget.
    pub fn is_auto(self) -> bool {
        self == Self::Keyword(BudgetKeyword::Auto)
    }

    /// Parses `auto`, `off` or a positive number of tokens (an environment variable's value).
    fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Keyword(BudgetKeyword::Auto)),
            "off" | "none" => Some(Self::Keyword(BudgetKeyword::Off)),
            number => number
                .parse::<u64>()
                .ok()
                .filter(|tokens| *tokens > 0)
                .map(Self::Tokens),
        }
    }
}

/// Micro-compaction settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MicroCompactConfig {
    /// The most recent compactable tool results that are never cleared (default 3).
    pub keep_recent_results: usize,
    /// Clearing is applied only when it saves at least this many tokens (default 20,000).
    pub min_savings_tokens: u64,
    /// Clearing stops once the uncleared compactable results hold at most this many tokens
    /// (default 40,000).
    pub target_tool_result_tokens: u64,
    /// Cleared results larger than this are first written to `tool-results/` (default 1,000).
    pub persist_threshold_tokens: u64,
    /// Clear only when it pays (default true): when the provider's prompt cache has expired,
    /// or when what the clear saves over the session's expected remaining requests exceeds
    /// the cost of writing the prompt after the first cleared result to the cache again. See
    /// docs/design/cost-model.md.
    pub cost_aware: bool,
}

impl Default for MicroCompactConfig {
    fn default() -> Self {
        Self {
            keep_recent_results: 3,
            min_savings_tokens: 20_000,
            target_tool_result_tokens: 40_000,
            persist_threshold_tokens: 1_000,
            cost_aware: true,
        }
    }
}

/// Full-compaction settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FullCompactConfig {
    /// Retries of a failed summary request (default 2).
    pub max_summary_retries: u32,
    /// Token budget of the recent user messages kept verbatim (default 20,000).
    pub user_message_budget_tokens: u64,
    /// The cost guard: the most tokens a model-written summary request may read (default
    /// 200,000, where Anthropic's and Google's long-context prices start; 0 sets no limit).
    /// Over it, the oldest tool outputs of the request are cleared, then its oldest items are
    /// condensed by the offline summariser, before the model is asked. See
    /// docs/design/cost-model.md, "The cost guard".
    pub max_summary_request_tokens: u64,
}

impl Default for FullCompactConfig {
    fn default() -> Self {
        Self {
            max_summary_retries: 2,
            user_message_budget_tokens: 20_000,
            max_summary_request_tokens: MAX_SUMMARY_REQUEST_TOKENS,
        }
    }
}

/// Staged compaction settings (`[compact.staged]`): what the engine does when the token budget
/// ([`CompactConfig::auto_compact_tokens`]) triggers before the window's own trigger. See
/// docs/design/cost-model.md, "Staged compaction".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct StagedCompactConfig {
    /// Compact in stages at the budget (default true); false compacts in full there too.
    pub enabled: bool,
    /// The recent history kept verbatim when the oldest part is summarised, in tokens (default
    /// 40,000; at most a quarter of the trigger).
    pub keep_recent_tokens: u64,
}

impl Default for StagedCompactConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            keep_recent_tokens: STAGED_KEEP_RECENT_TOKENS,
        }
    }
}

/// Session-memory settings: the background extraction and the compaction that uses its summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SessionMemoryConfig {
    /// Background extraction of the session summary (default true).
    pub extraction_enabled: bool,
    /// Compaction from the cached summary; needs extraction too (default true).
    pub compact_enabled: bool,
    /// Tokens of history before the first extraction (default 5,000).
    pub min_tokens_to_init: u64,
    /// Tokens added between two extractions (default 5,000).
    pub min_tokens_between_updates: u64,
    /// Tool calls between two extractions (default 10).
    pub tool_calls_between_updates: u32,
    /// The least time between two extractions, in seconds (default 60).
    pub extraction_cooldown_secs: u64,
    /// The most tokens one extraction may write into the summary (default 4,000).
    pub extraction_max_summary_tokens: u64,
    /// Compaction from the summary applies only when it saves at least this many tokens
    /// (default 10,000).
    pub min_compact_savings_tokens: u64,
    /// A summary larger than this is not used for compaction (default 40,000).
    pub max_summary_tokens: u64,
    /// How long compaction waits for an extraction in progress, in milliseconds (default 15,000).
    pub wait_timeout_ms: u64,
    /// An extraction running longer than this is considered stale, in milliseconds
    /// (default 60,000).
    pub stale_update_ms: u64,
}

impl Default for SessionMemoryConfig {
    fn default() -> Self {
        Self {
            extraction_enabled: true,
            compact_enabled: true,
            min_tokens_to_init: 5_000,
            min_tokens_between_updates: 5_000,
            tool_calls_between_updates: 10,
            extraction_cooldown_secs: 60,
            extraction_max_summary_tokens: 4_000,
            min_compact_savings_tokens: 10_000,
            max_summary_tokens: 40_000,
            wait_timeout_ms: 15_000,
            stale_update_ms: 60_000,
        }
    }
}

/// Context restoration settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ContextRestorationConfig {
    /// Recently read files restored (default 5).
    pub max_files: usize,
    /// Tokens of one restored file (default 5,000).
    pub per_file_limit_tokens: u64,
    /// Tokens of all restored files together (default 50,000).
    pub total_budget_tokens: u64,
}

impl Default for ContextRestorationConfig {
    fn default() -> Self {
        Self {
            max_files: 5,
            per_file_limit_tokens: 5_000,
            total_budget_tokens: 50_000,
        }
    }
}

/// Thrash-guard settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ThrashGuardConfig {
    /// A compaction leaving usage above this percentage of the effective window is
    /// ineffective (default 60).
    pub ineffective_usage_percent: u8,
    /// Ineffective compactions in a row that make the next one aggressive (default 2).
    pub max_consecutive_ineffective: u32,
    /// Compactions within one hour beyond which the next one is aggressive (default 6).
    pub max_compactions_per_hour: u32,
}

impl Default for ThrashGuardConfig {
    fn default() -> Self {
        Self {
            ineffective_usage_percent: 60,
            max_consecutive_ineffective: 2,
            max_compactions_per_hour: 6,
        }
    }
}

/// A setting that could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CompactConfigError {
    /// An environment variable had a value that is not usable.
    #[error("invalid value {value:?} for environment variable {name}: {reason}")]
    Env {
        /// The variable.
        name: String,
        /// Its value (lossily decoded when it was not UTF-8).
        value: String,
        /// Why it was rejected.
        reason: String,
    },
}

impl CompactConfig {
    /// Applies the `AGENTCTX_` environment switches from a list of variables, as
    /// `std::env::vars_os()` gives them; other variables are ignored. Tests pass their own
    /// list, so they never touch the process environment.
    ///
    /// | variable | effect |
    /// |---|---|
    /// | `AGENTCTX_DISABLE_COMPACT` | truthy: every tier off |
    /// | `AGENTCTX_DISABLE_AUTO_COMPACT` | truthy: auto-compaction off (micro stays) |
    /// | `AGENTCTX_DISABLE_MICROCOMPACT` | truthy: micro-compaction off |
    /// | `AGENTCTX_AUTOCOMPACT_PCT_OVERRIDE` | 1-100: auto-compact percentage |
    /// | `AGENTCTX_BLOCKING_LIMIT_OVERRIDE` | tokens: absolute blocking limit |
    /// | `AGENTCTX_AUTO_COMPACT_TOKENS` | `auto`, `off` or tokens: the token budget |
    /// | `AGENTCTX_SESSION_MEMORY_MIN_TOKENS` | tokens: least saving of session-memory compaction |
    /// | `AGENTCTX_SESSION_MEMORY_MAX_TOKENS` | tokens: largest usable session summary |
    /// | `AGENTCTX_EXTRACTION_COOLDOWN` | seconds between background extractions |
    /// | `AGENTCTX_CONTEXT_RESTORE_MAX_FILES` | files restored after full compaction |
    /// | `AGENTCTX_CONTEXT_RESTORE_BUDGET` | tokens of all restored files |
    ///
    /// Booleans accept 1/0, true/false, yes/no, on/off (and empty as false); a falsy
    /// `DISABLE_*` leaves the configured value alone. The variables are applied in name order,
    /// so the first bad one reported is always the same.
    pub fn apply_env_vars<I, K, V>(&mut self, vars: I) -> Result<(), CompactConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let vars: BTreeMap<String, OsString> = vars
            .into_iter()
            .filter_map(|(name, value)| {
                let name = name.into().into_string().ok()?;
                name.starts_with(ENV_PREFIX).then(|| (name, value.into()))
            })
            .collect();
        for (name, value) in &vars {
            let Some(suffix) = name.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            let Some(switch) = EnvSwitch::from_suffix(suffix) else {
                continue;
            };
            let value = value.to_str().ok_or_else(|| CompactConfigError::Env {
                name: name.clone(),
                value: value.to_string_lossy().into_owned(),
                reason: "not valid UTF-8".to_string(),
            })?;
            self.apply_switch(switch, name, value)?;
        }
        Ok(())
    }

    fn apply_switch(
        &mut self,
        switch: EnvSwitch,
        name: &str,
        value: &str,
    ) -> Result<(), CompactConfigError> {
        match switch {
            EnvSwitch::DisableCompact => {
                if parse_bool(name, value)? {
                    self.enabled = false;
                }
            }
            EnvSwitch::DisableAutoCompact => {
                if parse_bool(name, value)? {
                    self.auto_compact = false;
                }
            }
            EnvSwitch::DisableMicroCompact => {
                if parse_bool(name, value)? {
                    self.micro_compact = false;
                }
            }
            EnvSwitch::AutoCompactPercent => {
                let percent = value
                    .trim()
                    .parse::<u8>()
                    .ok()
                    .filter(|percent| (1..=100).contains(percent))
                    .ok_or_else(|| env_error(name, value, "expected a percentage from 1 to 100"))?;
                self.auto_compact_percent_override = Some(percent);
            }
            EnvSwitch::BlockingLimit => {
                self.blocking_limit_override = Some(parse_positive(name, value, "tokens")?);
            }
            EnvSwitch::AutoCompactTokens => {
                self.auto_compact_tokens = AutoCompactTokens::parse(value).ok_or_else(|| {
                    env_error(
                        name,
                        value,
                        "expected auto, off or a positive number of tokens",
                    )
                })?;
            }
            EnvSwitch::SessionMemoryMinTokens => {
                self.session_memory.min_compact_savings_tokens =
                    parse_positive(name, value, "tokens")?;
            }
            EnvSwitch::SessionMemoryMaxTokens => {
                self.session_memory.max_summary_tokens = parse_positive(name, value, "tokens")?;
            }
            EnvSwitch::ExtractionCooldown => {
                self.session_memory.extraction_cooldown_secs = parse_count(name, value, "seconds")?;
            }
            EnvSwitch::RestoreMaxFiles => {
                let files = parse_count(name, value, "files")?;
                self.restoration.max_files =
                    usize::try_from(files).map_err(|_| env_error(name, value, "too many files"))?;
            }
            EnvSwitch::RestoreBudget => {
                self.restoration.total_budget_tokens = parse_count(name, value, "tokens")?;
            }
        }
        Ok(())
    }

    /// This configuration for a model whose effective window (the window minus the reserved
    /// output) is `effective_window` tokens: every buffer and budget is capped at its share of
    /// that window (see `WindowShare`), so a small window keeps room for each part instead of
    /// a fixed offset that swallows it. The configured figures are the values for large
    /// windows, and a 200,000-token window keeps all of them. Applying it twice changes
    /// nothing. Counts (files, retries, percentages) and times are not token budgets and stay.
    pub fn scaled_to(&self, effective_window: u64) -> Self {
        let scale = |share: WindowShare, figure: u64| share.cap(figure, effective_window);
        let mut scaled = self.clone();
        scaled.auto_compact_buffer_tokens =
            scale(AUTO_COMPACT_BUFFER_SHARE, self.auto_compact_buffer_tokens);
        scaled.warning_buffer_tokens = scale(WARNING_BUFFER_SHARE, self.warning_buffer_tokens);
        scaled.error_buffer_tokens = scale(WARNING_BUFFER_SHARE, self.error_buffer_tokens);
        scaled.blocking_buffer_tokens = scale(BLOCKING_BUFFER_SHARE, self.blocking_buffer_tokens);
        scaled.full.user_message_budget_tokens =
            scale(USER_MESSAGE_SHARE, self.full.user_message_budget_tokens);
        scaled.staged.keep_recent_tokens =
            scale(STAGED_KEEP_RECENT_SHARE, self.staged.keep_recent_tokens);
        scaled.restoration.total_budget_tokens = scale(
            RESTORATION_TOTAL_SHARE,
            self.restoration.total_budget_tokens,
        );
        scaled.restoration.per_file_limit_tokens = scale(
            RESTORATION_FILE_SHARE,
            self.restoration.per_file_limit_tokens,
        );
        scaled.micro.min_savings_tokens = scale(MICRO_SAVINGS_SHARE, self.micro.min_savings_tokens);
        scaled.micro.target_tool_result_tokens =
            scale(MICRO_TARGET_SHARE, self.micro.target_tool_result_tokens);
        scaled.micro.persist_threshold_tokens =
            scale(MICRO_PERSIST_SHARE, self.micro.persist_threshold_tokens);
        let memory = &self.session_memory;
        scaled.session_memory.min_tokens_to_init =
            scale(EXTRACTION_INTERVAL_SHARE, memory.min_tokens_to_init);
        scaled.session_memory.min_tokens_between_updates =
            scale(EXTRACTION_INTERVAL_SHARE, memory.min_tokens_between_updates);
        scaled.session_memory.extraction_max_summary_tokens = scale(
            EXTRACTION_SUMMARY_SHARE,
            memory.extraction_max_summary_tokens,
        );
        scaled.session_memory.min_compact_savings_tokens = scale(
            SESSION_MEMORY_SAVINGS_SHARE,
            memory.min_compact_savings_tokens,
        );
        scaled.session_memory.max_summary_tokens =
            scale(SESSION_MEMORY_SUMMARY_SHARE, memory.max_summary_tokens);
        scaled
    }

    /// Whether micro-compaction runs: the master switch and its own.
    pub fn micro_compact_enabled(&self) -> bool {
        self.enabled && self.micro_compact
    }

    /// Whether auto-compaction runs: the master switch and its own.
    pub fn auto_compact_enabled(&self) -> bool {
        self.enabled && self.auto_compact
    }

    /// Whether session-memory compaction may be tried: the master switch, extraction and the
    /// tier's own switch.
    pub fn session_memory_compact_enabled(&self) -> bool {
        self.enabled
            && self.session_memory.extraction_enabled
            && self.session_memory.compact_enabled
    }
}

/// The switches of [`CompactConfig::apply_env_vars`], by the name after the prefix.
#[derive(Debug, Clone, Copy)]
enum EnvSwitch {
    DisableCompact,
    DisableAutoCompact,
    DisableMicroCompact,
    AutoCompactPercent,
    BlockingLimit,
    AutoCompactTokens,
    SessionMemoryMinTokens,
    SessionMemoryMaxTokens,
    ExtractionCooldown,
    RestoreMaxFiles,
    RestoreBudget,
}

impl EnvSwitch {
    fn from_suffix(suffix: &str) -> Option<Self> {
        Some(match suffix {
            "DISABLE_COMPACT" => Self::DisableCompact,
            "DISABLE_AUTO_COMPACT" => Self::DisableAutoCompact,
            "DISABLE_MICROCOMPACT" => Self::DisableMicroCompact,
            "AUTOCOMPACT_PCT_OVERRIDE" => Self::AutoCompactPercent,
            "BLOCKING_LIMIT_OVERRIDE" => Self::BlockingLimit,
            "AUTO_COMPACT_TOKENS" => Self::AutoCompactTokens,
            "SESSION_MEMORY_MIN_TOKENS" => Self::SessionMemoryMinTokens,
            "SESSION_MEMORY_MAX_TOKENS" => Self::SessionMemoryMaxTokens,
            "EXTRACTION_COOLDOWN" => Self::ExtractionCooldown,
            "CONTEXT_RESTORE_MAX_FILES" => Self::RestoreMaxFiles,
            "CONTEXT_RESTORE_BUDGET" => Self::RestoreBudget,
            _ => return None,
        })
    }
}

fn env_error(name: &str, value: &str, reason: &str) -> CompactConfigError {
    CompactConfigError::Env {
        name: name.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

fn parse_bool(name: &str, value: &str) -> Result<bool, CompactConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(env_error(
            name,
            value,
            "expected 1/0, true/false, yes/no or on/off",
        )),
    }
}

/// A whole number, zero allowed.
fn parse_count(name: &str, value: &str, unit: &str) -> Result<u64, CompactConfigError> {
    value
        .trim()
        .parse::<u64>()
        .map_err(|_| env_error(name, value, &format!("expected a whole number of {unit}")))
}

/// A whole number above zero.
fn parse_positive(name: &str, value: &str, unit: &str) -> Result<u64, CompactConfigError> {
    match parse_count(name, value, unit)? {
        0 => Err(env_error(
            name,
            value,
            &format!("expected a positive number of {unit}"),
        )),
        count => Ok(count),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
