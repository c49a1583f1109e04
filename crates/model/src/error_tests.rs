use std::time::Duration;
use std::time::SystemTime;

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn openai_context_length_code_is_context_window_exceeded() {
    let body = r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#;
    assert_eq!(
        classify_http_error(400, None, body),
        ModelError::ContextWindowExceeded {
            message: "This model's maximum context length is 128000 tokens.".to_string()
        }
    );
}

#[test]
fn anthropic_prompt_too_long_is_context_window_exceeded() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
    assert_eq!(
        classify_http_error(400, None, body),
        ModelError::ContextWindowExceeded {
            message: "prompt is too long: 210000 tokens > 200000 maximum".to_string()
        }
    );
}

#[test]
fn other_invalid_request_is_bad_request() {
    let body = r#"{"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error","code":"unknown_parameter"}}"#;
    assert_eq!(
        classify_http_error(400, None, body),
        ModelError::BadRequest {
            status: 400,
            body: body.to_string()
        }
    );
}

#[test]
fn status_classes() {
    assert!(matches!(
        classify_http_error(401, None, "no"),
        ModelError::Auth { status: 401, .. }
    ));
    assert!(matches!(
        classify_http_error(403, None, "no"),
        ModelError::Auth { status: 403, .. }
    ));
    assert!(matches!(
        classify_http_error(500, None, "x"),
        ModelError::Server { status: 500, .. }
    ));
    assert!(matches!(
        classify_http_error(529, None, "x"),
        ModelError::Server { status: 529, .. }
    ));
    assert!(matches!(
        classify_http_error(404, None, "x"),
        ModelError::BadRequest { status: 404, .. }
    ));
}

#[test]
fn rate_limit_keeps_retry_after_and_quota_is_not_retryable() {
    let limited = classify_http_error(
        429,
        Some(Duration::from_secs(7)),
        r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#,
    );
    assert_eq!(
        limited,
        ModelError::RateLimited {
            retry_after: Some(Duration::from_secs(7)),
            message: "slow down".to_string()
        }
    );
    assert!(limited.is_retryable());
    let quota = classify_http_error(
        429,
        None,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    );
    assert_eq!(
        quota,
        ModelError::QuotaExceeded {
            message: "You exceeded your current quota".to_string()
        }
    );
    assert!(!quota.is_retryable());
}

#[test]
fn retry_after_from_body_message_when_no_header() {
    let limited = classify_http_error(
        429,
        None,
        r#"{"error":{"message":"Rate limit reached. Please try again in 1.5s.","code":"rate_limit_exceeded"}}"#,
    );
    assert_eq!(limited.retry_after(), Some(Duration::from_millis(1500)));
    assert_eq!(
        retry_after_from_message("Please try again in 250ms"),
        Some(Duration::from_millis(250))
    );
    assert_eq!(retry_after_from_message("try again later"), None);
}

#[test]
fn headers_retry_after_ms_wins_over_seconds() {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("retry-after", "3".parse().unwrap());
    assert_eq!(
        retry_after_from_headers(&headers, SystemTime::UNIX_EPOCH),
        Some(Duration::from_secs(3))
    );
    headers.insert("retry-after-ms", "120".parse().unwrap());
    assert_eq!(
        retry_after_from_headers(&headers, SystemTime::UNIX_EPOCH),
        Some(Duration::from_millis(120))
    );
    let mut date = reqwest::header::HeaderMap::new();
    date.insert(
        "retry-after",
        "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
    );
    // 2015-10-21T07:28:00Z is 1445412480 seconds after the epoch.
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
    assert_eq!(
        retry_after_from_headers(&date, at - Duration::from_secs(90)),
        Some(Duration::from_secs(90))
    );
    assert_eq!(
        retry_after_from_headers(&date, at + Duration::from_secs(5)),
        Some(Duration::ZERO)
    );
    let mut garbage = reqwest::header::HeaderMap::new();
    garbage.insert("retry-after", "soon".parse().unwrap());
    assert_eq!(retry_after_from_headers(&garbage, at), None);
}

#[test]
fn absurd_retry_after_values_never_panic() {
    for value in ["1e30", "99999999999999999999999", "-5", "NaN", "inf", ""] {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("retry-after", value.parse().unwrap());
        assert_eq!(
            retry_after_from_headers(&headers, SystemTime::UNIX_EPOCH),
            None,
            "retry-after: {value}"
        );
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("retry-after-ms", value.parse().unwrap());
        assert_eq!(
            retry_after_from_headers(&headers, SystemTime::UNIX_EPOCH),
            None,
            "retry-after-ms: {value}"
        );
    }
    assert_eq!(
        retry_after_from_message("try again in 999999999999999999999999999999s"),
        None
    );
    assert_eq!(
        retry_after_from_message("try again in 9999999999999999999999999999999999ms"),
        None
    );
    assert_eq!(retry_after_from_message("try again in 1.2.3s"), None);
    assert_eq!(retry_after_from_message("try again in .s"), None);
}

