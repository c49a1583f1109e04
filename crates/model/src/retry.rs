//! Exponential backoff with jitter for retryable failures.

use std::time::Duration;

use rand::Rng;

use crate::error::ModelError;

/// First retry delay.
pub const INITIAL_RETRY_DELAY: Duration = Duration::from_millis(200);
/// Growth factor of the delay per attempt.
pub const BACKOFF_FACTOR: f64 = 2.0;
/// Upper bound of a computed backoff (a provider's `retry-after` is honoured as given).
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The backoff before retry number `attempt` (1-based): 200 ms × 2^(attempt-1), ±10 % jitter,
/// capped at [`MAX_BACKOFF`].
pub fn backoff(attempt: u64) -> Duration {
    let exponent = i32::try_from(attempt.saturating_sub(1).min(30)).unwrap_or(30);
    let base = INITIAL_RETRY_DELAY.as_secs_f64() * BACKOFF_FACTOR.powi(exponent);
    let jitter = rand::rng().random_range(0.9..1.1);
    Duration::from_secs_f64(base * jitter).min(MAX_BACKOFF)
}

/// The longest `retry-after` waited for. A provider asking for more (an exhausted daily quota,
/// a bogus header) gets its error returned at once, instead of a call that hangs for hours.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(10 * 60);

/// The delay before retrying after `error`: the provider's `retry-after` when it named one,
/// else [`backoff`]. `None` when the provider asked for more than [`MAX_RETRY_AFTER`]: do not
/// retry.
pub fn retry_delay(error: &ModelError, attempt: u64) -> Option<Duration> {
    match error.retry_after() {
        Some(wait) if wait > MAX_RETRY_AFTER => None,
        Some(wait) => Some(wait),
        None => Some(backoff(attempt)),
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
