//! The turns of a replay as JSON, written on two threads.
//!
//! `agentctx replay --json` writes every turn of a session, each with a row per model request: for
//! a long session that is most of its output, and it is written after the replay, when the
//! reading thread has finished and one core is idle. [`turns_json`] serializes the two halves of
//! the turns at once, each turn to its own JSON text; the report writes those texts as they stand
//! ([`RawValue`]), so the output is the same bytes `serde_json` writes for the turns in one go.

use serde_json::value::RawValue;

use super::ReplayTurn;

/// Fewer turns than this are serialized on the calling thread: a thread costs more than they do.
const TURNS_WORTH_A_THREAD: usize = 128;

/// Each of `turns` as its compact JSON, in order; the second half serialized on a second thread
/// when there are enough turns and the machine has more than one core.
pub fn turns_json(turns: &[ReplayTurn]) -> Result<Vec<Box<RawValue>>, serde_json::Error> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if cores < 2 || turns.len() < TURNS_WORTH_A_THREAD {
        return serialize(turns);
    }
    let (first, second) = turns.split_at(turns.len() / 2);
    std::thread::scope(|scope| {
        let later = std::thread::Builder::new()
            .name("agentctx-turns-json".to_string())
            .spawn_scoped(scope, || serialize(second));
        let mut json = serialize(first)?;
        // Where the thread could not be started or did not finish, this thread does its half.
        let rest = match later.map(std::thread::ScopedJoinHandle::join) {
            Ok(Ok(rest)) => rest?,
            Ok(Err(_)) | Err(_) => serialize(second)?,
        };
        json.extend(rest);
        Ok(json)
    })
}

/// Each of `turns` as its compact JSON.
fn serialize(turns: &[ReplayTurn]) -> Result<Vec<Box<RawValue>>, serde_json::Error> {
    turns.iter().map(serde_json::value::to_raw_value).collect()
}

#[cfg(test)]
#[path = "turns_json_tests.rs"]
mod tests;
