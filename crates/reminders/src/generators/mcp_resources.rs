//! MCP resources (`mcp_resources`): the user mentioned `@server:uri` for a
//! connected server; the resource is read through [`crate::providers::McpResourceProvider`].

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::providers::McpResource;
use crate::providers::McpResourceContent;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// A `@server:uri` mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpMention {
    /// The server name.
    pub server: String,
    /// The resource URI.
    pub uri: String,
}

/// The `@server:uri` mentions in `prompt` whose server `is_server` accepts, in order, each once.
/// Words that are not mentions (`@file.rs`, `@agent-x`, `@src/a.rs:10-20` when `src` is not a
/// server) are left to the other user-prompt generators.
pub(crate) fn parse_mcp_mentions(
    prompt: &str,
    is_server: &dyn Fn(&str) -> bool,
) -> Vec<McpMention> {
    let mut found: Vec<McpMention> = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(rest) = word.strip_prefix('@') else {
            continue;
        };
        let Some((server, uri)) = rest.split_once(':') else {
            continue;
        };
        let uri = uri.trim_end_matches(['.', ',', ';', '!', '?', ')']);
        let valid_server = !server.is_empty()
            && server
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !valid_server || uri.is_empty() || !is_server(server) {
            continue;
        }
        let mention = McpMention {
            server: server.to_string(),
            uri: uri.to_string(),
        };
        if !found.contains(&mention) {
            found.push(mention);
        }
    }
    found
}

/// The text for one resource.
pub(crate) fn render_mcp_resource(resource: &McpResource) -> String {
    match &resource.content {
        McpResourceContent::Text(text) => format!(
            "Full contents of resource:\n\n{text}\n\nDo NOT read this resource again unless you think it may have changed, since you already have the full contents."
        ),
        McpResourceContent::Blob { mime_type, .. } => format!("[Binary content: {mime_type}]"),
        McpResourceContent::Empty => format!(
            "<mcp-resource server=\"{}\" uri=\"{}\">(No content)</mcp-resource>",
            resource.server, resource.uri
        ),
    }
}

/// Generates MCP resource reminders.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct McpResourcesGenerator;

#[async_trait]
impl AttachmentGenerator for McpResourcesGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::McpResources
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let Some(prompt) = ctx.user_prompt.as_deref() else {
            return Ok(None);
        };
        let mcp = &ctx.providers.mcp;
        let mentions = parse_mcp_mentions(prompt, &|server| mcp.has_server(server));
        let mut parts = Vec::new();
        for mention in mentions {
            match mcp.read_resource(&mention.server, &mention.uri).await {
                Ok(Some(resource)) => parts.push(render_mcp_resource(&resource)),
                Ok(None) => {
                    tracing::debug!(server = %mention.server, uri = %mention.uri, "no such mcp resource");
                }
                Err(error) => {
                    tracing::warn!(server = %mention.server, uri = %mention.uri, %error, "reading an mcp resource failed");
                }
            }
        }
        if parts.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::McpResources,
            parts.join("\n\n"),
        )))
    }
}

#[cfg(test)]
#[path = "mcp_resources_tests.rs"]
mod tests;
