//! The permission mode a session runs in.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// How tool permissions are handled; `Plan` is read-only exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Normal operation: ask for what the policy does not allow.
    #[default]
    Default,
    /// Read-only exploration and planning.
    Plan,
    /// Edits are accepted without asking.
    AcceptEdits,
    /// All permission checks are skipped.
    #[serde(alias = "bypassPermissions")]
    Bypass,
    /// Unknown tools are declined without asking.
    DontAsk,
}
