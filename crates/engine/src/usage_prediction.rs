//! What the usage of the next request is, beyond the last measure plus our estimate of the items
//! added since: the items whose estimate the provider does not count that way (see
//! docs/design/compaction.md, "What the prediction corrects").
//!
//! `ContextUsage::measure` takes the last request's recorded input and adds the byte estimate of
//! every item added since. Where the provider counts an added item otherwise, the prediction
//! misses by the difference, and on real sessions those are the requests that missed most:
//!
//! - **Reasoning fed back.** A reasoning item carries its reasoning encrypted; the estimate of
//!   the blob (`len × 3/4 − 650` bytes, codex's rule) is not what the provider counts when it
//!   is sent back. The response that produced it reported how many reasoning tokens it
//!   generated (`reasoning_output_tokens`): those are what it adds, within its turn.
//! - **Reasoning of earlier turns.** OpenAI drops the reasoning items before the last user
//!   message from what it counts ("reasoning tokens are discarded after each turn", OpenAI's
//!   cookbook on reasoning items; codex-rs counts them back in itself unless the server says
//!   `x-reasoning-included`), and Anthropic strips earlier turns' thinking blocks (its context
//!   window page: `(input_tokens − previous_thinking_tokens) + current_turn_tokens`). So when a
//!   user turn starts, the reasoning the last measure carried (its turn's, fed back between its
//!   requests) and the reasoning of the last response leave the count. Servers differ (codex's
//!   ChatGPT backend keeps them, Claude Opus 4.5 keeps thinking blocks), so the session's own
//!   measures decide: at each turn start the measure that comes in votes for the reading that
//!   predicted it better. Until the votes say dropped, reasoning is counted as kept: the larger
//!   figure, so the compaction trigger errs on the early side.
//! - **Images.** Anthropic counts an image by its pixels, at most about 1,600 tokens; the
//!   estimate counts every image as 1,844 (`agentctx_context::anthropic_image_tokens`). With
//!   [`ImageCosts::Anthropic`] an added image counts as Anthropic counts it.
//! - **Tool schemas and instructions that changed.** The measure holds the overhead its request
//!   carried; when the instructions or the tools change (MCP servers connected, a tool set
//!   recorded per turn), the difference is added (or taken off).
//! - **A compaction item.** A server-side compaction streamed in a response replaces what
//!   precedes it: the provider counts the compaction item and what follows, never the measure
//!   of the history before it. The usage is then the estimate from the last compaction item on,
//!   as after a compaction of our own (no measure).

use agentctx_compact::ContextUsage;
use agentctx_context::IMAGE_TOKENS_ESTIMATE;
use agentctx_context::anthropic_image_tokens;
use agentctx_context::inline_image_size;
use agentctx_context::inline_images;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use agentctx_protocol::is_model_generated;
use agentctx_protocol::is_user_turn_start;

/// How the provider counts inline images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageCosts {
    /// Not known: the estimate's fixed cost per image (codex's), as the window check uses.
    #[default]
    Fixed,
    /// Anthropic's pixels over 750, after scaling down to its limits.
    Anthropic,
}

/// Whether the provider counts the reasoning of earlier turns, as the session's measures show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EarlierReasoning {
    /// Left out of the count once a user turn starts.
    Dropped,
    /// Counted as long as it is sent.
    Kept,
}

/// The smallest difference between the two readings of a turn start that makes its measure a
/// vote: below it the measure cannot tell them apart.
const VOTE_MIN_TOKENS: u64 = 64;

/// What the last measured request carried besides its input figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Measured {
    /// Its input, as the prediction starts from it.
    input_tokens: u64,
    /// Items its prompt held.
    history_len: usize,
    /// Reasoning tokens its response generated, as reported (0: not reported).
    reasoning_output_tokens: u64,
    /// Reasoning its input carried from the earlier responses of its turn: what leaves the count
    /// when a user turn starts, if the provider drops it.
    turn_reasoning_tokens: u64,
    /// Our estimate of its instructions and tool schemas.
    overhead_tokens: u64,
}

/// The corrections of the usage prediction (see the module doc), kept by the compactor beside
/// the last measure.
#[derive(Debug, Clone, Default)]
pub(crate) struct UsagePrediction {
    measured: Option<Measured>,
    /// The session's turn starts so far: one up for each measure the dropped reading predicted
    /// better, one down for the kept reading.
    votes: i32,
    images: ImageCosts,
}

