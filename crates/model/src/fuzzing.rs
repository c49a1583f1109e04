//! Entry points for the fuzz targets under `fuzz/` (feature `fuzzing`). Not a stable API: they
//! drive the private SSE decoding and wire parsers exactly as [`crate::HttpModelClient`] does,
//! without a network, so a fuzzer can feed them any bytes.

use std::convert::Infallible;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use futures::executor::block_on;
use futures::stream;

use crate::provider_config::WireApi;
use crate::sse_text::SseTextDecoder;
use crate::stream_driver::new_parser;

/// What one parsed body yielded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SseParseSummary {
    /// Response events the wire parser produced.
    pub events: usize,
    /// True when the stream ended without an error.
    pub completed: bool,
}

/// Parses `body` as the SSE response of `wire_api`, cut into chunks of `chunk_len` bytes (as a
/// transport may cut it), through the same UTF-8 decoder, SSE parser and wire parser as a real
/// response. Errors end the parse as they end a real attempt.
pub fn parse_sse_body(wire_api: WireApi, body: &[u8], chunk_len: usize) -> SseParseSummary {
    let chunks: Vec<Result<Vec<u8>, Infallible>> = body
        .chunks(chunk_len.max(1))
        .map(|chunk| Ok(chunk.to_vec()))
        .collect();
    let mut decoder = SseTextDecoder::default();
    let mut parser = new_parser(wire_api);
    block_on(async move {
        let mut events = stream::iter(chunks)
            .map(move |chunk| decoder.decode(chunk))
            .eventsource();
        let mut out = Vec::new();
        while let Some(next) = events.next().await {
            let Ok(event) = next else {
                return SseParseSummary {
                    events: out.len(),
                    completed: false,
                };
            };
            if parser
                .on_event(&event.event, &event.data, &mut out)
                .is_err()
            {
                return SseParseSummary {
                    events: out.len(),
                    completed: false,
                };
            }
            if parser.is_complete() {
                return SseParseSummary {
                    events: out.len(),
                    completed: true,
                };
            }
        }
        let completed = parser.on_end(&mut out).is_ok();
        SseParseSummary {
            events: out.len(),
            completed,
        }
    })
}
