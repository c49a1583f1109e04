use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::FilePlace;
use super::PackageKind;
use super::check_workspace;
use super::report;
use super::rules_for;
use super::source_rules::Rules;
use crate::workspace::DepKind;
use crate::workspace::Dependency;
use crate::workspace::Metadata;
use crate::workspace::Package;
use crate::workspace::Target;

#[test]
fn file_places_are_classified_by_their_path_in_the_package() {
    let place = |p: &str| FilePlace::of(Path::new(p));
    assert_eq!(
        place("src/throttle.rs"),
        FilePlace {
            in_src: true,
            ..FilePlace::default()
        }
    );
    assert_eq!(
        place("src/throttle_tests.rs"),
        FilePlace {
            in_src: true,
            unit_tests: true,
            ..FilePlace::default()
        }
    );
    assert_eq!(
        place("src/main.rs"),
        FilePlace {
            in_src: true,
            binary_root: true,
            ..FilePlace::default()
        }
    );
    assert_eq!(place("src/bin/tool.rs").binary_root, true);
    assert_eq!(place("src/git/process.rs").process_helper, true);
    assert_eq!(
        place("tests/suite/replay.rs"),
        FilePlace {
            under_tests: true,
            ..FilePlace::default()
        }
    );
    assert_eq!(place("benches/orchestrator.rs"), FilePlace::default());
}

#[test]
fn rules_follow_the_package_and_the_place() {
    let src = FilePlace::of(Path::new("src/a.rs"));
    let all = Rules {
        no_print: true,
        no_placeholders: true,
        no_process_command: true,
    };
    assert_eq!(rules_for(PackageKind::Library, src), all);
    assert_eq!(
        rules_for(PackageKind::Binary, src),
        Rules {
            no_print: false,
            ..all
        }
    );
    assert_eq!(
        rules_for(PackageKind::Xtask, src),
        Rules {
            no_placeholders: true,
            ..Rules::default()
        }
    );
    assert_eq!(
        rules_for(
            PackageKind::Library,
            FilePlace::of(Path::new("src/a_tests.rs"))
        ),
        Rules {
            no_placeholders: true,
            ..Rules::default()
        }
    );
    assert_eq!(
        rules_for(
            PackageKind::Library,
            FilePlace::of(Path::new("src/process.rs"))
        ),
        Rules {
            no_process_command: false,
            ..all
        }
    );
    assert_eq!(
        rules_for(
            PackageKind::Library,
            FilePlace::of(Path::new("tests/all.rs"))
        ),
        Rules::default()
    );
    assert_eq!(
        rules_for(
            PackageKind::Library,
            FilePlace::of(Path::new("benches/b.rs"))
        ),
        Rules {
            no_process_command: true,
            ..Rules::default()
        }
    );
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn lib_package(root: &Path, dir: &str, name: &str, floor: u8, deps: &[&str]) -> Package {
    Package {
        name: name.to_owned(),
        manifest_path: root.join(dir).join("Cargo.toml"),
        targets: vec![Target {
            kind: vec!["lib".to_owned()],
            src_path: root.join(dir).join("src/lib.rs"),
        }],
        dependencies: deps
            .iter()
            .map(|dep| Dependency {
                name: (*dep).to_owned(),
                kind: Some(DepKind::Normal),
                path: Some(root.join("crates").join(dep)),
            })
            .collect(),
        metadata: serde_json::json!({ "agentctx": { "floor": floor } }),
    }
}

const GOOD_MANIFEST: &str = "[package]\nname = \"x\"\n[lints]\nworkspace = true\n";

#[test]
fn a_clean_fixture_workspace_has_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "docs/architecture.md",
        "# Invariants\n[crates](../README.md)\n",
    );
    write(root, "crates/protocol/Cargo.toml", GOOD_MANIFEST);
    write(
        root,
        "crates/protocol/src/lib.rs",
        "//! Wire types.\n\nmod models;\n",
    );
    write(root, "crates/protocol/src/models.rs", "pub struct Item;\n");
    write(
        root,
        "crates/protocol/tests/all.rs",
        "mod suite {\n    mod a;\n}\nfn t() { println!(\"ok\"); }\n",
    );
    write(root, "crates/protocol/tests/suite/a.rs", "");
    let metadata = Metadata {
        workspace_root: root.to_path_buf(),
        packages: vec![lib_package(
            root,
            "crates/protocol",
            "agentctx-protocol",
            0,
            &[],
        )],
    };
    assert_eq!(check_workspace(&metadata).unwrap(), Vec::new());
}