#[test]
fn stream_error_events_are_classified() {
    let overloaded = ProviderErrorBody::parse(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )
    .into_stream_error();
    assert_eq!(
        overloaded,
        ModelError::Server {
            status: 529,
            body: "Overloaded".to_string(),
            retry_after: None,
        }
    );
    let too_long = ProviderErrorBody::parse(
        r#"{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}"#,
    )
    .into_stream_error();
    assert_eq!(
        too_long,
        ModelError::ContextWindowExceeded {
            message: "Your input exceeds the context window of this model.".to_string()
        }
    );
    let not_json = ProviderErrorBody::parse("upstream exploded");
    assert_eq!(not_json.message, "upstream exploded");
}

#[test]
fn missing_key_message_names_the_variable() {
    let error = ModelError::MissingApiKey {
        provider: "OpenAI".to_string(),
        env_key: "OPENAI_API_KEY".to_string(),
    };
    assert_eq!(
        error.to_string(),
        "provider `OpenAI` needs an api key: set the environment variable `OPENAI_API_KEY`"
    );
    assert!(error.is_auth());
    assert!(!error.is_retryable());
}

#[test]
fn request_timeout_is_a_retryable_transport_error() {
    let timeout = classify_http_error(408, None, "slow");
    assert_eq!(
        timeout,
        ModelError::Transport {
            message: "http 408 request timeout: slow".to_string()
        }
    );
    assert!(timeout.is_retryable());
}

#[test]
fn huge_error_bodies_are_cut() {
    // 140013 bytes; the first 65536 characters are 6 + 65530 × 2 = 131066 bytes.
    let page = format!("<html>{}</html>", "é".repeat(70_000));
    let ModelError::Server { status, body, .. } = classify_http_error(502, None, &page) else {
        panic!("expected a server error");
    };
    assert_eq!(status, 502);
    assert_eq!(
        body.chars().count(),
        65_536 + "… (8947 more bytes)".chars().count()
    );
    assert!(body.starts_with("<html>éé"), "{body}");
    assert!(body.ends_with("… (8947 more bytes)"), "{body}");
    let short = r#"{"error":{"message":"bad"}}"#;
    assert_eq!(
        classify_http_error(400, None, short),
        ModelError::BadRequest {
            status: 400,
            body: short.to_string()
        }
    );
}

#[test]
fn context_overflow_numbers_are_read_from_each_providers_message() {
    let overflow = |message: &str| {
        ModelError::ContextWindowExceeded {
            message: message.to_string(),
        }
        .context_overflow()
    };
    assert_eq!(
        overflow(
            "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"
        ),
        Some(ContextOverflow {
            input_tokens: Some(199_759),
            max_tokens: Some(8_192),
            context_window: Some(200_000),
        })
    );
    assert_eq!(
        overflow("prompt is too long: 208310 tokens > 200000 maximum"),
        Some(ContextOverflow {
            input_tokens: Some(208_310),
            max_tokens: None,
            context_window: Some(200_000),
        })
    );
    assert_eq!(
        overflow(
            "This model's maximum context length is 8192 tokens. However, you requested 8202 tokens (7202 in the messages, 1000 in the completion). Please reduce the length of the messages or completion."
        ),
        Some(ContextOverflow {
            input_tokens: Some(7_202),
            max_tokens: Some(1_000),
            context_window: Some(8_192),
        })
    );
    assert_eq!(
        overflow("Request exceeds the maximum allowed number of bytes."),
        None
    );
    assert_eq!(
        ModelError::Server {
            status: 500,
            body: "1 + 2 > 3".to_string(),
            retry_after: None,
        }
        .context_overflow(),
        None
    );
}

#[test]
fn vllm_overflow_messages_give_window_input_and_output() {
    let overflow = |message: &str| {
        ModelError::ContextWindowExceeded {
            message: message.to_string(),
        }
        .context_overflow()
    };
    let numbers = |input: Option<i64>, output: Option<i64>, window: i64| {
        Some(ContextOverflow {
            input_tokens: input,
            max_tokens: output,
            context_window: Some(window),
        })
    };
    assert_eq!(
        overflow(
            "This model's maximum context length is 40960 tokens. However, your request has 41000 input tokens. Please reduce the length of the input messages."
        ),
        numbers(Some(41_000), None, 40_960)
    );
    assert_eq!(
        overflow(
            "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 32768 tokens and your request has 30000 input tokens (4096 > 32768 - 30000)."
        ),
        numbers(Some(30_000), Some(4_096), 32_768)
    );
    assert_eq!(
        overflow(
            "This model's maximum context length is 8,192 tokens. However, your messages resulted in 9,000 tokens."
        ),
        numbers(Some(9_000), None, 8_192)
    );
    assert_eq!(
        overflow("This model's maximum context length is 4096 tokens."),
        Some(ContextOverflow {
            input_tokens: None,
            max_tokens: None,
            context_window: Some(4_096),
        })
    );
    assert_eq!(overflow("prompt is too long"), None);
}

