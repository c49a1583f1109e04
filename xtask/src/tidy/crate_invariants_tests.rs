use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::check_dependencies;
use super::check_protocol_source;
use crate::workspace::DepKind;
use crate::workspace::Dependency;
use crate::workspace::Package;

fn package(name: &str, deps: &[(&str, DepKind)]) -> Package {
    Package {
        name: name.to_owned(),
        manifest_path: PathBuf::from("/ws/crates/x/Cargo.toml"),
        targets: Vec::new(),
        dependencies: deps
            .iter()
            .map(|(dep, kind)| Dependency {
                name: (*dep).to_owned(),
                kind: Some(*kind),
                path: None,
            })
            .collect(),
        metadata: serde_json::Value::Null,
    }
}

fn messages(package: &Package) -> Vec<String> {
    check_dependencies("crates/x/Cargo.toml", package)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn owners_may_use_their_dependencies() {
    let memory = package("agentctx-memory", &[("sqlx", DepKind::Normal)]);
    assert_eq!(messages(&memory), Vec::<String>::new());
    let model = package(
        "agentctx-model",
        &[
            ("reqwest", DepKind::Normal),
            ("eventsource-stream", DepKind::Normal),
        ],
    );
    assert_eq!(messages(&model), Vec::<String>::new());
}

#[test]
fn other_crates_may_not_outside_tests() {
    let core = package(
        "agentctx-core",
        &[
            ("reqwest", DepKind::Normal),
            ("sqlx", DepKind::Build),
            ("reqwest", DepKind::Dev),
        ],
    );
    assert_eq!(
        messages(&core),
        vec![
            "error[invariant] crates/x/Cargo.toml: `agentctx-core` depends on `reqwest` in [dependencies]; only model speaks HTTP (agentctx-model)",
            "error[invariant] crates/x/Cargo.toml: `agentctx-core` depends on `sqlx` in [build-dependencies]; only memory opens SQLite (agentctx-memory)",
        ]
    );
}

#[test]
fn protocol_has_no_tokio() {
    let protocol = package(
        "agentctx-protocol",
        &[("tokio", DepKind::Normal), ("serde", DepKind::Normal)],
    );
    assert_eq!(
        messages(&protocol),
        vec![
            "error[invariant] crates/x/Cargo.toml: `agentctx-protocol` depends on `tokio` in [dependencies]; protocol does no I/O and has no async runtime"
        ]
    );
    let context = package("agentctx-context", &[("tokio", DepKind::Normal)]);
    assert_eq!(messages(&context), Vec::<String>::new());
}

#[test]
fn protocol_source_naming_io_modules_fails() {
    let text = "//! Wire types; no std::fs here.\nuse serde::Serialize;\nuse std::fs::File;\nfn f() { std::net::TcpStream::connect(\"x\"); }\n";
    let found: Vec<String> = check_protocol_source("crates/protocol/src/a.rs", text)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        vec![
            "error[invariant] crates/protocol/src/a.rs:3: protocol does no I/O, but this line names `std::fs`",
            "error[invariant] crates/protocol/src/a.rs:4: protocol does no I/O, but this line names `std::net`",
        ]
    );
}
