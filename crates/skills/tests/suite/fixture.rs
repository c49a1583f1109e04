//! The fixture tree under `tests/fixtures/` as [`SkillRoots`], and path display helpers.

use std::path::Path;
use std::path::PathBuf;

use agentctx_skills::PluginSkillDir;
use agentctx_skills::SkillRoots;

pub(crate) fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every source of the fixture tree: policy, user, project, plugin `acme`, bundled.
pub(crate) fn fixture_roots() -> SkillRoots {
    let fixtures = fixtures_dir();
    SkillRoots {
        policy_dir: Some(fixtures.join("policy")),
        home_dir: Some(fixtures.join("home")),
        project_dir: Some(fixtures.join("project")),
        plugin_dirs: vec![PluginSkillDir {
            plugin_id: "acme".to_string(),
            dir: fixtures.join("plugins/acme"),
        }],
        bundled_dir: None,
    }
}

/// `path` relative to the fixture tree, for stable snapshots.
pub(crate) fn rel(path: &Path) -> String {
    path.strip_prefix(fixtures_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}
