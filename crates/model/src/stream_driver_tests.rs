use std::time::Duration;

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

const FIXTURES: [(&str, &str, WireApi); 9] = [
    (
        "responses_tool_call",
        include_str!("../tests/fixtures/responses_tool_call.sse"),
        WireApi::Responses,
    ),
    (
        "responses_failed",
        include_str!("../tests/fixtures/responses_failed.sse"),
        WireApi::Responses,
    ),
    (
        "responses_error_event",
        include_str!("../tests/fixtures/responses_error_event.sse"),
        WireApi::Responses,
    ),
    (
        "chat_tool_call",
        include_str!("../tests/fixtures/chat_tool_call.sse"),
        WireApi::Chat,
    ),
    (
        "chat_ollama_reasoning",
        include_str!("../tests/fixtures/chat_ollama_reasoning.sse"),
        WireApi::Chat,
    ),
    (
        "chat_error",
        include_str!("../tests/fixtures/chat_error.sse"),
        WireApi::Chat,
    ),
    (
        "anthropic_tool_use",
        include_str!("../tests/fixtures/anthropic_tool_use.sse"),
        WireApi::Anthropic,
    ),
    (
        "anthropic_structured",
        include_str!("../tests/fixtures/anthropic_structured.sse"),
        WireApi::Anthropic,
    ),
    (
        "anthropic_overloaded",
        include_str!("../tests/fixtures/anthropic_overloaded.sse"),
        WireApi::Anthropic,
    ),
];

/// A body with multi-byte characters, so random cuts land inside characters.
const NON_ASCII_BODY: &str = concat!(
    "event: response.created\n",
    "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\n",
    "event: response.output_text.delta\n",
    "data: {\"type\":\"response.output_text.delta\",\"delta\":\"héllo 世界 🙂\"}\n\n",
    "event: response.output_text.delta\n",
    "data: {\"type\":\"response.output_text.delta\",\"delta\":\" ünïcödé ✓\"}\n\n",
    "event: response.completed\n",
    "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"usage\":",
    "{\"input_tokens\":3,\"output_tokens\":4,\"total_tokens\":7}}}\n\n",
);

type Collected = Vec<Result<ResponseEvent, ModelError>>;

fn driver(wire_api: WireApi, idle_timeout: Option<Duration>) -> (StreamDriver, Receiver) {
    let (tx, rx) = mpsc::channel(16);
    let request = PreparedRequest {
        http: reqwest::Client::new(),
        url: reqwest::Url::parse("http://127.0.0.1:9/unused").unwrap(),
        headers: reqwest::header::HeaderMap::new(),
        body: bytes::Bytes::new(),
        request_max_retries: 0,
        response_timeout: None,
    };
    (
        StreamDriver::new(request, wire_api, 0, idle_timeout, tx),
        rx,
    )
}

type Receiver = mpsc::Receiver<Result<ResponseEvent, ModelError>>;

