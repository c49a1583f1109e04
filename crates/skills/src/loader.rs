//! Loading every `SKILL.md` of the [`SkillRoots`], in priority order.
//!
//! The first definition of a name wins; later ones are reported as shadowed. A file
//! reached twice (symbolic links, overlapping roots) is loaded once, by file identity
//! (inode). A malformed skill is reported with its path and skipped; it never hides the
//! others.

use std::collections::HashMap;
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;
use std::path::PathBuf;

use serde::Serialize;

use crate::interface::SKILL_TOML_FILE;
use crate::interface::load_skill_interface;
use crate::roots::SkillRoot;
use crate::roots::SkillRoots;
use crate::skill::SkillPromptCommand;
use crate::skill_file::SKILL_MD_FILE;
use crate::skill_file::parse_skill_file;
use crate::source::SkillSource;

/// A problem found while loading: the file and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillLoadError {
    /// The file or directory concerned.
    pub path: PathBuf,
    /// What is wrong, and what was skipped or ignored because of it.
    pub reason: String,
}

/// A skill that lost to an earlier definition of the same name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShadowedSkill {
    /// The command name.
    pub name: String,
    /// The `SKILL.md` that was not used.
    pub path: PathBuf,
    /// Its source.
    pub source: SkillSource,
    /// Where the definition that won came from (`None` for a builtin command).
    pub winner_path: Option<PathBuf>,
    /// The winner's source.
    pub winner_source: SkillSource,
}

/// Everything one load produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkillLoadOutcome {
    /// Loaded skills, in priority order, one per name.
    pub skills: Vec<SkillPromptCommand>,
    /// Malformed files and ignored fields.
    pub errors: Vec<SkillLoadError>,
    /// Definitions shadowed by an earlier one of the same name.
    pub shadowed: Vec<ShadowedSkill>,
}

/// The identity of a file: device and inode on Unix, the canonical path elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileIdentity {
    #[cfg_attr(not(unix), expect(dead_code, reason = "inodes exist on unix only"))]
    Inode { dev: u64, ino: u64 },
    #[cfg_attr(
        unix,
        expect(dead_code, reason = "fallback for platforms without inodes")
    )]
    Path(PathBuf),
}

#[cfg(unix)]
fn file_identity(_path: &Path, metadata: &fs::Metadata) -> FileIdentity {
    use std::os::unix::fs::MetadataExt;
    FileIdentity::Inode {
        dev: metadata.dev(),
        ino: metadata.ino(),
    }
}

#[cfg(not(unix))]
fn file_identity(path: &Path, _metadata: &fs::Metadata) -> FileIdentity {
    FileIdentity::Path(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
}

/// Loads all skills of `roots`.
pub fn load_skills(roots: &SkillRoots) -> SkillLoadOutcome {
    let mut loader = Loader::default();
    for root in roots.roots() {
        loader.load_root(&root);
    }
    loader.outcome
}

#[derive(Default)]
struct Loader {
    outcome: SkillLoadOutcome,
    seen_files: HashSet<FileIdentity>,
    index_by_name: HashMap<String, usize>,
}

impl Loader {
    fn error(&mut self, path: PathBuf, reason: String) {
        // Returned to the caller, who decides how to report it; logged for tracing only.
        tracing::debug!(path = %path.display(), %reason, "skill load problem");
        self.outcome.errors.push(SkillLoadError { path, reason });
    }

    fn load_root(&mut self, root: &SkillRoot) {
        let entries = match sorted_entries(&root.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return,
            Err(err) => {
                self.error(
                    root.dir.clone(),
                    format!("cannot read skill directory: {err}"),
                );
                return;
            }
        };
        for skill_dir in entries {
            if skill_dir.is_dir() {
                self.load_skill_dir(&skill_dir, &root.source);
            }
        }
    }

    fn load_skill_dir(&mut self, skill_dir: &Path, source: &SkillSource) {
        let names = match sorted_entries(skill_dir) {
            Ok(entries) => entries,
            Err(err) => {
                self.error(
                    skill_dir.to_path_buf(),
                    format!("cannot read skill directory: {err}; skill skipped"),
                );
                return;
            }
        };
        // Compare names exactly: `SKILL.md` is case-sensitive even on case-insensitive
        // file systems.
        let file_names: Vec<String> = names
            .iter()
            .filter_map(|path| path.file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        if !file_names.iter().any(|name| name == SKILL_MD_FILE) {
            if let Some(near) = file_names
                .iter()
                .find(|name| name.eq_ignore_ascii_case(SKILL_MD_FILE))
            {
                self.error(
                    skill_dir.join(near),
                    format!(
                        "file name must be exactly {SKILL_MD_FILE} (case-sensitive); skill skipped"
                    ),
                );
            }
            return;
        }
        let path = skill_dir.join(SKILL_MD_FILE);
        let metadata = match fs::metadata(&path) {
            Ok(metadata) => metadata,
            Err(err) => {
                self.error(path, format!("cannot stat file: {err}; skill skipped"));
                return;
            }
        };
        if !self.seen_files.insert(file_identity(&path, &metadata)) {
            tracing::debug!(path = %path.display(), "skill file already loaded through another path");
            return;
        }
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) => {
                self.error(path, format!("cannot read file: {err}; skill skipped"));
                return;
            }
        };
        let mut skill = match parse_skill_file(skill_dir, &text, source.clone()) {
            Ok(skill) => skill,
            Err(err) => {
                self.error(path, format!("{err}; skill skipped"));
                return;
            }
        };
        if let Some(&index) = self.index_by_name.get(&skill.name) {
            if let Some(winner) = self.outcome.skills.get(index) {
                self.outcome.shadowed.push(ShadowedSkill {
                    name: skill.name,
                    path,
                    source: source.clone(),
                    winner_path: winner.path.clone(),
                    winner_source: winner.source.clone(),
                });
            }
            return;
        }
        if file_names.iter().any(|name| name == SKILL_TOML_FILE) {
            let load = load_skill_interface(skill_dir);
            let toml_path = skill_dir.join(SKILL_TOML_FILE);
            for issue in load.issues {
                self.error(toml_path.clone(), issue);
            }
            skill.interface = load.interface;
        }
        self.index_by_name
            .insert(skill.name.clone(), self.outcome.skills.len());
        self.outcome.skills.push(skill);
    }
}

fn sorted_entries(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)? {
        entries.push(entry?.path());
    }
    entries.sort();
    Ok(entries)
}
