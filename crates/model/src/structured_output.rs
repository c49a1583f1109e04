//! Structured output: the JSON schema sent for a type, how it is asked for (falling back from
//! the wire's own structured output to JSON mode to plain text when a server refuses the
//! request), and validation of the reply against the schema.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering;

use schemars::JsonSchema;
use schemars::r#gen::SchemaSettings;
use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::ModelClient;
use crate::client::complete_prompt;
use crate::error::ModelError;
use crate::prompt::Prompt;
use crate::wire::excerpt;

/// Nesting depth past which validation stops descending (recursive schemas).
const MAX_DEPTH: usize = 64;

/// Requests made for one structured reply: a reply that is not JSON or does not fit the schema
/// is asked for once more, with the reason, before the error is returned. Small local models
/// break JSON now and then even in JSON mode; a second sample usually holds.
const STRUCTURED_REPLY_ATTEMPTS: usize = 2;

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

/// How a structured reply is asked for, from the most to the least the server enforces.
///
/// Servers differ in what they take: OpenAI, vLLM and LiteLLM take a `json_schema` response
/// format; llama-cpp-python takes only `text` and `json_object` (with an optional `schema` it
/// turns into a grammar: `ChatCompletionRequestResponseFormat` in `llama_cpp/llama_types.py`,
/// abetlen/llama-cpp-python) and refuses `json_schema` with a validation error; some servers take
/// neither. [`complete_structured`] starts with [`Self::JsonSchema`] and steps down on a refusal.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutputMode {
    /// The wire's own structured output: Chat `response_format` of type `json_schema`,
    /// Responses `text.format` of type `json_schema`, Anthropic a forced tool.
    #[default]
    JsonSchema,
    /// JSON mode: Chat `response_format` of type `json_object` carrying the schema, Responses
    /// `text.format` of type `json_object`; Anthropic has none and sends plain text. The schema
    /// is also described in the instructions, and the reply is validated here.
    JsonObject,
    /// No format at all: the schema is described in the instructions, and the JSON is found in
    /// the reply (a code fence or surrounding prose is tolerated) and validated here.
    Text,
}

impl StructuredOutputMode {
    /// The next, less demanding mode; `None` after [`Self::Text`].
    pub fn fallback(self) -> Option<Self> {
        match self {
            Self::JsonSchema => Some(Self::JsonObject),
            Self::JsonObject => Some(Self::Text),
            Self::Text => None,
        }
    }

    /// The name used in logs (`json_schema`, `json_object`, `text`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JsonSchema => "json_schema",
            Self::JsonObject => "json_object",
            Self::Text => "text",
        }
    }

    /// True for the default, [`Self::JsonSchema`].
    pub fn is_default(&self) -> bool {
        *self == Self::JsonSchema
    }

    fn from_u8(value: u8) -> Self {
        match value {
            0 => Self::JsonSchema,
            1 => Self::JsonObject,
            _ => Self::Text,
        }
    }

    fn as_u8(self) -> u8 {
        match self {
            Self::JsonSchema => 0,
            Self::JsonObject => 1,
            Self::Text => 2,
        }
    }
}

/// The structured-output mode a client's server was found to accept, shared by the client's
/// clones: once a fallback worked, later structured calls start there instead of being refused
/// again. It only moves down ([`StructuredOutputMode::fallback`]), and only when a request in
/// the lower mode was accepted.
#[derive(Debug, Clone, Default)]
pub struct StructuredOutputFallback(Arc<AtomicU8>);

impl StructuredOutputFallback {
    /// The mode structured calls start with.
    pub fn mode(&self) -> StructuredOutputMode {
        StructuredOutputMode::from_u8(self.0.load(Ordering::Relaxed))
    }

    /// Records that the server accepted a request in `mode`.
    pub fn accepted(&self, mode: StructuredOutputMode) {
        self.0.fetch_max(mode.as_u8(), Ordering::Relaxed);
    }
}

/// One-shot structured output for any client, `dyn ModelClient` included: asks for `T`'s JSON
/// schema and parses the reply as `T`.
///
/// The first request uses the mode the client remembers
/// ([`ModelClient::structured_output_fallback`]; [`StructuredOutputMode::JsonSchema`] when it
/// keeps none). When the server refuses the request itself ([`refuses_request_shape`]: a 400 or
/// 422, or a 500 whose body is a validation error), the same call is sent again in the next
/// mode, down to plain text; a refusal of the plain request is returned as it is. Network
/// errors, authentication failures and context overflows never cause a fallback.
pub async fn complete_structured<T, C>(
    client: &C,
    system: &str,
    user: &str,
) -> Result<T, ModelError>
where
    C: ModelClient + ?Sized,
    T: DeserializeOwned + JsonSchema,
{
    let schema = output_schema_for::<T>();
    let remembered = client.structured_output_fallback();
    let mut mode = remembered.map_or(
        StructuredOutputMode::JsonSchema,
        StructuredOutputFallback::mode,
    );
    let mut attempts = 0;
    let mut rejected: Option<StructuredOutputError> = None;
    loop {
        let user_text = match &rejected {
            None => user.to_string(),
            Some(reason) => format!(
                "{user}\n\nYour previous reply was rejected ({reason}). Reply again with only the \
                 JSON object."
            ),
        };
        let prompt = Prompt {
            instructions: structured_instructions(system, &schema, mode),
            output_schema: Some(schema.clone()),
            output_schema_mode: mode,
            ..Prompt::system_and_user(String::new(), user_text)
        };
        match complete_prompt(client, &prompt).await {
            Ok(reply) => {
                if let Some(remembered) = remembered {
                    remembered.accepted(mode);
                }
                attempts += 1;
                match parse_structured(&reply, &schema) {
                    Ok(value) => return Ok(value),
                    Err(error) if attempts < STRUCTURED_REPLY_ATTEMPTS => {
                        tracing::info!(
                            slug = client.slug(),
                            %error,
                            "the structured reply was rejected; asking once more"
                        );
                        rejected = Some(error);
                    }
                    Err(error) => return Err(error.into()),
                }
            }
            Err(error) => match mode.fallback().filter(|_| refuses_request_shape(&error)) {
                Some(next) => {
                    tracing::info!(
                        slug = client.slug(),
                        refused = mode.as_str(),
                        next = next.as_str(),
                        %error,
                        "the server refused the structured-output request; asking again with less structure"
                    );
                    mode = next;
                }
                None => return Err(error),
            },
        }
    }
}

