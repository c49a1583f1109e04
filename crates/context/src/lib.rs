//! Token estimation, truncation and the history the model sees.
//!
//! `agentctx-context` is floor 1 of the workspace: it depends only on `agentctx-protocol`.
//!
//! ```
//! use agentctx_context::ApproxTokenEstimator;
//! use agentctx_context::TokenEstimator;
//! use agentctx_context::approx_token_count;
//! use agentctx_protocol::ResponseItem;
//!
//! assert_eq!(approx_token_count("hello world"), 3);
//! let item = ResponseItem::user_text("hello");
//! assert!(ApproxTokenEstimator.estimate_item(&item) > 0);
//! ```

mod token_estimator;

pub use token_estimator::APPROX_BYTES_PER_TOKEN;
pub use token_estimator::ApproxTokenEstimator;
pub use token_estimator::ENCRYPTED_CONTENT_OVERHEAD_BYTES;
pub use token_estimator::IMAGE_BYTES_ESTIMATE;
pub use token_estimator::TokenEstimator;
pub use token_estimator::approx_bytes_for_tokens;
pub use token_estimator::approx_token_count;
pub use token_estimator::approx_tokens_from_byte_count;
pub use token_estimator::estimate_item_model_visible_bytes;
