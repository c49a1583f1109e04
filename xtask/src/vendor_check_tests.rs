use std::fs;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::CrateResult;
use super::Selection;
use super::TestCounts;
use super::closure;
use super::copy_dir;
use super::count_tests;
use super::inherited_dependencies;
use super::placements;
use super::select;
use super::summary;
use super::synthesize_manifest;
use crate::workspace::DepKind;
use crate::workspace::Dependency;
use crate::workspace::Package;

const ROOT: &str = "/ws";

fn package(dir: &str, name: &str, floor: Option<u8>, deps: &[(&str, DepKind, bool)]) -> Package {
    Package {
        name: name.to_owned(),
        manifest_path: PathBuf::from(format!("{ROOT}/{dir}/Cargo.toml")),
        targets: Vec::new(),
        dependencies: deps
            .iter()
            .map(|(dep, kind, is_path)| Dependency {
                name: (*dep).to_owned(),
                kind: Some(*kind),
                path: is_path.then(|| PathBuf::from(format!("{ROOT}/x/{dep}"))),
            })
            .collect(),
        metadata: floor.map_or(
            serde_json::Value::Null,
            |floor| serde_json::json!({ "agentctx": { "floor": floor } }),
        ),
    }
}

fn workspace() -> Vec<Package> {
    vec![
        package(
            "crates/protocol",
            "agentctx-protocol",
            Some(0),
            &[
                ("serde", DepKind::Normal, false),
                ("agentctx_test_support", DepKind::Dev, true),
            ],
        ),
        package(
            "crates/protocol/tests/common",
            "agentctx_test_support",
            None,
            &[],
        ),
        package(
            "crates/context",
            "agentctx-context",
            Some(1),
            &[("agentctx-protocol", DepKind::Normal, true)],
        ),
        package(
            "crates/model",
            "agentctx-model",
            Some(1),
            &[("agentctx-protocol", DepKind::Normal, true)],
        ),
        package(
            "crates/reminders",
            "agentctx-reminders",
            Some(2),
            &[
                ("agentctx-context", DepKind::Normal, true),
                ("agentctx-model", DepKind::Dev, true),
            ],
        ),
        package("crates/cli", "agentctx-cli", Some(5), &[]),
        package("xtask", "xtask", None, &[]),
    ]
}

fn names(packages: &[&Package]) -> Vec<String> {
    packages.iter().map(|p| p.name.clone()).collect()
}

#[test]
fn the_closure_follows_path_dependencies_of_every_kind_transitively() {
    let packages = workspace();
    assert_eq!(
        names(&closure(&packages, "agentctx-reminders")),
        vec![
            "agentctx-protocol",
            "agentctx_test_support",
            "agentctx-context",
            "agentctx-model",
            "agentctx-reminders",
        ]
    );
    assert_eq!(
        names(&closure(&packages, "agentctx-cli")),
        vec!["agentctx-cli"]
    );
}

#[test]
fn selection_orders_by_floor_and_filters_by_name_dir_and_floor() {
    let packages = workspace();
    let root = Path::new(ROOT);
    let all = select(root, &packages, &Selection::default()).unwrap();
    assert_eq!(
        names(&all),
        vec![
            "agentctx-protocol",
            "agentctx-context",
            "agentctx-model",
            "agentctx-reminders",
            "agentctx-cli",
        ]
    );
    let low = Selection {
        crates: Vec::new(),
        max_floor: Some(1),
    };
    assert_eq!(
        names(&select(root, &packages, &low).unwrap()),
        vec!["agentctx-protocol", "agentctx-context", "agentctx-model"]
    );
    let some = Selection {
        crates: vec!["reminders".to_owned(), "agentctx-protocol".to_owned()],
        max_floor: None,
    };
    assert_eq!(
        names(&select(root, &packages, &some).unwrap()),
        vec!["agentctx-protocol", "agentctx-reminders"]
    );
    let unknown = Selection {
        crates: vec!["xtask".to_owned()],
        max_floor: None,
    };
    assert_eq!(
        select(root, &packages, &unknown).unwrap_err().to_string(),
        "`xtask` is not a crate under crates/"
    );
}

#[test]
fn inherited_dependencies_come_from_every_section() {
    let manifest: toml::Table = toml::from_str(
        r#"
        [dependencies]
        serde = { workspace = true }
        local = { path = "../local" }
        [dev-dependencies]
        insta = { workspace = true, features = ["json"] }
        [build-dependencies]
        cc = "1"
        [target.'cfg(unix)'.dependencies]
        libc = { workspace = true }
        "#,
    )
    .unwrap();
    let found: Vec<String> = inherited_dependencies(&manifest).into_iter().collect();
    assert_eq!(found, vec!["insta", "libc", "serde"]);
}