#[test]
fn a_vllm_http_400_is_a_context_window_error_with_its_numbers() {
    let body = r#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (28904 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
    let error = classify_http_error(400, None, body);
    assert_eq!(
        error.context_overflow(),
        Some(ContextOverflow {
            input_tokens: Some(28_904),
            max_tokens: Some(4_096),
            context_window: Some(32_768),
        })
    );
    assert!(!error.is_retryable());
}

#[test]
fn a_server_error_keeps_its_retry_after() {
    let error = classify_http_error(503, Some(Duration::from_secs(3)), "unavailable");
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3)));
    assert!(error.is_retryable());
    assert_eq!(classify_http_error(500, None, "x").retry_after(), None);
}

#[test]
fn messages_carry_no_debug_formatting() {
    let limited = |retry_after| ModelError::RateLimited {
        retry_after,
        message: "slow down".to_string(),
    };
    assert_eq!(
        limited(Some(Duration::from_secs(1))).to_string(),
        "rate limited (retry after 1s): slow down"
    );
    assert_eq!(
        limited(Some(Duration::from_millis(1500))).to_string(),
        "rate limited (retry after 1.5s): slow down"
    );
    assert_eq!(limited(None).to_string(), "rate limited: slow down");
    assert_eq!(
        ModelError::Timeout {
            after: Duration::from_secs(300)
        }
        .to_string(),
        "no data on the stream for 5m; if the server is slow to answer, raise \
         `stream_idle_timeout_ms` for this provider"
    );
}

#[test]
fn a_long_body_shows_its_first_lines_and_the_error_keeps_all_of_it() {
    // A Python traceback of 16 KB, as an ASGI server prints it into a 500.
    let lines: Vec<String> = (1..=400)
        .map(|n| format!("  File \"/srv/app/module_{n}.py\", line {n}, in handler_{n}"))
        .collect();
    let body = format!("Traceback (most recent call last):\n{}", lines.join("\n"));
    assert!(body.len() > 16_000);
    let error = classify_http_error(500, None, &body);
    assert_eq!(
        error,
        ModelError::Server {
            status: 500,
            body,
            retry_after: None,
        }
    );
    insta::assert_snapshot!(error.to_string(), @r#"
    server error (status 500): Traceback (most recent call last):
      File "/srv/app/module_1.py", line 1, in handler_1
      File "/srv/app/module_2.py", line 2, in handler_2
      File "/srv/app/module_3.py", line 3, in handler_3
      File "/srv/app/module_4.py", line 4, in handler_4
      File "/srv/app/module_5.py", line 5, in handler_5
    … (22615 more bytes)
    "#);
}

#[test]
fn validation_errors_in_a_5xx_are_bad_requests() {
    // Pydantic v2's own ValidationError text, as a server that lets it escape prints it.
    let pydantic = "2 validation errors for CreateChatCompletionRequest\nmessages.1.content\n  Field required [type=missing, input_value={'role': 'assistant'}, input_type=dict]\nmessages.1.tool_calls\n  Input should be a valid list [type=list_type, input_value=None, input_type=NoneType]";
    let body =
        serde_json::json!({ "error": { "message": pydantic, "type": "internal_server_error" } })
            .to_string();
    let error = classify_http_error(500, None, &body);
    assert_eq!(error, ModelError::BadRequest { status: 500, body });
    // FastAPI >= 0.116 prints a RequestValidationError as "N validation errors:" and one
    // error dict per line.
    let fastapi = "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages', 1, 'content'), 'msg': 'Field required', 'input': {'role': 'assistant'}}\n  File \"/srv/app.py\", line 3, in create\n    POST /v1/chat/completions";
    let body = serde_json::json!({ "error": { "message": fastapi } }).to_string();
    let error = classify_http_error(500, None, &body);
    assert!(!error.is_retryable(), "{error:?}");
    insta::assert_snapshot!(error.to_string(), @"
    bad request (status 500): the request is invalid:
      body.messages.1.content: Field required
    ");
    // A plain internal error stays a retryable server error.
    assert!(
        classify_http_error(500, None, r#"{"error":{"message":"CUDA out of memory"}}"#)
            .is_retryable()
    );
}
