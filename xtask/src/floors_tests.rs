use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::FLOORS;
use super::check;
use super::floor_of;
use super::is_test_support;
use super::render_table;
use crate::workspace::DepKind;
use crate::workspace::Dependency;
use crate::workspace::Package;

const ROOT: &str = "/ws";

fn package(dir: &str, name: &str, deps: &[(&str, DepKind)]) -> Package {
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
    }
}

fn messages(packages: &[Package]) -> Vec<String> {
    check(Path::new(ROOT), packages)
        .into_iter()
        .map(|f| f.to_string())
        .collect()
}

#[test]
fn the_table_matches_the_architecture() {
    assert_eq!(floor_of("agentctx-protocol"), Some(0));
    assert_eq!(floor_of("agentctx-skills"), Some(1));
    assert_eq!(floor_of("agentctx-memory"), Some(2));
    assert_eq!(floor_of("agentctx-loop-driver"), Some(3));
    assert_eq!(floor_of("agentctx-core"), Some(4));
    assert_eq!(floor_of("agentctx-cli"), Some(5));
    assert_eq!(floor_of("xtask"), None);
    for entry in FLOORS {
        assert_eq!(entry.package, format!("agentctx-{}", entry.dir));
    }
}

#[test]
fn lower_floor_dependencies_of_every_kind_pass() {
    let packages = vec![
        package("crates/protocol", "agentctx-protocol", &[]),
        package("crates/context", "agentctx-context", &[]),
        package(
            "crates/reminders",
            "agentctx-reminders",
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
        package("crates/context", "agentctx-context", &[]),
        package("crates/reminders", "agentctx-reminders", &[]),
        package(
            "crates/rollout",
            "agentctx-rollout",
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
fn unknown_crates_name_the_table_to_update() {
    let packages = vec![
        package("crates/sandbox", "agentctx-sandbox", &[]),
        package(
            "crates/core",
            "agentctx-core",
            &[("agentctx-sandbox", DepKind::Normal)],
        ),
    ];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/sandbox/Cargo.toml: package `agentctx-sandbox` is on no floor; add it to `FLOORS` in xtask/src/floors.rs and the floors table of docs/architecture.md",
            "error[floors] crates/core/Cargo.toml: `agentctx-core` depends on workspace package `agentctx-sandbox` in [dependencies], which is on no floor; add it to `FLOORS` in xtask/src/floors.rs and the floors table of docs/architecture.md",
        ]
    );
}

#[test]
fn a_known_package_in_the_wrong_directory_fails() {
    let packages = vec![package("crates/proto", "agentctx-protocol", &[])];
    assert_eq!(
        messages(&packages),
        vec![
            "error[floors] crates/proto/Cargo.toml: package `agentctx-protocol` must live in `crates/protocol` (see `FLOORS` in xtask/src/floors.rs and the floors table of docs/architecture.md)"
        ]
    );
}

#[test]
fn test_support_is_exempt_only_as_a_dev_dependency_target() {
    assert!(is_test_support("agentctx_test_support"));
    assert!(is_test_support("agentctx-context-test-support"));
    assert!(!is_test_support("agentctx-support"));
    let packages = vec![
        package("crates/context/tests/common", "agentctx_test_support", &[]),
        package(
            "crates/protocol",
            "agentctx-protocol",
            &[("agentctx_test_support", DepKind::Dev)],
        ),
        package(
            "crates/context",
            "agentctx-context",
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
        &[("agentctx-protocol", DepKind::Normal)],
    );
    // Same name as a workspace crate but not a path dependency: a registry crate.
    cli.dependencies.push(Dependency {
        name: "agentctx-core".to_owned(),
        kind: None,
        path: None,
    });
    let packages = vec![
        package("xtask", "xtask", &[("agentctx-cli", DepKind::Normal)]),
        package("crates/protocol", "agentctx-protocol", &[]),
        package("crates/core", "agentctx-core", &[]),
        cli,
    ];
    assert_eq!(messages(&packages), Vec::<String>::new());
}

#[test]
fn render_table_lists_one_floor_per_line() {
    assert_eq!(
        render_table(),
        "floor 0: agentctx-protocol\n\
         floor 1: agentctx-context, agentctx-rollout, agentctx-model, agentctx-skills\n\
         floor 2: agentctx-reminders, agentctx-compact, agentctx-memory\n\
         floor 3: agentctx-loop-driver\n\
         floor 4: agentctx-core\n\
         floor 5: agentctx-cli\n"
    );
}