#[test]
fn the_synthesized_manifest_holds_only_what_the_members_inherit() {
    let root: toml::Table = toml::from_str(
        r#"
        [workspace]
        resolver = "2"
        members = ["crates/*", "xtask"]
        [workspace.package]
        edition = "2024"
        [workspace.dependencies]
        serde = { version = "1", features = ["derive"] }
        agentctx-protocol = { path = "crates/protocol", version = "0.1.0" }
        reqwest = "0.12"
        [workspace.lints.clippy]
        unwrap_used = "deny"
        [profile.dev]
        debug = "line-tables-only"
        "#,
    )
    .unwrap();
    let members = placements(&[
        ("crates/protocol".to_owned(), "agentctx-protocol".to_owned()),
        ("crates/context".to_owned(), "agentctx-context".to_owned()),
    ]);
    let manifests = vec![
        "[dependencies]\nserde = { workspace = true }\n".to_owned(),
        "[dependencies]\nagentctx-protocol = { workspace = true }\nserde = { workspace = true }\n"
            .to_owned(),
    ];
    let text = synthesize_manifest(&root, &members, &manifests).unwrap();
    let written: toml::Table = toml::from_str(&text).unwrap();
    let expected: toml::Table = toml::from_str(
        r#"
        [workspace]
        resolver = "2"
        members = ["agentctx-context", "agentctx-protocol"]
        [workspace.package]
        edition = "2024"
        [workspace.dependencies]
        serde = { version = "1", features = ["derive"] }
        agentctx-protocol = { path = "agentctx-protocol", version = "0.1.0" }
        [workspace.lints.clippy]
        unwrap_used = "deny"
        [profile.dev]
        debug = "line-tables-only"
        "#,
    )
    .unwrap();
    assert_eq!(written, expected);

    let missing = vec!["[dependencies]\nregex = { workspace = true }\n".to_owned()];
    assert_eq!(
        synthesize_manifest(&root, &members, &missing)
            .unwrap_err()
            .to_string(),
        "`regex` is inherited but not in [workspace.dependencies]"
    );
    let unvendored = placements(&[("crates/context".to_owned(), "agentctx-context".to_owned())]);
    assert_eq!(
        synthesize_manifest(&root, &unvendored, &manifests[1..])
            .unwrap_err()
            .to_string(),
        "`agentctx-protocol` is a path dependency on `crates/protocol`, which is not vendored"
    );
}

#[test]
fn crates_are_placed_at_the_top_by_name_and_nested_packages_stay_inside() {
    let placed = |members: &[(&str, &str)]| -> Vec<(String, String, bool)> {
        let members: Vec<(String, String)> = members
            .iter()
            .map(|(d, n)| ((*d).to_owned(), (*n).to_owned()))
            .collect();
        placements(&members)
            .into_iter()
            .map(|p| (p.from, p.to, p.copied))
            .collect()
    };
    assert_eq!(
        placed(&[
            ("crates/protocol/tests/common", "agentctx_test_support"),
            ("crates/protocol", "agentctx-protocol"),
            ("crates/context", "agentctx-context"),
        ]),
        vec![
            (
                "crates/context".to_owned(),
                "agentctx-context".to_owned(),
                true
            ),
            (
                "crates/protocol".to_owned(),
                "agentctx-protocol".to_owned(),
                true
            ),
            (
                "crates/protocol/tests/common".to_owned(),
                "agentctx-protocol/tests/common".to_owned(),
                false
            ),
        ]
    );
    // Without its parent, a nested package is placed at the top like any other.
    assert_eq!(
        placed(&[("crates/protocol/tests/common", "agentctx_test_support")]),
        vec![(
            "crates/protocol/tests/common".to_owned(),
            "agentctx_test_support".to_owned(),
            true
        )]
    );
}

fn list(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            list(&entry.path(), &format!("{name}/"), out);
        } else {
            out.push(name);
        }
    }
}

#[test]
fn copying_leaves_out_target_and_git_but_keeps_hidden_fixtures() {
    let from = tempfile::tempdir().unwrap();
    let to = tempfile::tempdir().unwrap();
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "tests/fixtures/a.jsonl",
        "target/debug/x",
        ".git/HEAD",
        "tests/fixtures/project/.claude/skills/a/SKILL.md",
    ] {
        let path = from.path().join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, file).unwrap();
    }
    copy_dir(from.path(), &to.path().join("crates/a")).unwrap();
    let mut copied = Vec::new();
    list(&to.path().join("crates/a"), "", &mut copied);
    copied.sort();
    assert_eq!(
        copied,
        vec![
            "Cargo.toml",
            "src/lib.rs",
            "tests/fixtures/a.jsonl",
            "tests/fixtures/project/.claude/skills/a/SKILL.md",
        ]
    );
    assert_eq!(
        fs::read_to_string(to.path().join("crates/a/src/lib.rs")).unwrap(),
        "src/lib.rs"
    );
}

#[test]
fn only_the_checked_crate_is_tested_offline() {
    assert_eq!(
        super::test_cmd("agentctx-context").display(),
        "cargo test --offline -p agentctx-context --all-features --no-fail-fast"
    );
}

#[test]
fn test_counts_add_up_every_test_binary() {
    let stdout = "running 3 tests\n\
        test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\
        \n\
        test result: FAILED. 40 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.20s\n\
        Doc-tests agentctx_protocol\n\
        test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s\n";
    assert_eq!(
        count_tests(stdout),
        TestCounts {
            passed: 48,
            failed: 2,
            ignored: 1
        }
    );
    assert_eq!(
        count_tests("error: could not compile"),
        TestCounts::default()
    );
}

#[test]
fn the_summary_names_each_crate_its_tests_and_time() {
    let results = vec![
        CrateResult {
            name: "agentctx-protocol".to_owned(),
            floor: Some(0),
            vendored: 2,
            passed: true,
            counts: TestCounts {
                passed: 120,
                failed: 0,
                ignored: 0,
            },
            elapsed: Duration::from_secs(75),
        },
        CrateResult {
            name: "agentctx-cli".to_owned(),
            floor: Some(5),
            vendored: 7,
            passed: false,
            counts: TestCounts {
                passed: 30,
                failed: 1,
                ignored: 2,
            },
            elapsed: Duration::from_millis(9_500),
        },
    ];
    assert_eq!(
        summary(&results, Duration::from_secs(90)),
        "vendor-check summary:\n  \
         ok     agentctx-protocol    floor 0  2 crate(s)   120 tests passed    1m 15s\n  \
         FAILED agentctx-cli         floor 5  7 crate(s)    30 tests passed, 1 failed, 2 ignored      9.5s\n\
         vendor-check: 1 of 2 crate(s) passed in 1m 30s"
    );
}
