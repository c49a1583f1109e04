use std::time::Duration;

use pretty_assertions::assert_eq;

use super::Outcome;
use super::Step;
use super::fmt_cmd;
use super::format_duration;
use super::lint_cmd;
use super::summary;
use super::test_cmd;

#[test]
fn steps_run_in_the_documented_order() {
    let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        vec![
            "fmt --check",
            "clippy",
            "tidy",
            "tests",
            "doctests",
            "docs",
            "cargo deny"
        ]
    );
}

#[test]
fn commands_are_the_documented_ones() {
    assert_eq!(
        fmt_cmd(false).display(),
        "cargo fmt --all -- --config imports_granularity=Item"
    );
    assert_eq!(
        fmt_cmd(true).display(),
        "cargo fmt --all -- --config imports_granularity=Item --check"
    );
    assert_eq!(
        lint_cmd().display(),
        "cargo clippy --workspace --all-targets --all-features -- -D warnings"
    );
    assert_eq!(
        test_cmd(true).display(),
        "cargo nextest run --workspace --all-features --no-fail-fast"
    );
    assert_eq!(
        test_cmd(false).display(),
        "cargo test --workspace --all-features --no-fail-fast"
    );
}

#[test]
fn durations_read_naturally() {
    assert_eq!(format_duration(Duration::from_millis(420)), "0.4s");
    assert_eq!(format_duration(Duration::from_millis(59_940)), "59.9s");
    assert_eq!(format_duration(Duration::from_secs(185)), "3m 05s");
}

#[test]
fn summary_shows_each_step_and_the_verdict() {
    let results = vec![
        (Step::Fmt, Outcome::Passed, Duration::from_millis(1200)),
        (Step::Clippy, Outcome::Failed, Duration::from_secs(75)),
        (Step::Tidy, Outcome::NotRun, Duration::ZERO),
        (
            Step::Deny,
            Outcome::Skipped("not installed".to_owned()),
            Duration::ZERO,
        ),
    ];
    assert_eq!(
        summary(&results, Duration::from_secs(77)),
        "ci summary:\n  \
         ok       fmt --check      1.2s\n  \
         FAILED   clippy         1m 15s\n  \
         not run  tidy                -\n  \
         skipped  cargo deny       0.0s  (not installed)\n\
         ci failed in 1m 17s"
    );
}

#[test]
fn doctests_need_a_library_target() {
    let metadata = |kind: &str| {
        crate::workspace::Metadata::parse(&format!(
            r#"{{"workspace_root": "/ws", "packages": [{{"name": "a", "manifest_path": "/ws/a/Cargo.toml",
                "targets": [{{"kind": ["{kind}"], "src_path": "/ws/a/src/x.rs"}}], "dependencies": []}}]}}"#
        ))
        .unwrap()
    };
    assert!(super::has_library(&metadata("lib")));
    assert!(!super::has_library(&metadata("bin")));
}
