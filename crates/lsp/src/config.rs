//! `[lsp.<language>]`: which server to start for which files.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// How long the session waits, by default, for a server to publish the diagnostics of a file it
/// was just told about, before the next model request goes out without them.
pub const DEFAULT_DIAGNOSTICS_WAIT_MS: u64 = 5_000;

/// One language server, as `[lsp.<language>]` configures it:
///
/// ```toml
/// [lsp.python]
/// command = ["pyright-langserver", "--stdio"]
/// extensions = ["py", "pyi"]
/// root_markers = ["pyproject.toml", "setup.py", ".git"]
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LspServerConfig {
    /// The program and its arguments; the server speaks LSP on its stdin and stdout.
    pub command: Vec<String>,
    /// The file extensions it serves, without the dot (`py`; a leading dot is ignored).
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Files or folders that mark a project's root (`pyproject.toml`, `Cargo.toml`, `.git`):
    /// the server's workspace is the nearest folder above the first file that holds one, else
    /// the session's working directory.
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// The LSP language identifier of its files (`python`); the table's name when unset.
    #[serde(default)]
    pub language_id: Option<String>,
    /// Sent as `initializationOptions`.
    #[serde(default)]
    pub initialization_options: Option<serde_json::Value>,
    /// What `workspace/configuration` requests are answered from: the section a request names
    /// (`python.analysis`) is looked up in this object by its dotted path.
    #[serde(default)]
    pub settings: Option<serde_json::Value>,
    /// Extra environment variables for the server.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How long to wait for a changed file's diagnostics before a model request, in
    /// milliseconds ([`DEFAULT_DIAGNOSTICS_WAIT_MS`] when unset).
    #[serde(default)]
    pub diagnostics_wait_ms: Option<u64>,
}

impl LspServerConfig {
    /// Whether this server serves `path` (by its extension, ASCII case ignored).
    pub fn serves(&self, path: &Path) -> bool {
        let Some(extension) = path.extension().and_then(|ext| ext.to_str()) else {
            return false;
        };
        self.extensions.iter().any(|served| {
            served
                .trim_start_matches('.')
                .eq_ignore_ascii_case(extension)
        })
    }

    /// The language identifier sent in `didOpen` for a server configured as `language`.
    pub fn language_id<'a>(&'a self, language: &'a str) -> &'a str {
        self.language_id.as_deref().unwrap_or(language)
    }

    /// The diagnostics wait.
    pub fn diagnostics_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.diagnostics_wait_ms
                .unwrap_or(DEFAULT_DIAGNOSTICS_WAIT_MS),
        )
    }

    /// The answer to a `workspace/configuration` item of `section` (`None`: the whole
    /// settings): the value at that dotted path, or `null`.
    pub fn setting(&self, section: Option<&str>) -> serde_json::Value {
        let Some(settings) = &self.settings else {
            return serde_json::Value::Null;
        };
        let Some(section) = section.filter(|section| !section.is_empty()) else {
            return settings.clone();
        };
        section
            .split('.')
            .try_fold(settings, |value, key| value.get(key))
            .cloned()
            .unwrap_or(serde_json::Value::Null)
    }
}

/// The root folder for a server first asked about `file`: the nearest folder from the file's
/// own up to `cwd` that holds one of `markers`, else `cwd`. A file outside `cwd` takes `cwd`.
pub fn project_root(file: &Path, cwd: &Path, markers: &[String]) -> std::path::PathBuf {
    if markers.is_empty() || !file.starts_with(cwd) {
        return cwd.to_path_buf();
    }
    let mut folder = file.parent();
    while let Some(dir) = folder {
        if markers.iter().any(|marker| dir.join(marker).exists()) {
            return dir.to_path_buf();
        }
        if dir == cwd {
            break;
        }
        folder = dir.parent();
    }
    cwd.to_path_buf()
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