/// The events (and the final error, if any) of reading `chunks` as one response body.
async fn read_chunks(wire_api: WireApi, chunks: Vec<Vec<u8>>) -> Collected {
    let (driver, mut rx) = driver(wire_api, None);
    let read = async move {
        let body = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
        let end = driver
            .read_body(
                body,
                SseTextDecoder::default(),
                &mut AttemptState::default(),
            )
            .await;
        if let AttemptEnd::Failed(error) = end {
            let _ = driver.tx.send(Err(error)).await;
        }
    };
    let collect = async {
        let mut events = Vec::new();
        while let Some(event) = rx.recv().await {
            events.push(event);
        }
        events
    };
    tokio::join!(read, collect).1
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

/// `body` cut at the given byte offsets (any order, duplicates allowed).
fn split_at(body: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (body.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts {
        chunks.push(body[start..cut].to_vec());
        start = cut;
    }
    chunks.push(body[start..].to_vec());
    chunks
}

fn whole(body: &str) -> Vec<Vec<u8>> {
    vec![body.as_bytes().to_vec()]
}

#[test]
fn every_fixture_yields_events_and_ends() {
    for (name, body, wire_api) in FIXTURES {
        let events = block_on(read_chunks(wire_api, whole(body)));
        assert!(events.len() > 1, "{name}: {events:?}");
        let completed = events
            .iter()
            .any(|event| matches!(event, Ok(ResponseEvent::Completed { .. })));
        let failed = events.last().is_some_and(Result::is_err);
        assert!(completed ^ failed, "{name}: {events:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any cutting of a fixture body into chunks yields the same events as the whole body.
    #[test]
    fn chunk_boundaries_do_not_change_the_events(
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        for (name, body, wire_api) in FIXTURES {
            let expected = block_on(read_chunks(wire_api, whole(body)));
            let got = block_on(read_chunks(wire_api, split_at(body.as_bytes(), &cuts)));
            prop_assert_eq!(got, expected, "{}", name);
        }
    }

    /// The same holds with `\r\n` line endings (a cut may fall between `\r` and `\n`).
    #[test]
    fn crlf_bodies_cut_anywhere_give_the_lf_events(
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        for (name, body, wire_api) in FIXTURES {
            let expected = block_on(read_chunks(wire_api, whole(body)));
            let crlf = body.replace('\n', "\r\n");
            let got = block_on(read_chunks(wire_api, split_at(crlf.as_bytes(), &cuts)));
            prop_assert_eq!(got, expected, "{}", name);
        }
    }

    /// Cuts inside multi-byte characters lose nothing.
    #[test]
    fn cuts_inside_characters_keep_the_text(
        cuts in proptest::collection::vec(any::<usize>(), 0..60),
    ) {
        let expected = block_on(read_chunks(WireApi::Responses, whole(NON_ASCII_BODY)));
        let got = block_on(read_chunks(
            WireApi::Responses,
            split_at(NON_ASCII_BODY.as_bytes(), &cuts),
        ));
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn non_ascii_text_arrives_whole() {
    let events = block_on(read_chunks(WireApi::Responses, whole(NON_ASCII_BODY)));
    let text: String = events
        .iter()
        .filter_map(|event| match event {
            Ok(ResponseEvent::OutputTextDelta(piece)) => Some(piece.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "héllo 世界 🙂 ünïcödé ✓");
}

#[test]
fn comments_keepalives_and_other_fields_are_ignored() {
    for (name, body, wire_api) in FIXTURES {
        let expected = block_on(read_chunks(wire_api, whole(body)));
        let noisy = format!(
            ": keepalive\n\n{}",
            body.replace("\n\n", "\n\n: ping\n\nid: 7\nretry: 1000\n: comment\n\n")
        );
        let got = block_on(read_chunks(wire_api, whole(&noisy)));
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn multi_line_data_is_joined_with_newlines() {
    // JSON allows a line break between tokens, so a payload split over `data:` lines parses the
    // same once the lines are joined with `\n`.
    let body = NON_ASCII_BODY.replace("\"delta\":", "\"delta\":\ndata: ");
    assert_ne!(body, NON_ASCII_BODY);
    let expected = block_on(read_chunks(WireApi::Responses, whole(NON_ASCII_BODY)));
    let got = block_on(read_chunks(WireApi::Responses, whole(&body)));
    assert_eq!(got, expected);
}

#[test]
fn an_invalid_byte_costs_one_character_not_the_stream() {
    let body = NON_ASCII_BODY.as_bytes();
    let at = NON_ASCII_BODY.find("héllo").unwrap();
    let mut broken = body[..at].to_vec();
    broken.push(0xff);
    broken.extend_from_slice(&body[at..]);
    let events = block_on(read_chunks(WireApi::Responses, vec![broken]));
    assert_eq!(
        events.get(1),
        Some(&Ok(ResponseEvent::OutputTextDelta(
            "\u{fffd}héllo 世界 🙂".to_string()
        )))
    );
    assert!(
        matches!(events.last(), Some(Ok(ResponseEvent::Completed { .. }))),
        "{events:?}"
    );
}

#[test]
fn a_megabyte_line_in_small_chunks_is_read() {
    let big = "x".repeat(1024 * 1024);
    let body = NON_ASCII_BODY.replace("héllo", &big);
    let chunks: Vec<Vec<u8>> = body.as_bytes().chunks(4096).map(<[u8]>::to_vec).collect();
    let events = block_on(read_chunks(WireApi::Responses, chunks));
    let longest = events
        .iter()
        .filter_map(|event| match event {
            Ok(ResponseEvent::OutputTextDelta(piece)) => Some(piece.len()),
            _ => None,
        })
        .max();
    assert_eq!(longest, Some(big.len() + " 世界 🙂".len()));
}

#[test]
fn an_endless_line_is_a_decode_error() {
    let (driver, _rx) = driver(WireApi::Responses, None);
    let body = futures::stream::iter(
        std::iter::repeat_n(b"0123456789".to_vec(), 20).map(Ok::<_, std::io::Error>),
    );
    let end = block_on(driver.read_body(
        body,
        SseTextDecoder::with_max_line_bytes(100),
        &mut AttemptState::default(),
    ));
    assert!(
        matches!(&end, AttemptEnd::Failed(ModelError::Decode { message, .. }) if message.contains("longer than 100 bytes")),
        "{end:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_dropped_consumer_ends_the_read_of_a_stalled_body() {
    // Only a keep-alive, then silence: no event to deliver would reveal the missing consumer.
    let (driver, rx) = driver(WireApi::Responses, None);
    let first = futures::stream::iter([Ok::<_, std::io::Error>(b": keepalive\n\n".to_vec())]);
    let body = first.chain(futures::stream::pending());
    drop(rx);
    let end = tokio::time::timeout(
        Duration::from_secs(3600),
        driver.read_body(
            body,
            SseTextDecoder::default(),
            &mut AttemptState::default(),
        ),
    )
    .await;
    assert!(matches!(end, Ok(AttemptEnd::ConsumerGone)), "{end:?}");
}

#[tokio::test(start_paused = true)]
async fn a_stalled_body_hits_the_idle_timeout() {
    let (driver, _rx) = driver(WireApi::Responses, Some(Duration::from_secs(30)));
    let body = futures::stream::pending::<Result<Vec<u8>, std::io::Error>>();
    let end = driver
        .read_body(
            body,
            SseTextDecoder::default(),
            &mut AttemptState::default(),
        )
        .await;
    assert!(
        matches!(end, AttemptEnd::Failed(ModelError::Timeout { after }) if after == Duration::from_secs(30)),
        "{end:?}"
    );
}
