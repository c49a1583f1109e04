use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::Declared;
use super::check;
use super::declared;
use super::is_test_support;
use super::render_table;
use crate::workspace::DepKind;
use crate::workspace::Dependency;
use crate::workspace::Metadata;
use crate::workspace::Package;

const ROOT: &str = "/ws";

fn package(dir: &str, name: &str, floor: Option<u8>, deps: &[(&str, DepKind)]) -> Package {
    Package {
        name: name.to_owned(),
        manifest_path: PathBuf::from(format!("{ROOT}/{dir}/Cargo.toml")),
        targets: Vec::new(),
        dependencies: deps
            .iter()
            .map(|(dep, kind)| Dependency {
                name: (*dep).to_owned(),
                kind: Some(*kind),
                path: Some(PathBuf::from(format!("{ROOT}/somewhere/{dep}"))),
            })
            .collect(),
        metadata: floor.map_or(
            serde_json::Value::Null,
            |floor| serde_json::json!({ "agentctx": { "floor": floor } }),
        ),
    }
}

fn messages(packages: &[Package]) -> Vec<String> {
    check(Path::new(ROOT), packages)
        .into_iter()
        .map(|f| f.to_string())
        .collect()
}

#[test]
fn the_floor_is_read_from_package_metadata() {
    let mut p = package("crates/context", "agentctx-context", Some(1), &[]);
    assert_eq!(declared(&p), Declared::Floor(1));
    p.metadata = serde_json::json!({ "other-tool": { "floor": 3 } });
    assert_eq!(declared(&p), Declared::Missing);
    p.metadata = serde_json::json!({ "agentctx": { "floor": "one" } });
    assert_eq!(declared(&p), Declared::Invalid("\"one\"".to_owned()));
    p.metadata = serde_json::json!({ "agentctx": { "floor": 300 } });
    assert_eq!(declared(&p), Declared::Invalid("300".to_owned()));
}

#[test]
fn every_crate_of_this_workspace_declares_its_documented_floor() {
    let metadata = Metadata::load().unwrap();
    let floors: Vec<(String, Declared)> = metadata
        .packages
        .iter()
        .filter(|p| super::is_floored_crate(&metadata.workspace_root, p))
        .map(|p| (p.name.clone(), declared(p)))
        .filter(|(name, _)| {
            [
                "agentctx-protocol",
                "agentctx-context",
                "agentctx-reminders",
                "agentctx-cli",
            ]
            .contains(&name.as_str())
        })
        .collect();
    let mut floors = floors;
    floors.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        floors,
        vec![
            ("agentctx-cli".to_owned(), Declared::Floor(5)),
            ("agentctx-context".to_owned(), Declared::Floor(1)),
            ("agentctx-protocol".to_owned(), Declared::Floor(0)),
            ("agentctx-reminders".to_owned(), Declared::Floor(2)),
        ]
    );
    assert_eq!(
        check(&metadata.workspace_root, &metadata.packages)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        Vec::<String>::new()
    );
}

#[test]
fn lower_floor_dependencies_of_every_kind_pass() {
    let packages = vec![
        package("crates/protocol", "agentctx-protocol", Some(0), &[]),
        package("crates/context", "agentctx-context", Some(1), &[]),
        package(
            "crates/reminders",
            "agentctx-reminders",
            Some(2),
            &[
                ("agentctx-protocol", DepKind::Normal),
                ("agentctx-context", DepKind::Dev),
                ("agentctx-protocol", DepKind::Build),
                ("serde", DepKind::Normal),
            ],
        ),
    ];
    assert_eq!(messages(&packages), Vec::<String>::new());
}

#[test]
fn same_or_higher_floor_dependencies_fail_for_every_kind() {
    let packages = vec![
        package("crates/context", "agentctx-context", Some(1), &[]),
        package("crates/reminders", "agentctx-reminders", Some(2), &[]),
        package(
            "crates/rollout",
            "agentctx-rollout",
            Some(1),
            &[
                ("agentctx-context", DepKind::Dev),
                ("agentctx-reminders", DepKind::Normal),
                ("agentctx-context", DepKind::Build),
            ],
        ),
    ];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/rollout/Cargo.toml: `agentctx-rollout` (floor 1) depends on `agentctx-context` (floor 1) in [dev-dependencies]; a crate may depend only on crates of strictly lower floors",
            "error[floors] crates/rollout/Cargo.toml: `agentctx-rollout` (floor 1) depends on `agentctx-reminders` (floor 2) in [dependencies]; a crate may depend only on crates of strictly lower floors",
            "error[floors] crates/rollout/Cargo.toml: `agentctx-rollout` (floor 1) depends on `agentctx-context` (floor 1) in [build-dependencies]; a crate may depend only on crates of strictly lower floors",
        ]
    );
}

