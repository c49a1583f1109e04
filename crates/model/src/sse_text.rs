//! [`SseTextDecoder`]: the bytes of a response body turned into text for the SSE parser.
//!
//! `eventsource-stream` decodes UTF-8 itself, but keeps an invalid byte in its buffer for good:
//! everything after one stray byte is withheld until the connection closes and then fails. This
//! decoder sits in front of it and makes the text it sees always valid:
//!
//! - a multi-byte character cut by a chunk boundary is held back until its last byte arrives;
//! - an invalid byte becomes U+FFFD (counted and logged), so one bad byte costs one character,
//!   not the rest of the response;
//! - a line may not grow past [`MAX_SSE_LINE_BYTES`], so a server that never sends a line break
//!   cannot make the client buffer without bound (the parser re-scans an unfinished line on
//!   every chunk, so an unbounded line would also cost quadratic time).

use std::fmt::Display;

use crate::error::ModelError;

/// The longest SSE line accepted, in bytes (16 MiB: far above any real event).
pub(crate) const MAX_SSE_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Stateful decoder of one response body.
#[derive(Debug)]
pub(crate) struct SseTextDecoder {
    /// The start of a character whose remaining bytes have not arrived yet (at most 3 bytes).
    pending: Vec<u8>,
    /// Bytes of the current, unfinished line.
    line_len: usize,
    max_line_bytes: usize,
    /// Invalid bytes replaced so far.
    replaced: usize,
}

impl Default for SseTextDecoder {
    fn default() -> Self {
        Self::with_max_line_bytes(MAX_SSE_LINE_BYTES)
    }
}

impl SseTextDecoder {
    /// A decoder that rejects lines longer than `max_line_bytes`.
    pub(crate) fn with_max_line_bytes(max_line_bytes: usize) -> Self {
        Self {
            pending: Vec::new(),
            line_len: 0,
            max_line_bytes,
            replaced: 0,
        }
    }

    /// How many invalid bytes were replaced by U+FFFD.
    #[cfg(test)]
    pub(crate) fn replaced(&self) -> usize {
        self.replaced
    }

    /// Decodes one chunk of the body. A transport error becomes
    /// [`ModelError::StreamDisconnected`]; a line over the limit [`ModelError::Decode`].
    pub(crate) fn decode<B, E>(&mut self, chunk: Result<B, E>) -> Result<String, ModelError>
    where
        B: AsRef<[u8]>,
        E: Display,
    {
        let bytes = chunk.map_err(|err| ModelError::StreamDisconnected {
            reason: err.to_string(),
        })?;
        self.pending.extend_from_slice(bytes.as_ref());
        let mut text = String::with_capacity(self.pending.len());
        let mut rest: &[u8] = &self.pending;
        let mut replaced_now = 0;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    rest = &[];
                }
                Err(err) => {
                    let Some((valid, after)) = rest.split_at_checked(err.valid_up_to()) else {
                        break;
                    };
                    text.push_str(&String::from_utf8_lossy(valid));
                    match err.error_len() {
                        Some(invalid) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            replaced_now += invalid;
                            rest = after.get(invalid..).unwrap_or_default();
                        }
                        // An incomplete character at the end: wait for the next chunk.
                        None => {
                            self.pending = after.to_vec();
                            self.account(&text, replaced_now)?;
                            return Ok(text);
                        }
                    }
                }
            }
        }
        self.pending.clear();
        self.account(&text, replaced_now)?;
        Ok(text)
    }

    fn account(&mut self, text: &str, replaced_now: usize) -> Result<(), ModelError> {
        if replaced_now > 0 {
            self.replaced = self.replaced.saturating_add(replaced_now);
            tracing::warn!(
                bytes = replaced_now,
                total = self.replaced,
                "invalid utf-8 in the response stream replaced by U+FFFD"
            );
        }
        self.line_len = match text.rfind(['\n', '\r']) {
            Some(end) => text.len() - end - 1,
            None => self.line_len.saturating_add(text.len()),
        };
        if self.line_len > self.max_line_bytes {
            return Err(ModelError::Decode {
                what: "sse stream".to_string(),
                message: format!(
                    "a line is longer than {} bytes without a line break",
                    self.max_line_bytes
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "sse_text_tests.rs"]
mod tests;
