use std::path::Path;

use pretty_assertions::assert_eq;

use super::DepKind;
use super::Metadata;
use super::display_path;
use super::scope_args;

#[test]
fn parses_the_fields_tidy_uses_from_cargo_metadata_json() {
    let json = r#"{
        "workspace_root": "/ws",
        "packages": [{
            "name": "agentctx-context",
            "manifest_path": "/ws/crates/context/Cargo.toml",
            "targets": [{"kind": ["lib"], "src_path": "/ws/crates/context/src/lib.rs", "name": "agentctx_context"}],
            "dependencies": [
                {"name": "agentctx-protocol", "kind": null, "path": "/ws/crates/protocol", "req": "*"},
                {"name": "tempfile", "kind": "dev", "req": "^3"},
                {"name": "cc", "kind": "build", "req": "^1"}
            ],
            "version": "0.1.0"
        }],
        "version": 1
    }"#;
    let metadata = Metadata::parse(json).unwrap();
    let package = &metadata.packages[0];
    assert_eq!(package.dir(), Path::new("/ws/crates/context"));
    assert_eq!(package.targets[0].kind, vec!["lib".to_owned()]);
    let kinds: Vec<DepKind> = package
        .dependencies
        .iter()
        .map(super::Dependency::kind)
        .collect();
    assert_eq!(kinds, vec![DepKind::Normal, DepKind::Dev, DepKind::Build]);
    assert_eq!(
        package.dependencies[0].path.as_deref(),
        Some(Path::new("/ws/crates/protocol"))
    );
    assert_eq!(package.dependencies[1].path, None);
}

#[test]
fn loads_this_workspace() {
    let metadata = Metadata::load().unwrap();
    assert!(metadata.packages.iter().any(|p| p.name == "xtask"));
    assert_eq!(metadata.workspace_root, super::root());
}

#[test]
fn display_path_is_relative_with_slashes() {
    assert_eq!(
        display_path(Path::new("/ws"), Path::new("/ws/crates/a/src/lib.rs")),
        "crates/a/src/lib.rs"
    );
    assert_eq!(
        display_path(Path::new("/ws"), Path::new("/other/x.rs")),
        "/other/x.rs"
    );
}

#[test]
fn scope_args_adds_workspace_unless_packages_are_selected() {
    let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(scope_args(&args(&[])), args(&["--workspace"]));
    assert_eq!(
        scope_args(&args(&["--", "--bench"])),
        args(&["--workspace"])
    );
    assert_eq!(scope_args(&args(&["-p", "agentctx-reminders"])), args(&[]));
    assert_eq!(scope_args(&args(&["-pagentctx-reminders"])), args(&[]));
    assert_eq!(
        scope_args(&args(&["--package=agentctx-reminders"])),
        args(&[])
    );
}
