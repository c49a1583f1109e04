//! How the context's token total is made up.

use serde::Deserialize;
use serde::Serialize;

/// The parts of [`crate::ContextManager::get_total_token_usage`]: what the provider reported for
/// the last request, and the estimate of what was added after the last model-generated item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotalTokenUsageBreakdown {
    /// `total_tokens` of the last successful API response.
    pub last_api_response_total_tokens: i64,
    /// Model-visible bytes of the whole history (heuristic).
    pub all_history_items_model_visible_bytes: i64,
    /// Estimated tokens of the items after the last model-generated item.
    pub estimated_tokens_of_items_added_since_last_successful_api_response: i64,
    /// Model-visible bytes of the items after the last model-generated item.
    pub estimated_bytes_of_items_added_since_last_successful_api_response: i64,
}
