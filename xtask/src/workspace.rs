//! The workspace as `cargo metadata --no-deps` describes it: its root and its packages.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::Result;
use serde::Deserialize;

use crate::process::Cmd;

/// The workspace root: the parent of the `xtask` directory this binary was built from.
pub(crate) fn root() -> &'static Path {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir)
}

/// `path` relative to `root` with `/` separators, for messages.
pub(crate) fn display_path(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.to_string_lossy().replace('\\', "/")
}

/// `--workspace`, unless `extra` (arguments passed through to cargo) already selects packages
/// with `-p`/`--package`.
pub(crate) fn scope_args(extra: &[String]) -> Vec<String> {
    let selects = extra
        .iter()
        .any(|a| a == "-p" || a.starts_with("--package") || (a.starts_with("-p") && a.len() > 2));
    if selects {
        Vec::new()
    } else {
        vec!["--workspace".to_owned()]
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Metadata {
    pub(crate) workspace_root: PathBuf,
    pub(crate) packages: Vec<Package>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) manifest_path: PathBuf,
    #[serde(default)]
    pub(crate) targets: Vec<Target>,
    #[serde(default)]
    pub(crate) dependencies: Vec<Dependency>,
    /// `[package.metadata]` of the manifest (`null` when it has none); the floor lives in
    /// `metadata.agentctx.floor`.
    #[serde(default)]
    pub(crate) metadata: serde_json::Value,
}

impl Package {
    /// The directory holding the package's `Cargo.toml`.
    pub(crate) fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(&self.manifest_path)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Target {
    pub(crate) kind: Vec<String>,
    pub(crate) src_path: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Dependency {
    /// The package name (not the `rename`d one).
    pub(crate) name: String,
    /// `None` for a normal dependency.
    pub(crate) kind: Option<DepKind>,
    /// Set for path dependencies, which is what workspace crates are.
    pub(crate) path: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DepKind {
    Normal,
    Dev,
    Build,
}

impl Dependency {
    pub(crate) fn kind(&self) -> DepKind {
        self.kind.unwrap_or(DepKind::Normal)
    }
}

impl DepKind {
    pub(crate) fn section(self) -> &'static str {
        match self {
            DepKind::Normal => "[dependencies]",
            DepKind::Dev => "[dev-dependencies]",
            DepKind::Build => "[build-dependencies]",
        }
    }
}

impl Metadata {
    /// Runs `cargo metadata --format-version 1 --no-deps` in the workspace root.
    pub(crate) fn load() -> Result<Self> {
        let json = Cmd::cargo(["metadata", "--format-version", "1", "--no-deps"]).read_stdout()?;
        Self::parse(&json)
    }

    pub(crate) fn parse(json: &str) -> Result<Self> {
        serde_json::from_str(json).context("could not parse the output of `cargo metadata`")
    }
}

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
