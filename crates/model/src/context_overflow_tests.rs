use pretty_assertions::assert_eq;

use super::*;
use crate::error::classify_http_error;

fn overflow(limit: i64, requested: i64) -> Option<ContextOverflow> {
    Some(ContextOverflow { limit, requested })
}

#[test]
fn vllm_and_openai_messages_give_window_and_request() {
    let cases = [
        (
            "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (28904 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
            overflow(32_768, 33_000),
        ),
        (
            "This model's maximum context length is 40960 tokens. However, your request has 41000 input tokens. Please reduce the length of the input messages.",
            overflow(40_960, 41_000),
        ),
        (
            "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 32768 tokens and your request has 30000 input tokens (4096 > 32768 - 30000).",
            overflow(32_768, 34_096),
        ),
        (
            "This model's maximum context length is 8,192 tokens. However, your messages resulted in 9,000 tokens.",
            overflow(8_192, 9_000),
        ),
        ("prompt is too long", None),
        ("This model's maximum context length is 4096 tokens.", None),
    ];
    for (message, expected) in cases {
        assert_eq!(parse_context_overflow(message), expected, "{message}");
    }
}

#[test]
fn a_vllm_http_400_is_a_context_window_error_with_its_numbers() {
    let body = r#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (28904 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
    let error = classify_http_error(400, None, body);
    assert_eq!(error.context_overflow(), overflow(32_768, 33_000));
    assert!(!error.is_retryable());
}

#[test]
fn other_errors_have_no_overflow_numbers() {
    let error = ModelError::BadRequest {
        status: 400,
        body: "This model's maximum context length is 10 tokens. However, you requested 20 tokens"
            .to_string(),
    };
    assert_eq!(error.context_overflow(), None);
}
