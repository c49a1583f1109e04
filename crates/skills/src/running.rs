//! Concurrent execution prevention: a skill never runs twice at once.

use std::future::Future;
use std::sync::Arc;

use dashmap::DashSet;

use crate::error::SkillError;

/// The skills running now. Clones share the same set.
#[derive(Debug, Clone, Default)]
pub struct RunningSkills {
    running: Arc<DashSet<String>>,
}

/// Proof that a skill is marked running; dropping it (on any exit path: return, `?`,
/// panic unwinding, a cancelled future) marks the skill as no longer running.
#[derive(Debug)]
#[must_use = "the skill is released as soon as the guard is dropped"]
pub struct RunningSkillGuard {
    running: Arc<DashSet<String>>,
    name: String,
}

impl RunningSkillGuard {
    /// The guarded skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for RunningSkillGuard {
    fn drop(&mut self) {
        self.running.remove(&self.name);
    }
}

impl RunningSkills {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `name` running, or fails with [`SkillError::AlreadyRunning`].
    pub fn try_acquire(&self, name: &str) -> Result<RunningSkillGuard, SkillError> {
        if self.running.insert(name.to_string()) {
            Ok(RunningSkillGuard {
                running: Arc::clone(&self.running),
                name: name.to_string(),
            })
        } else {
            Err(SkillError::AlreadyRunning {
                name: name.to_string(),
            })
        }
    }

    /// Whether `name` is running.
    pub fn is_running(&self, name: &str) -> bool {
        self.running.contains(name)
    }

    /// Runs `task` with `name` marked running for its whole duration.
    pub async fn run_exclusive<F>(&self, name: &str, task: F) -> Result<F::Output, SkillError>
    where
        F: Future,
    {
        let _guard = self.try_acquire(name)?;
        Ok(task.await)
    }
}
