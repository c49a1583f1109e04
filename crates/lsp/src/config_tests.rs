use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn python() -> LspServerConfig {
    toml_like(json!({
        "command": ["pyright-langserver", "--stdio"],
        "extensions": ["py", ".pyi"],
        "root_markers": ["pyproject.toml"],
        "settings": {"python": {"analysis": {"typeCheckingMode": "strict"}}},
    }))
}

fn toml_like(value: serde_json::Value) -> LspServerConfig {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_server_serves_its_extensions_with_or_without_the_dot() {
    let config = python();
    assert!(config.serves(Path::new("/p/a.py")));
    assert!(config.serves(Path::new("/p/a.PYI")));
    assert!(!config.serves(Path::new("/p/a.rs")));
    assert!(!config.serves(Path::new("/p/Makefile")));
    assert_eq!(config.language_id("python"), "python");
    assert_eq!(config.diagnostics_wait().as_millis(), 5_000);
}

#[test]
fn unknown_keys_are_refused_so_a_typo_is_not_silently_ignored() {
    let err =
        serde_json::from_value::<LspServerConfig>(json!({"command": ["x"], "extension": ["py"]}))
            .unwrap_err();
    assert!(
        err.to_string().contains("unknown field `extension`"),
        "{err}"
    );
}

#[test]
fn configuration_requests_are_answered_by_dotted_section() {
    let config = python();
    assert_eq!(
        config.setting(Some("python.analysis")),
        json!({"typeCheckingMode": "strict"})
    );
    assert_eq!(
        config.setting(Some("python.missing")),
        serde_json::Value::Null
    );
    assert_eq!(config.setting(None), config.settings.unwrap());
    assert_eq!(
        LspServerConfig::default().setting(Some("python")),
        serde_json::Value::Null
    );
}

#[test]
fn the_root_is_the_nearest_folder_with_a_marker_up_to_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_path_buf();
    let project = cwd.join("services/api");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("pyproject.toml"), "").unwrap();
    let markers = vec!["pyproject.toml".to_owned()];
    assert_eq!(
        project_root(&project.join("src/main.py"), &cwd, &markers),
        project
    );
    // No marker on the way up: the working directory.
    assert_eq!(project_root(&cwd.join("tools/x.py"), &cwd, &markers), cwd);
    // A marker above the working directory does not count.
    std::fs::write(dir.path().join("pyproject.toml"), "").unwrap();
    let inner = cwd.join("inner");
    assert_eq!(project_root(&inner.join("x.py"), &inner, &markers), inner);
    // Outside the working directory, and without markers: the working directory.
    assert_eq!(
        project_root(&PathBuf::from("/elsewhere/x.py"), &cwd, &markers),
        cwd
    );
    assert_eq!(project_root(&project.join("src/main.py"), &cwd, &[]), cwd);
}
