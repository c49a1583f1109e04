use pretty_assertions::assert_eq;
use tokio::io::BufReader;

use super::*;

async fn read_all(bytes: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
    let mut reader = BufReader::new(bytes);
    let mut out = Vec::new();
    loop {
        let next = read_message(&mut reader)
            .await
            .map_err(|err| err.to_string());
        let done = !matches!(next, Ok(Some(_)));
        out.push(next);
        if done {
            return out;
        }
    }
}

#[tokio::test]
async fn a_written_message_reads_back() {
    let mut buffer = Vec::new();
    write_message(&mut buffer, br#"{"a":1}"#).await.unwrap();
    write_message(&mut buffer, "{\"é\":2}".as_bytes())
        .await
        .unwrap();
    assert!(buffer.starts_with(b"Content-Length: 7\r\n\r\n{\"a\":1}"));
    assert_eq!(
        read_all(&buffer).await,
        vec![
            Ok(Some(br#"{"a":1}"#.to_vec())),
            // The length counts bytes, not characters.
            Ok(Some("{\"é\":2}".as_bytes().to_vec())),
            Ok(None),
        ]
    );
}

#[tokio::test]
async fn headers_are_case_insensitive_and_content_type_is_ignored() {
    let bytes =
        b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}";
    assert_eq!(
        read_all(bytes).await,
        vec![Ok(Some(b"{}".to_vec())), Ok(None)]
    );
}

#[tokio::test]
async fn broken_frames_are_errors_not_panics() {
    let cases: [(&[u8], &str); 4] = [
        (b"Content-Type: x\r\n\r\n{}", "no Content-Length"),
        (b"Content-Length: two\r\n\r\n{}", "bad Content-Length"),
        (b"garbage\r\n\r\n", "not a header field"),
        (b"Content-Length: 2\r\n", "ended inside a header"),
    ];
    for (bytes, expected) in cases {
        let results = read_all(bytes).await;
        let last = results.last().unwrap();
        assert!(
            matches!(last, Err(message) if message.contains(expected)),
            "{expected}: {results:?}"
        );
    }
    let huge = format!("Content-Length: {}\r\n\r\n", MAX_BODY_BYTES + 1);
    assert!(matches!(
        read_all(huge.as_bytes()).await.last(),
        Some(Err(message)) if message.contains("limit")
    ));
}

#[tokio::test]
async fn a_body_cut_short_is_an_error() {
    let results = read_all(b"Content-Length: 10\r\n\r\n{}").await;
    assert!(matches!(results.last(), Some(Err(_))), "{results:?}");
}
