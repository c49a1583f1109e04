use pretty_assertions::assert_eq;

use super::*;

fn ok(bytes: &[u8]) -> Result<&[u8], std::io::Error> {
    Ok(bytes)
}

#[test]
fn a_character_cut_by_a_chunk_boundary_is_held_back() {
    let text = "é世🙂";
    let bytes = text.as_bytes();
    for cut in 0..=bytes.len() {
        let mut decoder = SseTextDecoder::default();
        let (head, tail) = bytes.split_at(cut);
        let first = decoder.decode(ok(head)).unwrap();
        let second = decoder.decode(ok(tail)).unwrap();
        assert_eq!(format!("{first}{second}"), text, "cut at byte {cut}");
        assert_eq!(decoder.replaced(), 0);
    }
}

#[test]
fn invalid_bytes_become_replacement_characters_and_the_rest_flows() {
    let mut decoder = SseTextDecoder::default();
    let first = decoder.decode(ok(b"data: a\xffb\n")).unwrap();
    let second = decoder.decode(ok(b"data: \xc3\x28 next\n\n")).unwrap();
    assert_eq!(first, "data: a\u{fffd}b\n");
    assert_eq!(second, "data: \u{fffd}( next\n\n");
    assert_eq!(decoder.replaced(), 2);
}

#[test]
fn a_line_longer_than_the_limit_is_a_decode_error() {
    let mut decoder = SseTextDecoder::with_max_line_bytes(10);
    assert_eq!(decoder.decode(ok(b"data: 1234")).unwrap(), "data: 1234");
    let err = decoder.decode(ok(b"5")).unwrap_err();
    assert_eq!(
        err,
        ModelError::Decode {
            what: "sse stream".to_string(),
            message: "a line is longer than 10 bytes without a line break".to_string(),
        }
    );
}

#[test]
fn line_breaks_reset_the_line_length() {
    let mut decoder = SseTextDecoder::with_max_line_bytes(10);
    let mut decoded = String::new();
    for _ in 0..100 {
        decoded.push_str(&decoder.decode(ok(b"data: 12\n")).unwrap());
        decoded.push_str(&decoder.decode(ok(b"data: 34\r\n\r\n")).unwrap());
    }
    // A lone `\r` ends a line too (the SSE grammar allows CR, LF and CRLF).
    decoded.push_str(&decoder.decode(ok(b"\rdata: 123")).unwrap());
    assert_eq!(
        decoded,
        format!("{}\rdata: 123", "data: 12\ndata: 34\r\n\r\n".repeat(100))
    );
    // 200 lines of 8 bytes never summed up to the 10-byte limit; the last line is 9 bytes.
    assert_eq!(
        decoder.decode(ok(b"45")),
        Err(ModelError::Decode {
            what: "sse stream".to_string(),
            message: "a line is longer than 10 bytes without a line break".to_string(),
        })
    );
}

#[test]
fn every_chunking_of_a_body_decodes_to_the_same_text() {
    let body = "event: a\ndata: {\"t\":\"h\u{e9}llo \u{4e16}\u{754c} \u{1f642}\"}\n\n";
    let bytes = body.as_bytes();
    for size in 1..=bytes.len() {
        let mut decoder = SseTextDecoder::default();
        let decoded: String = bytes
            .chunks(size)
            .map(|chunk| decoder.decode(ok(chunk)).unwrap())
            .collect();
        assert_eq!(decoded, body, "chunks of {size} bytes");
        assert_eq!(decoder.replaced(), 0);
    }
}

#[test]
fn a_transport_error_is_a_disconnect() {
    let mut decoder = SseTextDecoder::default();
    let err = decoder
        .decode(Err::<&[u8], _>(std::io::Error::other("connection reset")))
        .unwrap_err();
    assert_eq!(
        err,
        ModelError::StreamDisconnected {
            reason: "connection reset".to_string()
        }
    );
}