/// The instructions of a structured request in `mode`: `system` as it is for
/// [`StructuredOutputMode::JsonSchema`] (the schema goes in the request's format), else `system`
/// followed by the schema and how to reply.
pub fn structured_instructions(system: &str, schema: &Value, mode: StructuredOutputMode) -> String {
    if mode == StructuredOutputMode::JsonSchema {
        return system.to_string();
    }
    let schema = serde_json::to_string(schema).unwrap_or_default();
    let mut instructions = system.trim_end().to_string();
    if !instructions.is_empty() {
        instructions.push_str("\n\n");
    }
    instructions.push_str(&format!(
        "Reply with a single JSON object and nothing else: no prose before or after it, no \
         Markdown code fence. The object must follow this JSON schema:\n{schema}"
    ));
    instructions
}

/// True when `error` is the server refusing the shape of the request rather than failing: a
/// 400 or 422, or a 500 whose body is a validation error (llama-cpp-python answers a request
/// its types reject with a 500 listing pydantic's errors: `RouteErrorHandler` in
/// `llama_cpp/server/errors.py`, abetlen/llama-cpp-python). A context overflow, an
/// authentication failure, a rate limit, another 5xx or a network error is not a refusal.
pub fn refuses_request_shape(error: &ModelError) -> bool {
    match error {
        // A 5xx classified as a bad request is one whose body was a validation error.
        ModelError::BadRequest { status, .. } => matches!(status, 400 | 422 | 500..=599),
        ModelError::Server {
            status: 500, body, ..
        } => is_validation_error_body(body),
        _ => false,
    }
}

/// Words by which a 500's body shows a validation error of the request (lowercase).
const VALIDATION_ERROR_MARKERS: &[&str] = &[
    "validation error",
    "literal_error",
    "extra_forbidden",
    "'loc': ('body'",
    "response_format",
    "json_schema",
];

fn is_validation_error_body(body: &str) -> bool {
    let lower = body.to_lowercase();
    VALIDATION_ERROR_MARKERS
        .iter()
        .any(|marker| lower.contains(marker))
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

/// Parses a reply as `T` after checking it against `schema`: JSON, required fields present,
/// JSON types as declared.
///
/// The JSON is the whole reply (a surrounding Markdown code fence is tolerated) or, when that is
/// not JSON, what a model asked in plain text tends to wrap it in: the first fenced block, or
/// the text from the first `{` to the last `}`.
pub fn parse_structured<T: DeserializeOwned>(
    reply: &str,
    schema: &Value,
) -> Result<T, StructuredOutputError> {
    let text = strip_code_fence(reply.trim());
    if text.is_empty() {
        return Err(StructuredOutputError::Empty);
    }
    let value: Value = match parse_lenient(text) {
        Ok(value) => value,
        Err(err) => embedded_json(text).ok_or_else(|| StructuredOutputError::NotJson {
            message: err.to_string(),
            reply: excerpt(text),
        })?,
    };
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

/// The JSON object inside a reply of prose: the first fenced block that parses, else the span
/// from the first `{` to the last `}`.
fn embedded_json(text: &str) -> Option<Value> {
    let fenced = text
        .split("```")
        .skip(1)
        .step_by(2)
        .map(|block| block.split_once('\n').map_or(block, |(_, body)| body));
    let braces = text
        .find('{')
        .zip(text.rfind('}'))
        .and_then(|(start, end)| text.get(start..=end));
    fenced
        .chain(braces)
        .find_map(|candidate| parse_lenient(candidate.trim()).ok())
}

/// JSON as a lenient parser reads it: strict JSON first, then with the raw control characters
/// inside strings escaped. Models (small local ones in JSON mode above all) write a literal
/// newline or tab inside a string; JSON forbids it (RFC 8259, section 7) but nothing is
/// ambiguous about it, and Python's `json.loads(strict=False)` takes it the same way.
fn parse_lenient(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(error) => match escape_controls_in_strings(text) {
            Some(escaped) => serde_json::from_str(&escaped).map_err(|_| error),
            None => Err(error),
        },
    }
}

/// `text` with every control character (U+0000 to U+001F) inside a JSON string written as an
/// escape; `None` when there is none to escape. Outside strings they are whitespace or errors,
/// and are left as they are.
fn escape_controls_in_strings(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut changed = false;
    for ch in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            } else if u32::from(ch) < 0x20 {
                changed = true;
                match ch {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", u32::from(other))),
                }
                continue;
            }
        } else if ch == '"' {
            in_string = true;
        }
        out.push(ch);
    }
    changed.then_some(out)
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
