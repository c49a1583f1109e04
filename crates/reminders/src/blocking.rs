//! [`run_blocking`]: a generator's file-system work, moved off the async worker.
//!
//! The orchestrator's timeout can only stop a generator at an `.await`. Reading and diffing
//! files is blocking work with no `.await` in it, so a slow disk (or a network mount that hangs)
//! would hold the whole turn past the timeout and starve the other generators. Run on tokio's
//! blocking pool, that work is awaited like any other future: the timeout fires on time, and
//! the other generators run meanwhile. Outside a tokio runtime the work runs inline.

use crate::generator::GeneratorError;

/// Runs `work` on tokio's blocking pool when inside a runtime, inline otherwise. `generator`
/// names the caller in the error returned when `work` panics.
pub(crate) async fn run_blocking<R, F>(generator: &str, work: F) -> Result<R, GeneratorError>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return Ok(work());
    }
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| GeneratorError::Invalid {
            generator: generator.to_string(),
            message: format!("file system work failed: {error}"),
        })
}

#[cfg(test)]
#[path = "blocking_tests.rs"]
mod tests;
