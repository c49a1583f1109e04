//! What a provider can do to shorten a history on its own side, and who can read the opaque
//! items it leaves behind.
//!
//! Two forms exist (docs/design/model-providers.md, "Provider-side compaction"):
//!
//! - a compaction *endpoint*: the history goes out, a shorter one comes back (OpenAI's
//!   `POST /responses/compact`, see [`crate::ModelClient::compact_remote`]);
//! - compaction and context editing *inside a normal request*: the provider shortens the context
//!   it feeds the model while answering (Responses `context_management` with a `compaction`
//!   entry, Anthropic's `context_management` edits and `compact_20260112`), and the response
//!   carries an item that stands for what was dropped.
//!
//! Either way the item the provider returns may be opaque (OpenAI's `encrypted_content`) and
//! readable only by the provider that wrote it. [`ProviderIdentity`] is what the engine
//! compares to decide whether such an item can be sent to the client in use.

use agentctx_protocol::ResponseItem;
use serde::Deserialize;
use serde::Serialize;

use crate::provider_config::WireApi;
use crate::wire::anthropic_compaction::anthropic_summary;

/// What a provider does to compact a history on its side, as configured for one client.
///
/// The default (every field off) is a provider without any: compaction stays local.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RemoteCompactionSupport {
    /// [`crate::ModelClient::compact_remote`] works: the provider has a compaction endpoint
    /// (OpenAI Responses `POST /responses/compact`).
    pub endpoint: bool,
    /// The provider compacts the context itself during a normal request, because this client
    /// asks it to (Responses `context_management` compaction, Anthropic `compact_20260112`);
    /// the response then carries a compaction item to keep and send back.
    pub in_request: bool,
    /// The provider clears old tool results or thinking blocks during a normal request
    /// (Anthropic context editing), the provider-side form of micro-compaction; a local
    /// micro-compaction of the same items would only break the provider's prompt cache.
    pub context_editing: bool,
}

impl RemoteCompactionSupport {
    /// No provider-side compaction at all.
    pub const NONE: Self = Self {
        endpoint: false,
        in_request: false,
        context_editing: false,
    };

    /// True when the provider does any compaction of its own.
    pub fn any(&self) -> bool {
        self.endpoint || self.in_request || self.context_editing
    }
}

/// Who wrote an opaque item, as far as reading it back is concerned: the wire API and the host
/// (with its port) of the base URL.
///
/// Two clients can exchange opaque compaction items (and encrypted reasoning) when their
/// identities are equal: the same API at the same server. A model switch within one provider
/// keeps the identity (OpenAI reads its own `encrypted_content` whatever the model); another
/// provider, another wire API (Chat Completions at the same host) or another host (an Azure
/// deployment versus `api.openai.com`) does not. The identity is serializable so the engine can
/// record, next to an opaque item, which identity wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProviderIdentity {
    /// The wire API the item was produced through.
    pub wire_api: WireApi,
    /// The host (and port, when not the scheme's default) of the provider's base URL, lower
    /// case; empty when the client has no URL (a scripted or in-process client).
    pub host: String,
}

impl ProviderIdentity {
    /// The identity of a provider speaking `wire_api` at `base_url`. A URL that does not parse
    /// leaves the host empty, which still compares equal to the same unparsable URL.
    pub fn new(wire_api: WireApi, base_url: &str) -> Self {
        let host = reqwest::Url::parse(base_url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_ascii_lowercase();
                Some(match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                })
            })
            .unwrap_or_default();
        Self { wire_api, host }
    }

    /// True when an opaque item written by `writer` can be sent to this provider.
    pub fn can_read(&self, writer: &Self) -> bool {
        self == writer
    }
}

impl std::fmt::Display for ProviderIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wire = match self.wire_api {
            WireApi::Responses => "responses",
            WireApi::Chat => "chat",
            WireApi::Anthropic => "anthropic",
        };
        if self.host.is_empty() {
            f.write_str(wire)
        } else {
            write!(f, "{wire}@{}", self.host)
        }
    }
}

/// The summary a provider wrote into a compaction item in readable form, when it did: the
/// `content` of an item made from an Anthropic `compaction` block. OpenAI's items are opaque
/// (`None`). An engine can keep it as the item's readable copy without a summary of its own.
pub fn provider_compaction_summary(item: &ResponseItem) -> Option<&str> {
    anthropic_summary(item)
}

#[cfg(test)]
#[path = "remote_compaction_tests.rs"]
mod tests;
