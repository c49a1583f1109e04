//! Any bytes as a streamed Responses response body, cut at a fuzzer-chosen chunk size: UTF-8
//! decoding, SSE framing and the wire parser never panic.
#![no_main]

use agentctx_model::WireApi;
use agentctx_model::fuzzing::parse_sse_body;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((chunk, body)) = data.split_first() else {
        return;
    };
    let summary = parse_sse_body(WireApi::Responses, body, usize::from(*chunk));
    assert!(summary.events <= body.len() + 1);
});
