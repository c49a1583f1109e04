//! [`LastReported`]: what a state-derived generator last told the model, so that it fires only
//! when that state changes (a reminder that repeats unchanged state nags and floods the context).

use std::sync::Mutex;
use std::sync::PoisonError;

/// The last value of some state that a generator reported.
#[derive(Debug)]
pub(crate) struct LastReported<T> {
    last: Mutex<Option<T>>,
}

impl<T> Default for LastReported<T> {
    fn default() -> Self {
        Self {
            last: Mutex::new(None),
        }
    }
}

impl<T: PartialEq + Clone> LastReported<T> {
    /// Records `current` and answers whether it differs from the value recorded before.
    ///
    /// Call it with empty states too: state that goes away and comes back is a change.
    pub(crate) fn changed(&self, current: &T) -> bool {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.as_ref() == Some(current) {
            return false;
        }
        *last = Some(current.clone());
        true
    }

    /// Forgets the recorded value, so the next state counts as a change.
    pub(crate) fn forget(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}
