//! Optional interface metadata of a skill (`SKILL.toml`), for UI presentation.
//!
//! Validation (the rules and limits are explained in docs/design/skills.md): icon paths
//! must stay under the skill's `assets/` directory (no absolute paths, no `..`), the brand
//! colour must be `#RRGGBB`, and text fields have length limits. An invalid field is
//! dropped and reported; it never makes the skill itself unusable.

use std::path::Component;
use std::path::Path;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// File name of the interface metadata, next to `SKILL.md`.
pub(crate) const SKILL_TOML_FILE: &str = "SKILL.toml";
/// Directory (inside the skill directory) that icon paths are relative to.
pub(crate) const ASSETS_DIR: &str = "assets";
/// Maximum length of `display_name`, in characters.
pub(crate) const MAX_DISPLAY_NAME_CHARS: usize = 64;
/// Maximum length of `short_description`, in characters.
pub(crate) const MAX_SHORT_DESCRIPTION_CHARS: usize = 1024;
/// Maximum length of `default_prompt`, in characters.
pub(crate) const MAX_DEFAULT_PROMPT_CHARS: usize = 256;
/// Maximum length of `brand_color` (`#RRGGBB`), in characters.
pub(crate) const MAX_BRAND_COLOR_CHARS: usize = 7;

/// Rich UI metadata for skill presentation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillInterface {
    /// Display name (defaults to the skill name).
    pub display_name: Option<String>,
    /// Short description for the UI.
    pub short_description: Option<String>,
    /// Small icon; relative to `assets/` in the file, resolved to a full path once validated.
    pub icon_small: Option<PathBuf>,
    /// Large icon or logo; relative to `assets/` in the file, resolved once validated.
    pub icon_large: Option<PathBuf>,
    /// Brand colour, `#RRGGBB`.
    pub brand_color: Option<String>,
    /// Suggested prompt for the UI input field.
    pub default_prompt: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SkillTomlConfig {
    interface: Option<SkillInterface>,
}

/// Why an icon path was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AssetPathError {
    /// The path is absolute.
    #[error("`{path}` is an absolute path; icons must be relative to assets/")]
    Absolute {
        /// The rejected path.
        path: PathBuf,
    },
    /// The path contains a `..` component.
    #[error("`{path}` contains `..`; icons must stay under assets/")]
    ParentDir {
        /// The rejected path.
        path: PathBuf,
    },
    /// No file exists at the path under `assets/`.
    #[error("`{path}` does not exist under assets/")]
    Missing {
        /// The rejected path.
        path: PathBuf,
    },
    /// The path names a directory (`assets/` itself, or one inside it), not a file.
    #[error("`{path}` is a directory, not an icon file")]
    NotAFile {
        /// The rejected path.
        path: PathBuf,
    },
    /// The path resolves (through a symbolic link) outside `assets/`.
    #[error("`{path}` resolves outside assets/")]
    Escapes {
        /// The rejected path.
        path: PathBuf,
    },
}

/// The result of reading a `SKILL.toml`: the validated interface and one message per problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct InterfaceLoad {
    /// The interface, `None` when the file is absent, unreadable or has no `[interface]`.
    pub(crate) interface: Option<SkillInterface>,
    /// Problems found; each names the field and says what was dropped.
    pub(crate) issues: Vec<String>,
}

/// Loads and validates `<skill_dir>/SKILL.toml`, if present.
pub(crate) fn load_skill_interface(skill_dir: &Path) -> InterfaceLoad {
    let path = skill_dir.join(SKILL_TOML_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return InterfaceLoad::default(),
        Err(err) => {
            return InterfaceLoad {
                interface: None,
                issues: vec![format!(
                    "cannot read {SKILL_TOML_FILE}: {err}; interface ignored"
                )],
            };
        }
    };
    parse_skill_interface(skill_dir, &text)
}

/// Parses and validates the text of a `SKILL.toml` belonging to `skill_dir`.
pub(crate) fn parse_skill_interface(skill_dir: &Path, text: &str) -> InterfaceLoad {
    let config: SkillTomlConfig = match toml::from_str(text) {
        Ok(config) => config,
        Err(err) => {
            let message = err.message().trim_end();
            let at = err
                .span()
                .map(|span| line_and_column(text, span.start))
                .map(|(line, column)| format!(" at line {line}, column {column}"))
                .unwrap_or_default();
            return InterfaceLoad {
                interface: None,
                issues: vec![format!(
                    "invalid {SKILL_TOML_FILE}{at}: {message}; interface ignored"
                )],
            };
        }
    };
    let Some(mut interface) = config.interface else {
        return InterfaceLoad::default();
    };
    let mut issues = Vec::new();

    for (field, icon) in [
        ("icon_small", &mut interface.icon_small),
        ("icon_large", &mut interface.icon_large),
    ] {
        if let Some(path) = icon.take() {
            match validate_asset_path(skill_dir, &path) {
                Ok(full) => *icon = Some(full),
                Err(err) => issues.push(format!("{field} {err}; field ignored")),
            }
        }
    }

    if let Some(color) = interface.brand_color.take() {
        if is_valid_hex_color(&color) {
            interface.brand_color = Some(color);
        } else {
            issues.push(format!(
                "brand_color `{color}` is not a #RRGGBB colour; field ignored"
            ));
        }
    }

    for (field, value, max) in [
        (
            "display_name",
            &mut interface.display_name,
            MAX_DISPLAY_NAME_CHARS,
        ),
        (
            "short_description",
            &mut interface.short_description,
            MAX_SHORT_DESCRIPTION_CHARS,
        ),
        (
            "default_prompt",
            &mut interface.default_prompt,
            MAX_DEFAULT_PROMPT_CHARS,
        ),
    ] {
        if let Some(text) = value.as_deref() {
            let chars = text.chars().count();
            if chars > max {
                issues.push(format!(
                    "{field} is {chars} characters, over the limit of {max}; field ignored"
                ));
                *value = None;
            }
        }
    }

    InterfaceLoad {
        interface: Some(interface),
        issues,
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before
        .get(line_start..)
        .map_or(0, |rest| rest.chars().count())
        + 1;
    (line, column)
}

/// Checks that `path` is a relative path to an existing file under `<skill_dir>/assets/`
/// and returns its full path.
pub(crate) fn validate_asset_path(
    skill_dir: &Path,
    path: &Path,
) -> Result<PathBuf, AssetPathError> {
    if path.is_absolute() || path.has_root() {
        return Err(AssetPathError::Absolute {
            path: path.to_path_buf(),
        });
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(AssetPathError::ParentDir {
            path: path.to_path_buf(),
        });
    }
    let assets = skill_dir.join(ASSETS_DIR);
    let full = assets.join(path);
    let (Ok(real_assets), Ok(real_full)) = (assets.canonicalize(), full.canonicalize()) else {
        return Err(AssetPathError::Missing {
            path: path.to_path_buf(),
        });
    };
    if !real_full.starts_with(&real_assets) {
        return Err(AssetPathError::Escapes {
            path: path.to_path_buf(),
        });
    }
    if !real_full.is_file() {
        return Err(AssetPathError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    Ok(full)
}

/// Whether `color` is `#RRGGBB` (exactly seven characters, six hex digits).
pub(crate) fn is_valid_hex_color(color: &str) -> bool {
    match color.strip_prefix('#') {
        Some(hex) => {
            color.len() == MAX_BRAND_COLOR_CHARS && hex.chars().all(|c| c.is_ascii_hexdigit())
        }
        None => false,
    }
}

#[cfg(test)]
#[path = "interface_tests.rs"]
mod tests;
