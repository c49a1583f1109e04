use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn durations_read_as_people_write_them() {
    let cases = [
        (Duration::ZERO, "0ms"),
        (Duration::from_millis(250), "250ms"),
        (Duration::from_secs(1), "1s"),
        (Duration::from_millis(1_500), "1.5s"),
        (Duration::from_secs(90), "1m 30s"),
        (Duration::from_secs(300), "5m"),
        (Duration::from_secs(7_200), "2h"),
        (Duration::from_secs(3_900), "1h 5m"),
    ];
    for (duration, text) in cases {
        assert_eq!(human_duration(duration), text, "{duration:?}");
    }
    assert_eq!(retry_after_clause(None), "");
    assert_eq!(
        retry_after_clause(Some(Duration::from_secs(2))),
        " (retry after 2s)"
    );
}

#[test]
fn short_text_is_shown_whole_and_long_text_is_cut_with_a_count() {
    assert_eq!(first_lines("  one line  \n"), "one line");
    let many: Vec<String> = (1..=10).map(|n| format!("line {n}")).collect();
    let text = many.join("\n");
    assert_eq!(
        first_lines(&text),
        "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n… (28 more bytes)"
    );
    let long = "é".repeat(1_000);
    let cut = first_lines(&long);
    assert_eq!(cut, format!("{}… (800 more bytes)", "é".repeat(600)));
}

#[test]
fn python_repr_validation_errors_are_read_one_per_line() {
    let message = "[{'type': 'string_type', 'loc': ('body', 'messages', 2, 'content'), 'msg': \
                   'Input should be a valid string', 'input': None}, {'type': 'literal_error', \
                   'loc': ('body', 'messages', 2, 'role'), 'msg': \"Input should be 'tool'\", \
                   'input': 'x'}]";
    assert_eq!(
        validation_errors("", message),
        Some(vec![
            "body.messages.2.content: Input should be a valid string".to_string(),
            "body.messages.2.role: Input should be 'tool'".to_string(),
        ])
    );
    assert!(is_validation_error("", message));
    assert_eq!(validation_errors("", "CUDA out of memory"), None);
    assert!(!is_validation_error("", "CUDA out of memory"));
}

#[test]
fn fastapi_detail_bodies_are_read_one_per_line() {
    let body = r#"{"detail":[{"type":"missing","loc":["body","messages",1,"content"],"msg":"Field required","input":{}}]}"#;
    assert_eq!(
        validation_errors(body, body),
        Some(vec!["body.messages.1.content: Field required".to_string()])
    );
    // A `detail` that is a plain string (FastAPI's HTTPException) is no validation error.
    assert_eq!(validation_errors(r#"{"detail":"Not Found"}"#, ""), None);
}

#[test]
fn server_text_is_the_message_with_its_code() {
    assert_eq!(
        server_text(
            r#"{"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error","code":"unknown_parameter"}}"#
        ),
        "Unknown parameter: 'foo'. (unknown_parameter)"
    );
    assert_eq!(server_text("upstream exploded\n"), "upstream exploded");
}
