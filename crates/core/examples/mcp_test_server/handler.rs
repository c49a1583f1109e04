//! The handler of the rmcp test server: tools `echo`, `add` and `crash` (the process exits
//! mid-call), resource `test://greeting`. Shared by the stdio example (`main.rs`) and core's
//! streamable-HTTP test, which serves it in-process (where `crash` is never called).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;
use rmcp::model::CallToolResponse;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::model::JsonObject;
use rmcp::model::ListResourcesResult;
use rmcp::model::ListToolsResult;
use rmcp::model::PaginatedRequestParams;
use rmcp::model::ReadResourceRequestParams;
use rmcp::model::ReadResourceResponse;
use rmcp::model::ReadResourceResult;
use rmcp::model::Resource;
use rmcp::model::ResourceContents;
use rmcp::model::ServerCapabilities;
use rmcp::model::ServerConfig;
use rmcp::model::Tool;
use rmcp::service::RequestContext;
use serde_json::json;

pub(crate) const GREETING_URI: &str = "test://greeting";
pub(crate) const GREETING: &str = "Hello from the rmcp test server.";

/// The test server's handler.
#[derive(Debug, Clone, Default)]
pub(crate) struct TestServer;

fn schema(value: serde_json::Value) -> Arc<JsonObject> {
    match value {
        serde_json::Value::Object(object) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Returns the text it is given.",
            schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
        ),
        Tool::new(
            "add",
            "Adds two integers.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            })),
        ),
        Tool::new(
            "crash",
            "Exits the server process.",
            schema(json!({"type": "object", "properties": {}})),
        ),
    ]
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => {
                let text = arguments
                    .get("text")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default();
                CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))])
            }
            "add" => {
                let number = |key: &str| arguments.get(key).and_then(serde_json::Value::as_i64);
                match (number("a"), number("b")) {
                    (Some(a), Some(b)) => {
                        CallToolResult::success(vec![ContentBlock::text((a + b).to_string())])
                    }
                    _ => CallToolResult::error(vec![ContentBlock::text(
                        "add needs integers `a` and `b`",
                    )]),
                }
            }
            "crash" => std::process::exit(3),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(GREETING_URI, "greeting").with_description("A greeting"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == GREETING_URI {
            Ok(
                ReadResourceResult::new(vec![ResourceContents::text(GREETING, GREETING_URI)])
                    .into(),
            )
        } else {
            Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ))
        }
    }
}
