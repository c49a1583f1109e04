use async_trait::async_trait;
use pretty_assertions::assert_eq;

use super::*;
use crate::providers::McpResourceProvider;
use crate::providers::ProviderError;
use std::sync::Arc;

#[derive(Debug)]
struct FakeMcp;

#[async_trait]
impl McpResourceProvider for FakeMcp {
    fn has_server(&self, server: &str) -> bool {
        matches!(server, "docs" | "assets" | "broken")
    }

    async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Option<McpResource>, ProviderError> {
        let content = match (server, uri) {
            ("docs", "guide://style") => {
                McpResourceContent::Text("Use one import per line.".to_string())
            }
            ("docs", "guide://empty") => McpResourceContent::Empty,
            ("assets", "img://logo") => McpResourceContent::Blob {
                data: vec![0x89, 0x50],
                mime_type: "image/png".to_string(),
            },
            ("broken", _) => return Err(ProviderError::new("mcp", "server hung up")),
            _ => return Ok(None),
        };
        Ok(Some(McpResource {
            server: server.to_string(),
            uri: uri.to_string(),
            name: uri.to_string(),
            description: None,
            content,
        }))
    }
}

#[test]
fn mcp_mentions_need_a_known_server() {
    let is_server = |server: &str| server == "docs";
    assert_eq!(
        parse_mcp_mentions(
            "see @docs:guide://style, @src/a.rs:10-20 and @agent-x and @docs:guide://style.",
            &is_server
        ),
        [McpMention {
            server: "docs".to_string(),
            uri: "guide://style".to_string()
        }]
    );
}

#[tokio::test]
async fn mcp_resources_render_text_binary_and_empty_and_skip_failures() {
    let mut ctx = GeneratorContext::new("/work/project").with_user_prompt(
        "Follow @docs:guide://style and @docs:guide://empty, logo @assets:img://logo, @docs:guide://missing @broken:x://y",
    );
    ctx.providers.mcp = Arc::new(FakeMcp);
    let reminder = McpResourcesGenerator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("mcp_resources", reminder.wrap_xml());
}

#[tokio::test]
async fn mcp_resources_silent_without_mentions() {
    let mut ctx = GeneratorContext::new("/work/project").with_user_prompt("read @README.md");
    ctx.providers.mcp = Arc::new(FakeMcp);
    assert_eq!(McpResourcesGenerator.generate(&ctx).await.unwrap(), None);
}
