//! Entry points for the fuzz targets under `fuzz/` (feature `fuzzing`). Not a stable API: they
//! run the private `SKILL.md` and `SKILL.toml` parsers on any text, without touching the disk.

use std::path::Path;

use crate::interface::parse_skill_interface;
use crate::skill_file::parse_skill_file;
use crate::source::SkillSource;

/// Parses `text` as the `SKILL.md` of a skill folder named `fuzz-skill`; true when it is a
/// valid skill.
pub fn parse_skill_md(text: &str) -> bool {
    parse_skill_file(Path::new("skills/fuzz-skill"), text, SkillSource::User).is_ok()
}

/// Parses and validates `text` as the `SKILL.toml` of the folder `skill_dir` (asset paths are
/// checked against it); returns whether an interface was kept and how many issues were found.
pub fn parse_skill_toml(skill_dir: &Path, text: &str) -> (bool, usize) {
    let load = parse_skill_interface(skill_dir, text);
    (load.interface.is_some(), load.issues.len())
}