/// What an added range changes, in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Corrections {
    /// Taken off the measure: reasoning it carried that the provider drops now.
    dropped: u64,
    /// Added to (or taken off) the estimate of the added items.
    added: i64,
}

impl UsagePrediction {
    pub(crate) fn set_image_costs(&mut self, images: ImageCosts) {
        self.images = images;
    }

    /// How the session's provider counts earlier turns' reasoning, as its measures voted.
    pub(crate) fn earlier_reasoning(&self) -> EarlierReasoning {
        if self.votes > 0 {
            EarlierReasoning::Dropped
        } else {
            EarlierReasoning::Kept
        }
    }

    /// The history was rewritten (a compaction, a rollback): the measure no longer describes
    /// it. What the votes learned of the provider stays.
    pub(crate) fn forget_measure(&mut self) {
        self.measured = None;
    }

    /// `usage` (the last measure plus the estimate of what was added, over `items`) with the
    /// corrections of the module doc. `tokens(i)` is our estimate of item `i`, `overhead` the
    /// instructions and tool schemas now.
    pub(crate) fn adjust(
        &self,
        usage: ContextUsage,
        items: &[ResponseItem],
        tokens: &dyn Fn(usize) -> u64,
        overhead: u64,
    ) -> ContextUsage {
        let (Some(measured_tokens), Some(measured)) = (usage.measured_tokens, self.measured) else {
            return usage;
        };
        let Some(added) = items.get(measured.history_len..) else {
            return usage;
        };
        if let Some(at) = added
            .iter()
            .rposition(|item| matches!(item, ResponseItem::Compaction { .. }))
        {
            // The provider counts from the compaction item on.
            let from = measured.history_len + at;
            let estimated = (from..items.len())
                .map(tokens)
                .fold(overhead, u64::saturating_add);
            return ContextUsage {
                measured_tokens: None,
                estimated_tokens: estimated,
                window: usage.window,
            };
        }
        let corrections =
            self.corrections(&measured, items, tokens, overhead, self.earlier_reasoning());
        // What the estimate cannot give up (overhead removed, reasoning dropped beyond the
        // added items) comes off the measure.
        let estimated = signed(usage.estimated_tokens).saturating_add(corrections.added);
        let dropped = corrections
            .dropped
            .saturating_add(estimated.min(0).unsigned_abs());
        ContextUsage {
            measured_tokens: Some(measured_tokens.saturating_sub(dropped)),
            estimated_tokens: estimated.max(0).unsigned_abs(),
            window: usage.window,
        }
    }

    /// The corrections for the items `items[measured.history_len..]`, reading earlier turns'
    /// reasoning as `earlier`.
    fn corrections(
        &self,
        measured: &Measured,
        items: &[ResponseItem],
        tokens: &dyn Fn(usize) -> u64,
        overhead: u64,
        earlier: EarlierReasoning,
    ) -> Corrections {
        let start = measured.history_len;
        let added = items.get(start..).unwrap_or_default();
        let mut corrections = Corrections::default();
        // The measured request's response: the run of model items the added range opens with.
        let response = added
            .iter()
            .take_while(|item| is_model_generated(item))
            .count();
        let response_reasoning = reasoning_tokens_in(items, start, start + response, tokens);
        let turn_start = added.iter().rposition(is_user_turn_start);
        match (turn_start, earlier) {
            (Some(turn_start), EarlierReasoning::Dropped) => {
                // Every reasoning item before the new turn's user message leaves the count:
                // the measure's, and those added before the message.
                corrections.dropped = measured.turn_reasoning_tokens;
                let before = reasoning_tokens_in(items, start, start + turn_start, tokens);
                corrections.added -= signed(before);
            }
            _ => {
                let fed = fed_reasoning(measured.reasoning_output_tokens, response_reasoning);
                corrections.added += signed(fed) - signed(response_reasoning);
            }
        }
        if self.images == ImageCosts::Anthropic {
            for item in added {
                for url in inline_images(item) {
                    if let Some((width, height)) = inline_image_size(url) {
                        corrections.added += signed(anthropic_image_tokens(width, height))
                            - signed(IMAGE_TOKENS_ESTIMATE);
                    }
                }
            }
        }
        corrections.added += signed(overhead) - signed(measured.overhead_tokens);
        corrections
    }