#[test]
fn every_check_reports_on_a_broken_fixture_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "docs/architecture.md",
        concat!("see ", "..", "/shared", "/spec.md\n"),
    );
    write(
        root,
        "crates/protocol/Cargo.toml",
        "[package]\nname = \"p\"\n",
    );
    write(root, "crates/protocol/src/lib.rs", "mod a;\n");
    write(
        root,
        "crates/protocol/src/a/mod.rs",
        "fn f() { eprintln!(\"x\"); }\n",
    );
    write(
        root,
        "crates/protocol/src/big.rs",
        &format!(
            "{}{}",
            "fn g() {}\n".repeat(1501),
            concat!("fn h() { to", "do!() }\n")
        ),
    );
    write(
        root,
        "crates/protocol/src/git.rs",
        "//! git\nuse std::process::Command;\nfn f() { Command::new(\"git\"); }\n",
    );
    write(root, "crates/context/Cargo.toml", GOOD_MANIFEST);
    write(root, "crates/context/src/lib.rs", "//! Context.\n");
    write(root, "crates/protocol/tests/suite/orphan.rs", "");
    let metadata = Metadata {
        workspace_root: root.to_path_buf(),
        packages: vec![
            lib_package(
                root,
                "crates/protocol",
                "agentctx-protocol",
                0,
                &["agentctx-context"],
            ),
            lib_package(root, "crates/context", "agentctx-context", 1, &[]),
        ],
    };
    let findings: Vec<String> = check_workspace(&metadata)
        .unwrap()
        .iter()
        .map(|f| format!("{} {}:{}", f.check, f.path, f.line.unwrap_or_default()))
        .collect();
    let expected = vec![
        "floors crates/protocol/Cargo.toml:0",
        "workspace-lints crates/protocol/Cargo.toml:0",
        "mod-rs crates/protocol/src/a/mod.rs:0",
        "print crates/protocol/src/a/mod.rs:1",
        "file-size crates/protocol/src/big.rs:0",
        "placeholder crates/protocol/src/big.rs:1502",
        "invariant crates/protocol/src/git.rs:2",
        "process crates/protocol/src/git.rs:3",
        "crate-doc crates/protocol/src/lib.rs:0",
        "test-wiring crates/protocol/tests/suite/orphan.rs:0",
        "outside-ref docs/architecture.md:1",
    ];
    assert_eq!(findings, expected);
}

#[test]
fn report_fails_on_errors_only() {
    use crate::finding::Finding;
    let warning = Finding::warning("file-size", "a.rs", "long".to_owned());
    assert!(report(std::slice::from_ref(&warning), "tidy").is_ok());
    let error = Finding::error("print", "a.rs", "prints".to_owned());
    let err = report(&[warning, error], "tidy").unwrap_err();
    assert_eq!(err.to_string(), "tidy: 1 error(s), 1 warning(s)");
}

#[test]
fn the_real_workspace_can_be_checked() {
    // Other crates' verdicts depend on their authors' work in progress; xtask's own files
    // must pass.
    let metadata = Metadata::load().unwrap();
    let findings = check_workspace(&metadata).unwrap();
    let xtask_errors: Vec<String> = findings
        .iter()
        .filter(|f| f.is_error() && f.path.starts_with("xtask/"))
        .map(ToString::to_string)
        .collect();
    assert_eq!(xtask_errors, Vec::<String>::new());
}
