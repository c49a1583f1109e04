//! When the background extraction runs. The host keeps one [`ExtractionTrigger`] per session,
//! tells it about tool calls, compactions and extractions, and asks
//! [`ExtractionTrigger::should_extract`] after each model response. See
//! docs/design/compaction.md, "Session memory", for the rule and why it reads as it does.

use std::time::Duration;
use std::time::Instant;

use crate::config::SessionMemoryConfig;

/// What the host knows about the session when it asks whether to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TriggerObservation {
    /// Tokens of the history now (the context usage the compaction trigger uses too).
    pub context_tokens: u64,
    /// Whether the model's last response asked for tool calls. A response without any is a
    /// quiet point: the model handed back to the user, nothing is half done.
    pub last_response_had_tool_calls: bool,
}

/// An extraction that was started; hand it back to [`ExtractionTrigger::extraction_finished`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "the extraction must be reported finished"]
pub struct ExtractionTicket(u64);

#[derive(Debug, Clone, Copy)]
struct InFlight {
    ticket: u64,
    started: Instant,
    context_tokens: u64,
    tool_calls: u32,
}

/// The per-session state of the background extraction trigger.
#[derive(Debug, Clone)]
pub struct ExtractionTrigger {
    enabled: bool,
    min_tokens_to_init: u64,
    min_tokens_between_updates: u64,
    tool_calls_between_updates: u32,
    cooldown: Duration,
    stale_after: Duration,
    initialized: bool,
    tokens_at_last_extraction: u64,
    tool_calls_since_last_extraction: u32,
    last_started: Option<Instant>,
    in_flight: Option<InFlight>,
    next_ticket: u64,
    compacting: bool,
}

impl ExtractionTrigger {
    /// A fresh session's trigger with the thresholds of `config`.
    pub fn new(config: &SessionMemoryConfig) -> Self {
        Self {
            enabled: config.extraction_enabled,
            min_tokens_to_init: config.min_tokens_to_init,
            min_tokens_between_updates: config.min_tokens_between_updates,
            tool_calls_between_updates: config.tool_calls_between_updates,
            cooldown: Duration::from_secs(config.extraction_cooldown_secs),
            stale_after: Duration::from_millis(config.stale_update_ms),
            initialized: false,
            tokens_at_last_extraction: 0,
            tool_calls_since_last_extraction: 0,
            last_started: None,
            in_flight: None,
            next_ticket: 0,
            compacting: false,
        }
    }

    /// Counts tool calls the model made (call it as they are recorded).
    pub fn record_tool_calls(&mut self, count: u32) {
        self.tool_calls_since_last_extraction =
            self.tool_calls_since_last_extraction.saturating_add(count);
    }

    /// A compaction started: no extraction starts until it ends.
    pub fn begin_compaction(&mut self) {
        self.compacting = true;
    }

    /// A compaction ended and left `context_tokens_after` tokens. The token growth since the
    /// last extraction is measured from there on, since the history shrank under it.
    pub fn end_compaction(&mut self, context_tokens_after: u64) {
        self.compacting = false;
        self.tokens_at_last_extraction = self.tokens_at_last_extraction.min(context_tokens_after);
        if let Some(in_flight) = &mut self.in_flight {
            in_flight.context_tokens = in_flight.context_tokens.min(context_tokens_after);
        }
    }

    /// Whether a compaction is running.
    pub fn is_compacting(&self) -> bool {
        self.compacting
    }

    /// Whether an extraction is running and not stale at `now` (running for longer than the
    /// configured stale time counts as abandoned, so a new one may start).
    pub fn is_extracting(&self, now: Instant) -> bool {
        self.in_flight.is_some_and(|in_flight| {
            now.saturating_duration_since(in_flight.started) < self.stale_after
        })
    }

    /// Tool calls counted since the last successful extraction.
    pub fn tool_calls_since_last_extraction(&self) -> u32 {
        self.tool_calls_since_last_extraction
    }

    /// Whether a background extraction should start now. Never while compacting, while another
    /// extraction runs, or within the cooldown of the last start. The first extraction waits
    /// until the history holds `min_tokens_to_init` tokens. Then an extraction needs
    /// `min_tokens_between_updates` new tokens since the last one, and either
    /// `tool_calls_between_updates` tool calls since it or a quiet point (the last response made
    /// no tool call).
    pub fn should_extract(&mut self, observation: TriggerObservation, now: Instant) -> bool {
        if !self.enabled || self.compacting || self.is_extracting(now) {
            return false;
        }
        if !self.initialized {
            if observation.context_tokens < self.min_tokens_to_init {
                return false;
            }
            self.initialized = true;
        }
        if let Some(last) = self.last_started
            && now.saturating_duration_since(last) < self.cooldown
        {
            return false;
        }
        let new_tokens = observation
            .context_tokens
            .saturating_sub(self.tokens_at_last_extraction);
        let enough_tokens = new_tokens >= self.min_tokens_between_updates;
        let enough_tool_calls =
            self.tool_calls_since_last_extraction >= self.tool_calls_between_updates;
        let quiet_point = !observation.last_response_had_tool_calls;
        enough_tokens && (enough_tool_calls || quiet_point)
    }

    /// An extraction starts now over a history of `context_tokens` tokens.
    pub fn extraction_started(&mut self, context_tokens: u64, now: Instant) -> ExtractionTicket {
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.last_started = Some(now);
        self.in_flight = Some(InFlight {
            ticket,
            started: now,
            context_tokens,
            tool_calls: self.tool_calls_since_last_extraction,
        });
        ExtractionTicket(ticket)
    }

    /// The extraction of `ticket` ended. On success the tokens and tool calls it covered are
    /// consumed; on failure they stay counted, so the next check after the cooldown tries
    /// again. A ticket of an extraction already replaced as stale is ignored.
    pub fn extraction_finished(&mut self, ticket: ExtractionTicket, succeeded: bool) {
        let Some(in_flight) = self
            .in_flight
            .filter(|in_flight| in_flight.ticket == ticket.0)
        else {
            tracing::debug!(
                ticket = ticket.0,
                "a stale session-memory extraction finished"
            );
            return;
        };
        self.in_flight = None;
        if succeeded {
            self.tokens_at_last_extraction = in_flight.context_tokens;
            self.tool_calls_since_last_extraction = self
                .tool_calls_since_last_extraction
                .saturating_sub(in_flight.tool_calls);
        }
    }
}

#[cfg(test)]
#[path = "trigger_tests.rs"]
mod tests;