    /// The request that carried `prompt` (the history's first items) recorded `usage` (its input as
    /// `input_tokens`, `plausible` when the provider's figure was believed); `overhead` is our
    /// estimate of its instructions and tool schemas. When a user turn started since the last
    /// measure, this measure votes for the reading of earlier turns' reasoning that predicted it
    /// better. Then it becomes the measure the next prediction starts from.
    pub(crate) fn record(
        &mut self,
        usage: &TokenUsage,
        input_tokens: u64,
        plausible: bool,
        prompt: &[ResponseItem],
        tokens: &dyn Fn(usize) -> u64,
        overhead: u64,
    ) {
        let history_len = prompt.len();
        let turn_reasoning_tokens = match self.measured {
            Some(previous) if previous.history_len <= history_len => {
                let between = prompt.get(previous.history_len..).unwrap_or_default();
                if plausible && between.iter().any(is_user_turn_start) {
                    self.vote(&previous, prompt, tokens, overhead, input_tokens);
                }
                match between.iter().rposition(is_user_turn_start) {
                    // A new turn: what its prompt carries of reasoning is what came after its
                    // user message (usually nothing).
                    Some(at) => reasoning_tokens(prompt, previous.history_len + at, tokens),
                    None => {
                        let response = between
                            .iter()
                            .take_while(|item| is_model_generated(item))
                            .count();
                        let response_reasoning = reasoning_tokens_in(
                            prompt,
                            previous.history_len,
                            previous.history_len + response,
                            tokens,
                        );
                        previous.turn_reasoning_tokens.saturating_add(fed_reasoning(
                            previous.reasoning_output_tokens,
                            response_reasoning,
                        ))
                    }
                }
            }
            // No measure to go on (the first request, or the history was rewritten): the
            // estimate of the reasoning since the last user message.
            _ => {
                let turn = prompt.iter().rposition(is_user_turn_start).unwrap_or(0);
                reasoning_tokens(prompt, turn, tokens)
            }
        };
        self.measured = Some(Measured {
            input_tokens,
            history_len,
            reasoning_output_tokens: u64::try_from(usage.reasoning_output_tokens).unwrap_or(0),
            turn_reasoning_tokens,
            overhead_tokens: overhead,
        });
    }

    /// A turn started between `previous` and the request of `prompt`, which recorded
    /// `recorded` input tokens: one vote for the reading that predicted it better, when they
    /// differ enough to tell.
    fn vote(
        &mut self,
        previous: &Measured,
        prompt: &[ResponseItem],
        tokens: &dyn Fn(usize) -> u64,
        overhead: u64,
        recorded: u64,
    ) {
        let predicted = |earlier: EarlierReasoning| -> i64 {
            let corrections = self.corrections(previous, prompt, tokens, overhead, earlier);
            let added: u64 = (previous.history_len..prompt.len()).map(tokens).sum();
            signed(added) + corrections.added - signed(corrections.dropped)
        };
        let (dropped, kept) = (
            predicted(EarlierReasoning::Dropped),
            predicted(EarlierReasoning::Kept),
        );
        if dropped.abs_diff(kept) < VOTE_MIN_TOKENS {
            return;
        }
        // Both readings start from the same measure: compare what each says was added.
        let added = signed(recorded) - signed(previous.input_tokens);
        if (added - dropped).abs() < (added - kept).abs() {
            self.votes = self.votes.saturating_add(1);
        } else {
            self.votes = self.votes.saturating_sub(1);
        }
    }
}

/// The reasoning a response sends back within its turn: the reasoning tokens it reported
/// generating, or, when it reported none, our estimate of its reasoning items.
fn fed_reasoning(reported: u64, estimated: u64) -> u64 {
    if reported > 0 && estimated > 0 {
        reported
    } else {
        estimated
    }
}

/// Our estimate of the reasoning items of `items[from..]`.
fn reasoning_tokens(items: &[ResponseItem], from: usize, tokens: &dyn Fn(usize) -> u64) -> u64 {
    reasoning_tokens_in(items, from, items.len(), tokens)
}

/// Our estimate of the reasoning items of `items[from..to]`.
fn reasoning_tokens_in(
    items: &[ResponseItem],
    from: usize,
    to: usize,
    tokens: &dyn Fn(usize) -> u64,
) -> u64 {
    items
        .get(from..to.min(items.len()))
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, item)| matches!(item, ResponseItem::Reasoning { .. }))
        .map(|(offset, _)| tokens(from + offset))
        .fold(0, u64::saturating_add)
}

fn signed(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

#[cfg(test)]
#[path = "usage_prediction_tests.rs"]
mod tests;
