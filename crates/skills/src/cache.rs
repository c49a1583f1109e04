//! [`SkillCache`]: loaded skills kept per [`SkillRoots`], reloaded when a source changes.
//!
//! Staleness is decided by a cheap fingerprint made only of `stat` calls: the
//! modification time and size of every root directory, every skill directory, and
//! every `SKILL.md` and `SKILL.toml`. Adding, removing or editing a skill changes it.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::SystemTime;

use crate::interface::SKILL_TOML_FILE;
use crate::loader::SkillLoadOutcome;
use crate::loader::load_skills;
use crate::roots::SkillRoots;
use crate::skill_file::SKILL_MD_FILE;

/// Modification time and size of one path, `None` when it does not exist.
type Stamp = Option<(Option<SystemTime>, u64)>;

/// The state of every file and directory a load reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceFingerprint(Vec<(PathBuf, Stamp)>);

impl SourceFingerprint {
    /// Takes the fingerprint of `roots` now.
    pub(crate) fn of(roots: &SkillRoots) -> Self {
        let mut stamps = Vec::new();
        for root in roots.roots() {
            stamps.push((root.dir.clone(), stamp(&root.dir)));
            let Ok(entries) = fs::read_dir(&root.dir) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .collect();
            dirs.sort();
            for dir in dirs {
                stamps.push((dir.clone(), stamp(&dir)));
                for file in [SKILL_MD_FILE, SKILL_TOML_FILE] {
                    let path = dir.join(file);
                    let file_stamp = stamp(&path);
                    stamps.push((path, file_stamp));
                }
            }
        }
        Self(stamps)
    }
}

fn stamp(path: &Path) -> Stamp {
    fs::metadata(path)
        .ok()
        .map(|metadata| (metadata.modified().ok(), metadata.len()))
}

#[derive(Debug)]
struct CachedSkills {
    outcome: Arc<SkillLoadOutcome>,
    fingerprint: SourceFingerprint,
}

/// Skills cached per load context. Cheap to share: every method takes `&self`.
#[derive(Debug, Default)]
pub struct SkillCache {
    entries: Mutex<HashMap<SkillRoots, CachedSkills>>,
}

impl SkillCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The skills of `roots`, loaded now if absent or stale, else the cached ones.
    pub fn get_or_load(&self, roots: &SkillRoots) -> Arc<SkillLoadOutcome> {
        let fingerprint = SourceFingerprint::of(roots);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = entries.get(roots)
            && cached.fingerprint == fingerprint
        {
            return Arc::clone(&cached.outcome);
        }
        tracing::debug!(?roots, "loading skills");
        let outcome = Arc::new(load_skills(roots));
        entries.insert(
            roots.clone(),
            CachedSkills {
                outcome: Arc::clone(&outcome),
                fingerprint,
            },
        );
        outcome
    }

    /// Forgets the skills of `roots`.
    pub fn invalidate(&self, roots: &SkillRoots) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(roots);
    }

    /// Forgets everything (on a configuration change or an explicit refresh).
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}
