//! Structured output: the JSON schema sent for a type, and validation of the reply against it.

use schemars::JsonSchema;
use schemars::r#gen::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::wire::excerpt;

/// Nesting depth past which validation stops descending (recursive schemas).
const MAX_DEPTH: usize = 64;

/// Why a structured reply was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StructuredOutputError {
    /// The model returned no text.
    #[error("structured reply is empty")]
    Empty,
    /// The reply is not JSON.
    #[error("structured reply is not json ({message}): {reply}")]
    NotJson {
        /// The JSON parser's message.
        message: String,
        /// The start of the reply.
        reply: String,
    },
    /// A required field is missing.
    #[error("structured reply misses required field `{path}`")]
    MissingField {
        /// JSON path of the field, from `$`.
        path: String,
    },
    /// A value has the wrong JSON type.
    #[error("structured reply has {found} at `{path}`, expected {expected}")]
    WrongType {
        /// JSON path of the value, from `$`.
        path: String,
        /// The type(s) the schema allows.
        expected: String,
        /// The type found.
        found: String,
    },
    /// The JSON matches the schema's shape but not the Rust type.
    #[error("structured reply does not fit the type: {message}")]
    Deserialize {
        /// serde's message.
        message: String,
    },
}

/// The JSON schema sent as structured output for `T`: draft 2019-09 (`$defs`), without the
/// `$schema` key.
pub fn output_schema_for<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2019_09()
        .with(|settings| settings.definitions_path = "#/$defs/".to_string())
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        if let Some(definitions) = map.remove("definitions") {
            map.insert("$defs".to_string(), definitions);
        }
    }
    value
}

/// Parses a reply as `T` after checking it against `schema`: JSON (a surrounding Markdown code
/// fence is tolerated), required fields present, JSON types as declared.
pub fn parse_structured<T: DeserializeOwned>(
    reply: &str,
    schema: &Value,
) -> Result<T, StructuredOutputError> {
    let text = strip_code_fence(reply.trim());
    if text.is_empty() {
        return Err(StructuredOutputError::Empty);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|err| StructuredOutputError::NotJson {
            message: err.to_string(),
            reply: excerpt(text),
        })?;
    check(&value, schema, schema, "$", 0)?;
    serde_json::from_value(value).map_err(|err| StructuredOutputError::Deserialize {
        message: err.to_string(),
    })
}

fn strip_code_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let body = rest.split_once('\n').map_or("", |(_, body)| body);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
        return schema;
    };
    reference
        .strip_prefix('#')
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, value: &Value) -> bool {
    let found = type_name(value);
    expected == found || (expected == "number" && found == "integer")
}

fn check(
    value: &Value,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), StructuredOutputError> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let schema = resolve(schema, root);
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let mut first_error = None;
            for option in options {
                match check(value, option, root, path, depth + 1) {
                    Ok(()) => {
                        first_error = None;
                        break;
                    }
                    Err(err) => {
                        first_error.get_or_insert(err);
                    }
                }
            }
            if let Some(err) = first_error {
                return Err(err);
            }
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for part in all {
            check(value, part, root, path, depth + 1)?;
        }
    }
    let expected: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !expected.is_empty() && !expected.iter().any(|kind| type_matches(kind, value)) {
        return Err(StructuredOutputError::WrongType {
            path: path.to_string(),
            expected: expected.join(" or "),
            found: type_name(value).to_string(),
        });
    }
    match value {
        Value::Object(object) => {
            for field in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !object.contains_key(field) {
                    return Err(StructuredOutputError::MissingField {
                        path: format!("{path}.{field}"),
                    });
                }
            }
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property_schema) in properties {
                    if let Some(property) = object.get(name) {
                        check(
                            property,
                            property_schema,
                            root,
                            &format!("{path}.{name}"),
                            depth + 1,
                        )?;
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (index, item) in items.iter().enumerate() {
                    check(
                        item,
                        item_schema,
                        root,
                        &format!("{path}[{index}]"),
                        depth + 1,
                    )?;
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    Ok(())
}

#[cfg(test)]
#[path = "structured_output_tests.rs"]
mod tests;
