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
