use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde::Deserialize;

use super::*;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Plan {
    title: String,
    steps: Vec<Step>,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Step {
    name: String,
    minutes: u32,
}

#[test]
fn schema_uses_defs_and_no_schema_key() {
    let schema = output_schema_for::<Plan>();
    assert!(schema.get("$schema").is_none());
    assert!(schema["$defs"]["Step"].is_object(), "{schema}");
    assert_eq!(schema["required"], serde_json::json!(["steps", "title"]));
}

#[test]
fn valid_reply_parses_even_in_a_code_fence() {
    let schema = output_schema_for::<Plan>();
    let reply = "```json\n{\"title\":\"t\",\"steps\":[{\"name\":\"a\",\"minutes\":3}]}\n```";
    assert_eq!(
        parse_structured::<Plan>(reply, &schema).unwrap(),
        Plan {
            title: "t".to_string(),
            steps: vec![Step {
                name: "a".to_string(),
                minutes: 3
            }],
            note: None,
        }
    );
}

#[test]
fn missing_nested_required_field_is_named() {
    let schema = output_schema_for::<Plan>();
    let error =
        parse_structured::<Plan>(r#"{"title":"t","steps":[{"name":"a"}]}"#, &schema).unwrap_err();
    assert_eq!(
        error,
        StructuredOutputError::MissingField {
            path: "$.steps[0].minutes".to_string()
        }
    );
}

#[test]
fn wrong_type_and_not_json_and_empty() {
    let schema = output_schema_for::<Plan>();
    assert_eq!(
        parse_structured::<Plan>(r#"{"title":5,"steps":[]}"#, &schema).unwrap_err(),
        StructuredOutputError::WrongType {
            path: "$.title".to_string(),
            expected: "string".to_string(),
            found: "integer".to_string()
        }
    );
    assert!(matches!(
        parse_structured::<Plan>("Sure! Here is the plan", &schema).unwrap_err(),
        StructuredOutputError::NotJson { .. }
    ));
    assert_eq!(
        parse_structured::<Plan>("  ", &schema).unwrap_err(),
        StructuredOutputError::Empty
    );
}

#[test]
fn serde_catches_what_the_schema_check_does_not() {
    let schema = output_schema_for::<Plan>();
    let error = parse_structured::<Plan>(
        r#"{"title":"t","steps":[{"name":"a","minutes":-1}]}"#,
        &schema,
    )
    .unwrap_err();
    assert!(
        matches!(error, StructuredOutputError::Deserialize { .. }),
        "{error:?}"
    );
}

#[test]
fn json_is_found_in_prose_and_in_a_fence_after_prose() {
    let schema = output_schema_for::<Step>();
    let expected = Step {
        name: "a".to_string(),
        minutes: 3,
    };
    for reply in [
        "Sure, here it is:\n```json\n{\"name\":\"a\",\"minutes\":3}\n```\nAnything else?",
        "The answer is {\"name\":\"a\",\"minutes\":3} as asked.",
        "```\n{\"name\":\"a\",\"minutes\":3}\n```",
    ] {
        assert_eq!(parse_structured::<Step>(reply, &schema).unwrap(), expected);
    }
    assert!(matches!(
        parse_structured::<Step>("no braces {here", &schema).unwrap_err(),
        StructuredOutputError::NotJson { .. }
    ));
}

#[test]
fn refusals_of_the_request_shape_are_told_from_other_failures() {
    let llama_validation_500 = ModelError::Server {
        status: 500,
        body: r#"{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}]","type":"internal_server_error"}}"#.to_string(),
        retry_after: None,
    };
    let refusals = [
        ModelError::BadRequest {
            status: 400,
            body: "response_format json_schema is not supported".to_string(),
        },
        ModelError::BadRequest {
            status: 422,
            body: "{\"detail\":[]}".to_string(),
        },
        ModelError::BadRequest {
            status: 500,
            body: "validation".to_string(),
        },
        llama_validation_500,
    ];
    for error in &refusals {
        assert!(refuses_request_shape(error), "{error:?}");
    }
    let failures = [
        ModelError::Server {
            status: 500,
            body: "CUDA out of memory".to_string(),
            retry_after: None,
        },
        ModelError::Server {
            status: 503,
            body: "response_format".to_string(),
            retry_after: None,
        },
        ModelError::Transport {
            message: "connection refused".to_string(),
        },
        ModelError::ContextWindowExceeded {
            message: "maximum context length".to_string(),
        },
        ModelError::Auth {
            status: 401,
            body: String::new(),
        },
        ModelError::BadRequest {
            status: 404,
            body: "not found".to_string(),
        },
    ];
    for error in &failures {
        assert!(!refuses_request_shape(error), "{error:?}");
    }
}

#[test]
fn instructions_carry_the_schema_only_when_the_format_does_not() {
    let schema = output_schema_for::<Step>();
    assert_eq!(
        structured_instructions("judge", &schema, StructuredOutputMode::JsonSchema),
        "judge"
    );
    let text = structured_instructions("judge\n", &schema, StructuredOutputMode::Text);
    assert_eq!(
        text,
        structured_instructions("judge", &schema, StructuredOutputMode::JsonObject)
    );
    assert!(
        text.starts_with("judge\n\nReply with a single JSON object"),
        "{text}"
    );
    assert!(
        text.ends_with(&serde_json::to_string(&schema).unwrap()),
        "{text}"
    );
}

#[test]
fn the_remembered_mode_only_moves_down() {
    let fallback = StructuredOutputFallback::default();
    assert_eq!(fallback.mode(), StructuredOutputMode::JsonSchema);
    let shared = fallback.clone();
    shared.accepted(StructuredOutputMode::JsonObject);
    fallback.accepted(StructuredOutputMode::JsonSchema);
    assert_eq!(fallback.mode(), StructuredOutputMode::JsonObject);
    assert_eq!(StructuredOutputMode::Text.fallback(), None);
}

#[test]
fn raw_control_characters_inside_strings_are_read_as_escapes() {
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct StageOne {
        raw_memory: String,
        rollout_slug: String,
    }
    let schema = output_schema_for::<StageOne>();
    // A reply a 135M-parameter model wrote in llama-cpp-python's JSON mode: a literal newline
    // inside a string.
    let reply = "{ \"raw_memory\": \"<pre><code>\n[{\",\"rollout_slug\":\"StageOneOutput\"}";
    let parsed = parse_structured::<StageOne>(reply, &schema).unwrap();
    assert_eq!(parsed.raw_memory, "<pre><code>\n[{");
    assert_eq!(parsed.rollout_slug, "StageOneOutput");

    assert_eq!(
        escape_controls_in_strings("{\"a\":\"x\\\"\ty\u{1}\"}\n").as_deref(),
        Some("{\"a\":\"x\\\"\\ty\\u0001\"}\n")
    );
    assert_eq!(escape_controls_in_strings("{\n  \"a\": 1\n}"), None);
    // A control character outside a string is still an error.
    assert!(matches!(
        parse_structured::<StageOne>(
            "{\"raw_memory\":\"a\",\u{1}\"rollout_slug\":\"b\"}",
            &schema
        )
        .unwrap_err(),
        StructuredOutputError::NotJson { .. }
    ));
}
