//! Token estimation: the codex byte heuristic behind the [`TokenEstimator`] trait.
//!
//! The heuristic counts 4 bytes per token, rounded up. An item is measured by the length of its
//! JSON serialization, with three corrections that codex-rs applies too: inline
//! `data:image/*;base64,` payloads count as a fixed [`IMAGE_BYTES_ESTIMATE`] bytes each (codex's
//! resized-image cost),
//! encrypted reasoning and compaction blobs count as `len * 3 / 4 - 650` bytes (saturating), and
//! ghost snapshots count as zero because they are never sent to the model.

use agentctx_protocol::ResponseItem;

use crate::json_len::json_len;

/// Bytes per token of the heuristic.
pub(crate) const APPROX_BYTES_PER_TOKEN: usize = 4;

/// Bytes an inline image counts for, whatever its real payload size: about 1,844 tokens, the
/// cost of an image resized to fit the provider's limits. This is codex-rs's
/// `RESIZED_IMAGE_BYTES_ESTIMATE` (`core/src/context_manager/history.rs`; see
/// <https://platform.openai.com/docs/guides/images-vision#calculating-costs>). codex measures
/// `detail: "original"` images by their 32-pixel patches instead, which needs the image decoded;
/// this estimator keeps the fixed cost for them (see docs/design/context-and-tokens.md,
/// "Images").
pub(crate) const IMAGE_BYTES_ESTIMATE: u64 = 7_373;

/// Bytes subtracted from the decoded length of an encrypted reasoning or compaction blob.
pub(crate) const ENCRYPTED_CONTENT_OVERHEAD_BYTES: u64 = 650;

/// Counts the tokens a text or a history item occupies in the model's context.
pub trait TokenEstimator: Send + Sync {
    /// Tokens of a plain text.
    fn estimate_text(&self, text: &str) -> u64;

    /// Tokens of one history item as the model sees it.
    fn estimate_item(&self, item: &ResponseItem) -> u64;

    /// Tokens of a slice of items: the sum of [`TokenEstimator::estimate_item`].
    fn estimate_items(&self, items: &[ResponseItem]) -> u64 {
        items
            .iter()
            .map(|item| self.estimate_item(item))
            .fold(0, u64::saturating_add)
    }

    /// Model-visible bytes (the heuristic's measure, whatever the estimator) and tokens of one
    /// item. Estimators that derive tokens from the bytes override this to measure only once.
    fn estimate_item_size(&self, item: &ResponseItem) -> ItemSize {
        ItemSize {
            bytes: estimate_item_model_visible_bytes(item),
            tokens: self.estimate_item(item),
        }
    }
}

/// The estimated size of one history item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemSize {
    /// Model-visible bytes under the codex heuristic.
    pub bytes: u64,
    /// Tokens under the estimator that measured the item.
    pub tokens: u64,
}

/// The codex heuristic: 4 bytes per token over the item's JSON, with the image, encrypted-content
/// and ghost-snapshot rules of the module doc.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApproxTokenEstimator;

impl TokenEstimator for ApproxTokenEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        approx_token_count(text)
    }

    fn estimate_item(&self, item: &ResponseItem) -> u64 {
        approx_tokens_from_byte_count(estimate_item_model_visible_bytes(item))
    }

    fn estimate_item_size(&self, item: &ResponseItem) -> ItemSize {
        let bytes = estimate_item_model_visible_bytes(item);
        ItemSize {
            bytes,
            tokens: approx_tokens_from_byte_count(bytes),
        }
    }
}

/// Tokens of `text` under the heuristic: `ceil(bytes / 4)`.
pub fn approx_token_count(text: &str) -> u64 {
    approx_tokens_from_byte_count(text.len() as u64)
}

/// Tokens of `bytes` bytes under the heuristic: `ceil(bytes / 4)`.
pub fn approx_tokens_from_byte_count(bytes: u64) -> u64 {
    bytes.div_ceil(APPROX_BYTES_PER_TOKEN as u64)
}

/// Bytes of `tokens` tokens under the heuristic: `tokens * 4` (saturating).
pub(crate) fn approx_bytes_for_tokens(tokens: usize) -> usize {
    tokens.saturating_mul(APPROX_BYTES_PER_TOKEN)
}

/// The estimated model-visible size of an item, in bytes.
pub(crate) fn estimate_item_model_visible_bytes(item: &ResponseItem) -> u64 {
    if item.is_injected() {
        // The injected mark is agentctx's own field; the model never sees it.
        return estimate_item_model_visible_bytes(&item.without_harness_fields());
    }
    match item {
        ResponseItem::GhostSnapshot { .. } => 0,
        ResponseItem::Reasoning {
            encrypted_content: Some(content),
            ..
        }
        | ResponseItem::Compaction {
            encrypted_content: content,
            ..
        } => encrypted_content_bytes(content.len()),
        ResponseItem::Message { .. }
        | ResponseItem::Reasoning { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::Other(_) => {
            let raw = serialized_len(item);
            let (payload_bytes, images) = inline_image_payloads(item);
            if images == 0 {
                raw
            } else {
                raw.saturating_sub(payload_bytes)
                    .saturating_add(images.saturating_mul(IMAGE_BYTES_ESTIMATE))
            }
        }
    }
}

/// `len * 3 / 4 - 650`, saturating at zero: the decoded size of a base64 blob minus its envelope.
fn encrypted_content_bytes(encoded_len: usize) -> u64 {
    ((encoded_len as u64).saturating_mul(3) / 4).saturating_sub(ENCRYPTED_CONTENT_OVERHEAD_BYTES)
}

/// Length of the item's JSON without building the string (see `json_len`).
fn serialized_len(item: &ResponseItem) -> u64 {
    json_len(item).unwrap_or_else(|| {
        tracing::warn!("could not serialize a response item to estimate its size");
        0
    })
}

/// Total bytes of inline base64 image payloads in `item`, and how many there are (the images
/// [`crate::inline_images`] finds).
fn inline_image_payloads(item: &ResponseItem) -> (u64, u64) {
    crate::image_size::inline_images(item)
        .into_iter()
        .filter_map(inline_image_payload_len)
        .fold((0u64, 0u64), |(bytes, count), len| {
            (bytes.saturating_add(len), count.saturating_add(1))
        })
}

/// The length of the base64 payload of a `data:image/...;base64,` URL, `None` for other URLs.
/// As in codex, the scheme, the media type and the `base64` marker are matched ignoring ASCII
/// case, and the marker may follow other parameters (`data:image/png;charset=utf-8;base64,`).
pub(crate) fn inline_image_payload_len(url: &str) -> Option<u64> {
    const SCHEME: &str = "data:";
    const IMAGE: &str = "image/";
    let rest = url
        .get(..SCHEME.len())
        .filter(|scheme| scheme.eq_ignore_ascii_case(SCHEME))
        .and_then(|_| url.get(SCHEME.len()..))?;
    let (metadata, payload) = rest.split_once(',')?;
    let mut parameters = metadata.split(';');
    let media_type = parameters.next().unwrap_or_default();
    let is_image = media_type
        .get(..IMAGE.len())
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(IMAGE));
    if !is_image || !parameters.any(|parameter| parameter.eq_ignore_ascii_case("base64")) {
        return None;
    }
    // The JSON writer escapes nothing in base64, so the payload's length is its serialized length.
    Some(payload.len() as u64)
}

#[cfg(test)]
#[path = "token_estimator_tests.rs"]
mod tests;
