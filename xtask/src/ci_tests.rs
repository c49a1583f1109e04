use std::time::Duration;

use pretty_assertions::assert_eq;

use super::Features;
use super::Outcome;
use super::Step;
use super::ToolEnv;
use super::fmt_cmd;
use super::format_duration;
use super::lint_cmd;
use super::release_replay_cmd;
use super::summary;
use super::test_cmd;
use crate::tools::CiTool;

#[test]
fn steps_run_in_the_documented_order() {
    let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        vec![
            "tools",
            "fmt --check",
            "clippy",
            "tidy",
            "cargo deny",
            "interop",
            "tests (default features)",
            "tests (all features)",
            "doctests",
            "docs",
            "release replay",
            "vendor-check",
        ]
    );
}

#[test]
fn commands_are_the_documented_ones() {
    assert_eq!(
        fmt_cmd(false, true).display(),
        "cargo +nightly fmt --all -- --config imports_granularity=Item"
    );
    assert_eq!(
        fmt_cmd(true, true).display(),
        "cargo +nightly fmt --all -- --config imports_granularity=Item --check"
    );
    assert_eq!(fmt_cmd(true, false).display(), "cargo fmt --all -- --check");
    assert_eq!(
        lint_cmd().display(),
        "cargo clippy --workspace --all-targets --all-features -- -D warnings"
    );
    assert_eq!(
        test_cmd(true, Features::Default).display(),
        "cargo nextest run --workspace --exclude agentctx-interop --no-fail-fast"
    );
    assert_eq!(
        test_cmd(true, Features::All).display(),
        "cargo nextest run --workspace --all-features --exclude agentctx-interop --no-fail-fast"
    );
    assert_eq!(
        test_cmd(false, Features::All).display(),
        "cargo test --workspace --all-features --exclude agentctx-interop --no-fail-fast"
    );
    assert_eq!(
        crate::interop::test_cmd(true, "/w/target/release/agentctx", "/w/target/tools/python")
            .display(),
        "AGENTCTX_BIN=/w/target/release/agentctx AGENTCTX_INTEROP_TOOLS=/w/target/tools/python AGENTCTX_REQUIRE_INTEROP=1 cargo nextest run -p agentctx-interop --no-fail-fast --test-threads 1"
    );
    assert_eq!(
        release_replay_cmd().display(),
        "cargo run --release -p agentctx-cli -- replay examples/sessions"
    );
}

#[test]
fn the_release_replay_runs_the_readmes_first_command() {
    let readme = std::fs::read_to_string(crate::workspace::root().join("README.md")).unwrap();
    let first_command = readme
        .lines()
        .find(|line| line.starts_with("cargo "))
        .unwrap();
    assert_eq!(first_command, release_replay_cmd().display());
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
            Step::Doctests,
            Outcome::Skipped("no library crate".to_owned()),
            Duration::ZERO,
        ),
        (
            Step::Fmt,
            Outcome::Degraded("no nightly".to_owned()),
            Duration::from_secs(2),
        ),
    ];
    assert_eq!(
        summary(&results, Duration::from_secs(77)),
        "ci summary:\n  \
         ok       fmt --check                  1.2s\n  \
         FAILED   clippy                     1m 15s\n  \
         not run  tidy                            -\n  \
         skipped  doctests                     0.0s  (no library crate)\n  \
         PARTIAL  fmt --check                  2.0s  (no nightly)\n\
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

#[test]
fn the_tests_are_required_to_use_each_tool_the_machine_has() {
    let bin = crate::workspace::root()
        .join("target/tools/npm/node_modules/.bin/mcp-server-everything")
        .to_string_lossy()
        .into_owned();
    let pyright = crate::workspace::root()
        .join("target/tools/npm/node_modules/.bin/pyright-langserver")
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        ToolEnv::for_tools(&CiTool::ALL).vars,
        vec![
            ("AGENTCTX_MCP_EVERYTHING_BIN", bin.clone()),
            ("AGENTCTX_REQUIRE_MCP_INTEROP", "1".to_owned()),
            ("AGENTCTX_PYRIGHT_BIN", pyright),
            ("AGENTCTX_REQUIRE_LSP_INTEROP", "1".to_owned()),
            ("AGENTCTX_REQUIRE_BROWSER", "1".to_owned()),
            ("AGENTCTX_REQUIRE_INTEROP", "1".to_owned()),
        ]
    );
    // A tool the machine lacks (`--no-install`) requires nothing; the cargo tools never do.
    assert_eq!(
        ToolEnv::for_tools(&[CiTool::CargoDeny, CiTool::CargoNextest, CiTool::Browser]).vars,
        vec![("AGENTCTX_REQUIRE_BROWSER", "1".to_owned())]
    );
    assert_eq!(ToolEnv::for_tools(&[]), ToolEnv::default());
    let env = ToolEnv::for_tools(&[CiTool::EverythingServer, CiTool::InteropServers]);
    assert_eq!(
        env.apply(test_cmd(true, Features::Default)).display(),
        format!(
            "AGENTCTX_MCP_EVERYTHING_BIN={bin} AGENTCTX_REQUIRE_MCP_INTEROP=1 AGENTCTX_REQUIRE_INTEROP=1 \
             cargo nextest run --workspace --exclude agentctx-interop --no-fail-fast"
        )
    );
    assert!(env.is_set("AGENTCTX_REQUIRE_INTEROP"));
    assert!(!env.is_set("AGENTCTX_XTASK_TEST_UNSET"));
}

#[test]
fn the_tools_step_reruns_with_every_tool_ci_installs() {
    assert_eq!(
        Step::Tools.rerun(),
        format!(
            "rerun with `{}`",
            crate::tools::install_command(&CiTool::ALL)
        )
    );
}