#[test]
fn a_crate_without_floor_metadata_fails_with_how_to_declare_it() {
    let packages = vec![
        package("crates/sandbox", "agentctx-sandbox", None, &[]),
        package(
            "crates/core",
            "agentctx-core",
            Some(4),
            &[("agentctx-sandbox", DepKind::Normal)],
        ),
    ];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/sandbox/Cargo.toml: package `agentctx-sandbox` declares no floor; add `[package.metadata.agentctx]` with `floor = N` to its Cargo.toml (docs/architecture.md, \"Floors\")",
            "error[floors] crates/core/Cargo.toml: `agentctx-core` depends on workspace package `agentctx-sandbox` in [dependencies], which declares no floor; add `[package.metadata.agentctx]` with `floor = N` to its Cargo.toml (docs/architecture.md, \"Floors\")",
        ]
    );
}

#[test]
fn an_invalid_floor_is_named() {
    let mut p = package("crates/core", "agentctx-core", None, &[]);
    p.metadata = serde_json::json!({ "agentctx": { "floor": -1 } });
    assert_eq!(
        messages(&[p]),
        vec![
            "error[floors] crates/core/Cargo.toml: package `agentctx-core` declares floor -1, which is not an integer from 0 to 255"
        ]
    );
}

#[test]
fn a_package_must_be_named_after_its_directory() {
    let packages = vec![
        package("crates/proto", "agentctx-protocol", Some(0), &[]),
        package("crates/nested/core", "agentctx-core", Some(4), &[]),
    ];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/proto/Cargo.toml: package `agentctx-protocol` must live in `crates/<dir>` and be named `agentctx-<dir>`",
            "error[floors] crates/nested/core/Cargo.toml: package `agentctx-core` must live in `crates/<dir>` and be named `agentctx-<dir>`",
        ]
    );
}

#[test]
fn test_support_is_exempt_only_as_a_dev_dependency_target() {
    assert!(is_test_support("agentctx_test_support"));
    assert!(is_test_support("agentctx-context-test-support"));
    assert!(!is_test_support("agentctx-support"));
    let packages = vec![
        package(
            "crates/context/tests/common",
            "agentctx_test_support",
            None,
            &[],
        ),
        package(
            "crates/protocol",
            "agentctx-protocol",
            Some(0),
            &[("agentctx_test_support", DepKind::Dev)],
        ),
        package(
            "crates/context",
            "agentctx-context",
            Some(1),
            &[("agentctx_test_support", DepKind::Normal)],
        ),
    ];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/context/Cargo.toml: `agentctx-context` depends on test-support package `agentctx_test_support` in [dependencies]; only [dev-dependencies] may"
        ]
    );
}

#[test]
fn packages_outside_crates_and_registry_dependencies_are_not_checked() {
    let mut cli = package(
        "crates/cli",
        "agentctx-cli",
        Some(5),
        &[("agentctx-protocol", DepKind::Normal)],
    );
    // Same name as a workspace crate but not a path dependency: a registry crate.
    cli.dependencies.push(Dependency {
        name: "agentctx-core".to_owned(),
        kind: None,
        path: None,
    });
    let packages = vec![
        package("xtask", "xtask", None, &[("agentctx-cli", DepKind::Normal)]),
        package("crates/protocol", "agentctx-protocol", Some(0), &[]),
        package("crates/core", "agentctx-core", Some(9), &[]),
        cli,
    ];
    assert_eq!(messages(&packages), Vec::<String>::new());
}

#[test]
fn render_table_lists_one_floor_per_line_from_the_metadata() {
    let packages = vec![
        package("crates/skills", "agentctx-skills", Some(1), &[]),
        package("crates/protocol", "agentctx-protocol", Some(0), &[]),
        package("crates/context", "agentctx-context", Some(1), &[]),
        package("crates/cli", "agentctx-cli", Some(5), &[]),
        package("crates/sandbox", "agentctx-sandbox", None, &[]),
        package("xtask", "xtask", None, &[]),
    ];
    assert_eq!(
        render_table(Path::new(ROOT), &packages),
        "floor 0: agentctx-protocol\n\
         floor 1: agentctx-context, agentctx-skills\n\
         floor 5: agentctx-cli\n\
         no floor: agentctx-sandbox\n"
    );
}
