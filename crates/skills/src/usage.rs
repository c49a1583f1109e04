//! Skill usage tracking with time decay, for suggestions and autocomplete ordering.
//!
//! `score = usage_count * 2^(-days_since_last_use / half_life_days)`, half-life 7 days by
//! default. The clock is always passed in (`now`), so results are deterministic.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use chrono::DateTime;
use chrono::Utc;
use serde::Deserialize;
use serde::Serialize;

/// Default half-life of a use, in days.
pub(crate) const DEFAULT_USAGE_HALF_LIFE_DAYS: f64 = 7.0;
const SECONDS_PER_DAY: f64 = 86_400.0;
const USAGE_FILE_VERSION: u32 = 1;

/// Usage of one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillUsageData {
    /// How many times it was used.
    pub usage_count: u32,
    /// When it was last used.
    pub last_used_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize)]
struct UsageFile {
    version: u32,
    skills: BTreeMap<String, SkillUsageData>,
}

/// Why the usage file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// Reading failed.
    #[error("cannot read usage file {path}: {source}")]
    Read {
        /// The usage file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid usage JSON.
    #[error("invalid usage file {path}: {source}")]
    Parse {
        /// The usage file.
        path: PathBuf,
        /// The JSON error (with line and column).
        source: serde_json::Error,
    },
    /// The file has a version this build does not know.
    #[error("usage file {path} has unsupported version {version}")]
    Version {
        /// The usage file.
        path: PathBuf,
        /// The version found.
        version: u32,
    },
    /// Writing failed.
    #[error("cannot write usage file {path}: {source}")]
    Write {
        /// The usage file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Usage of every skill, with time-decayed scores.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillUsageTracker {
    usage: BTreeMap<String, SkillUsageData>,
    half_life_days: f64,
}

impl Default for SkillUsageTracker {
    fn default() -> Self {
        Self::new(DEFAULT_USAGE_HALF_LIFE_DAYS)
    }
}

impl SkillUsageTracker {
    /// An empty tracker. A half-life that is not a positive finite number falls back to
    /// the default of 7 days (that of [`crate::SkillsConfig`]).
    pub fn new(half_life_days: f64) -> Self {
        let half_life_days = if half_life_days.is_finite() && half_life_days > 0.0 {
            half_life_days
        } else {
            DEFAULT_USAGE_HALF_LIFE_DAYS
        };
        Self {
            usage: BTreeMap::new(),
            half_life_days,
        }
    }

    /// The half-life in days.
    pub fn half_life_days(&self) -> f64 {
        self.half_life_days
    }

    /// Records one use of `skill_name` at `now`.
    pub fn track_usage(&mut self, skill_name: &str, now: DateTime<Utc>) {
        let entry = self
            .usage
            .entry(skill_name.to_string())
            .or_insert(SkillUsageData {
                usage_count: 0,
                last_used_at: now,
            });
        entry.usage_count = entry.usage_count.saturating_add(1);
        entry.last_used_at = now;
    }

    /// The recorded usage of `skill_name`.
    pub fn usage(&self, skill_name: &str) -> Option<&SkillUsageData> {
        self.usage.get(skill_name)
    }

    /// The decayed score of `skill_name` at `now`; 0 when never used. A last use in the
    /// future (clock skew) counts as now.
    pub fn get_score(&self, skill_name: &str, now: DateTime<Utc>) -> f64 {
        let Some(data) = self.usage.get(skill_name) else {
            return 0.0;
        };
        let elapsed = now.signed_duration_since(data.last_used_at);
        let days_since = (elapsed.num_milliseconds() as f64 / 1000.0 / SECONDS_PER_DAY).max(0.0);
        let decay = 2.0_f64.powf(-days_since / self.half_life_days);
        f64::from(data.usage_count) * decay
    }

    /// Sorts `items` by score at `now`, highest first; equal scores by name.
    pub fn sort_by_usage<T>(
        &self,
        items: &mut [T],
        name_of: impl Fn(&T) -> &str,
        now: DateTime<Utc>,
    ) {
        items.sort_by(|a, b| {
            let (a, b) = (name_of(a), name_of(b));
            self.get_score(b, now)
                .total_cmp(&self.get_score(a, now))
                .then_with(|| a.cmp(b))
        });
    }

    /// Reads the tracker from `path`; a missing file gives an empty tracker.
    pub fn load(path: &Path, half_life_days: f64) -> Result<Self, UsageError> {
        let mut tracker = Self::new(half_life_days);
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(tracker),
            Err(source) => {
                return Err(UsageError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let file: UsageFile = serde_json::from_str(&text).map_err(|source| UsageError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
        if file.version != USAGE_FILE_VERSION {
            return Err(UsageError::Version {
                path: path.to_path_buf(),
                version: file.version,
            });
        }
        tracker.usage = file.skills;
        Ok(tracker)
    }

    /// Writes the tracker to `path` atomically: a temporary file in the same directory,
    /// flushed to disk, then renamed over `path`.
    pub fn save(&self, path: &Path) -> Result<(), UsageError> {
        let write_error = |source| UsageError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = UsageFile {
            version: USAGE_FILE_VERSION,
            skills: self.usage.clone(),
        };
        let json = serde_json::to_vec_pretty(&file)
            .map_err(|err| write_error(std::io::Error::other(err)))?;
        agentctx_atomic_file::write_atomically(path, &json).map_err(write_error)
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
