//! What an inline image costs a provider that counts images by their pixels.
//!
//! The byte heuristic counts every inline image as [`IMAGE_TOKENS_ESTIMATE`] tokens (codex's
//! cost of a resized image; see docs/design/context-and-tokens.md, "Images"): its decisions match
//! codex's, but a small screenshot costs Anthropic a tenth of that. Anthropic documents its
//! count: an image whose long edge passes 1,568 pixels, or whose area passes about 1.15
//! megapixels (1,600 tokens), is first scaled down to fit, keeping its aspect ratio; then it costs
//! `width × height / 750` tokens (<https://docs.claude.com/en/docs/build-with-claude/vision>,
//! "Calculate image costs"). The pixel size is read from the image's header, decoded from the
//! first bytes of its base64 payload: PNG, GIF, WebP and JPEG (whose size sits in its start-of-frame
//! segment, after any metadata segments; only as much of the payload is decoded as it takes to
//! reach it). The usage prediction counts images that way for an Anthropic session
//! (docs/design/compaction.md, "Replay: predicted usage and the timeline").

use agentctx_protocol::ContentItem;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::ResponseItem;

use crate::token_estimator::IMAGE_BYTES_ESTIMATE;
use crate::token_estimator::inline_image_payload_len;

/// Tokens the byte heuristic counts for any inline image (7,373 bytes: 1,844 tokens).
pub const IMAGE_TOKENS_ESTIMATE: u64 = IMAGE_BYTES_ESTIMATE.div_ceil(4);

/// The longest edge Anthropic keeps before scaling an image down.
const ANTHROPIC_MAX_EDGE: f64 = 1_568.0;
/// The most pixels Anthropic keeps (1,600 tokens of 750 pixels each).
const ANTHROPIC_MAX_PIXELS: f64 = 1_600.0 * 750.0;
/// Pixels per token.
const ANTHROPIC_PIXELS_PER_TOKEN: f64 = 750.0;

/// Bytes of a JPEG decoded at most to find its frame size: metadata segments (EXIF, ICC
/// profiles, thumbnails) come first and can be large.
const JPEG_SCAN_LIMIT: usize = 1 << 20;

/// Tokens Anthropic counts for a `width × height` image (see the module doc).
pub fn anthropic_image_tokens(width: u32, height: u32) -> u64 {
    let (width, height) = (f64::from(width), f64::from(height));
    if width <= 0.0 || height <= 0.0 {
        return 0;
    }
    let scale = (ANTHROPIC_MAX_EDGE / width.max(height))
        .min((ANTHROPIC_MAX_PIXELS / (width * height)).sqrt())
        .min(1.0);
    let pixels = (width * scale).floor().max(1.0) * (height * scale).floor().max(1.0);
    (pixels / ANTHROPIC_PIXELS_PER_TOKEN).ceil() as u64
}

/// The inline images (`data:image/…;base64,` URLs) of `item`, in order: message parts, tool
/// output parts, and any `image_url` string of an item of unknown type.
pub fn inline_images<'a>(item: &'a ResponseItem) -> Vec<&'a str> {
    let mut urls = Vec::new();
    let mut add = |url: &'a str| {
        if inline_image_payload_len(url).is_some() {
            urls.push(url);
        }
    };
    match item {
        ResponseItem::Message { content, .. } => {
            for part in content {
                if let ContentItem::InputImage { image_url, .. } = part {
                    add(image_url);
                }
            }
        }
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => {
            if let FunctionCallOutputBody::ContentItems(parts) = &output.body {
                for part in parts {
                    if let FunctionCallOutputContentItem::InputImage { image_url, .. } = part {
                        add(image_url);
                    }
                }
            }
        }
        ResponseItem::Other(value) => value_images(value, &mut add),
        ResponseItem::Reasoning { .. }
        | ResponseItem::LocalShellCall { .. }
        | ResponseItem::FunctionCall { .. }
        | ResponseItem::CustomToolCall { .. }
        | ResponseItem::WebSearchCall { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Compaction { .. } => {}
    }
    urls
}

fn value_images<'a>(value: &'a serde_json::Value, add: &mut impl FnMut(&'a str)) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, field) in map {
                match field {
                    serde_json::Value::String(url) if key == "image_url" => add(url),
                    _ => value_images(field, add),
                }
            }
        }
        serde_json::Value::Array(values) => {
            for field in values {
                value_images(field, add);
            }
        }
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => {}
    }
}

/// The pixel size (width, height) of an inline image, read from its header; `None` when the URL
/// is not an inline image or its format is not one of PNG, GIF, WebP and JPEG.
pub fn inline_image_size(url: &str) -> Option<(u32, u32)> {
    let payload_len = inline_image_payload_len(url)?;
    let payload = url.get(url.len().checked_sub(usize::try_from(payload_len).ok()?)?..)?;
    let mut bytes = Base64Bytes::new(payload.as_bytes());
    let head: Vec<u8> = bytes.by_ref().take(30).collect();
    let size = match head.as_slice() {
        [0x89, b'P', b'N', b'G', ..] => png_size(&head),
        [b'G', b'I', b'F', b'8', ..] => gif_size(&head),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => webp_size(&head),
        [0xFF, 0xD8, ..] => jpeg_size(&head, &mut bytes),
        _ => None,
    }?;
    (size.0 > 0 && size.1 > 0).then_some(size)
}

fn u16_be(bytes: &[u8], at: usize) -> Option<u32> {
    let pair = bytes.get(at..at + 2)?;
    Some(u32::from(u16::from_be_bytes([pair[0], pair[1]])))
}

fn u16_le(bytes: &[u8], at: usize) -> Option<u32> {
    let pair = bytes.get(at..at + 2)?;
    Some(u32::from(u16::from_le_bytes([pair[0], pair[1]])))
}

fn u24_le(bytes: &[u8], at: usize) -> Option<u32> {
    let three = bytes.get(at..at + 3)?;
    Some(u32::from_le_bytes([three[0], three[1], three[2], 0]))
}

/// PNG: the IHDR chunk follows the signature; width and height are its first two big-endian
/// words.
fn png_size(head: &[u8]) -> Option<(u32, u32)> {
    if head.get(12..16)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| -> Option<u32> {
        let four = head.get(at..at + 4)?;
        Some(u32::from_be_bytes([four[0], four[1], four[2], four[3]]))
    };
    Some((word(16)?, word(20)?))
}

/// GIF: the logical screen's width and height, little-endian, after the six-byte signature.
fn gif_size(head: &[u8]) -> Option<(u32, u32)> {
    Some((u16_le(head, 6)?, u16_le(head, 8)?))
}

/// WebP: the first chunk's header holds the size: `VP8 ` (lossy) in its frame header, `VP8L`
/// (lossless) as two 14-bit fields less one, `VP8X` (extended) as two 24-bit fields less one.
fn webp_size(head: &[u8]) -> Option<(u32, u32)> {
    match head.get(12..16)? {
        b"VP8 " => Some((u16_le(head, 26)? & 0x3FFF, u16_le(head, 28)? & 0x3FFF)),
        b"VP8L" => {
            let bits = head.get(21..25)?;
            let bits = u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((u24_le(head, 24)? + 1, u24_le(head, 27)? + 1)),
        _ => None,
    }
}

/// JPEG: walks the segments after the start-of-image marker to the first start-of-frame
/// (`SOF0`–`SOF15` but `DHT`, `JPG` and `DAC`), whose height and width follow its precision
/// byte. `head` holds the first bytes decoded, `rest` the ones after.
fn jpeg_size(head: &[u8], rest: &mut Base64Bytes<'_>) -> Option<(u32, u32)> {
    let mut bytes = head
        .iter()
        .copied()
        .chain(rest)
        .skip(2)
        .take(JPEG_SCAN_LIMIT);
    loop {
        // A marker: one or more 0xFF, then its code.
        let mut code = bytes.next()?;
        if code != 0xFF {
            return None;
        }
        while code == 0xFF {
            code = bytes.next()?;
        }
        // Markers without a length.
        if code == 0x01 || (0xD0..=0xD7).contains(&code) {
            continue;
        }
        let length = (u32::from(bytes.next()?) << 8) | u32::from(bytes.next()?);
        let body = usize::try_from(length.checked_sub(2)?).ok()?;
        if matches!(code, 0xC0..=0xCF) && !matches!(code, 0xC4 | 0xC8 | 0xCC) {
            let frame: Vec<u8> = bytes.by_ref().take(5).collect();
            return Some((u16_be(&frame, 3)?, u16_be(&frame, 1)?));
        }
        if code == 0xD9 || code == 0xDA {
            // The end of the image, or the scan data, before any frame header.
            return None;
        }
        if body > 0 {
            bytes.nth(body - 1)?;
        }
    }
}

/// The bytes of a standard base64 text, decoded as they are read; stops at the first character
/// that is not base64 (padding included).
struct Base64Bytes<'a> {
    text: &'a [u8],
    at: usize,
    /// Decoded bits not yet returned, and how many.
    bits: u32,
    count: u32,
}

impl<'a> Base64Bytes<'a> {
    fn new(text: &'a [u8]) -> Self {
        Self {
            text,
            at: 0,
            bits: 0,
            count: 0,
        }
    }
}

fn sextet(character: u8) -> Option<u32> {
    let value = match character {
        b'A'..=b'Z' => character - b'A',
        b'a'..=b'z' => character - b'a' + 26,
        b'0'..=b'9' => character - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

impl Iterator for Base64Bytes<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        while self.count < 8 {
            let character = *self.text.get(self.at)?;
            self.at += 1;
            if matches!(character, b'\n' | b'\r') {
                continue;
            }
            self.bits = (self.bits << 6) | sextet(character)?;
            self.count += 6;
        }
        self.count -= 8;
        let byte = (self.bits >> self.count) & 0xFF;
        self.bits &= (1 << self.count) - 1;
        u8::try_from(byte).ok()
    }
}

#[cfg(test)]
#[path = "image_size_tests.rs"]
mod tests;
