//! Check (i): the Architecture Invariants of `docs/architecture.md` that a program can see.
//!
//! - Dependency ownership: only `agentctx-memory` depends on `sqlx` (opens SQLite), only
//!   `agentctx-model` on `reqwest` / `eventsource-stream` (speaks HTTP); `agentctx-protocol`
//!   has no `tokio`. Dev-dependencies are free: tests may serve or call HTTP.
//! - `agentctx-protocol` does no I/O: its library code names no `std::fs`, `std::net`,
//!   `std::process` or `tokio`.

use crate::finding::Finding;
use crate::workspace::DepKind;
use crate::workspace::Package;

/// A registry dependency and the only workspace packages that may use it outside tests.
/// An empty owner list means no package may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owned {
    pub(crate) dependency: &'static str,
    pub(crate) owners: &'static [&'static str],
    pub(crate) why: &'static str,
}

pub(crate) const OWNED_DEPENDENCIES: &[Owned] = &[
    Owned {
        dependency: "sqlx",
        owners: &["agentctx-memory"],
        why: "only memory opens SQLite",
    },
    Owned {
        dependency: "libsqlite3-sys",
        owners: &["agentctx-memory"],
        why: "only memory opens SQLite",
    },
    Owned {
        dependency: "reqwest",
        owners: &["agentctx-model"],
        why: "only model speaks HTTP",
    },
    Owned {
        dependency: "eventsource-stream",
        owners: &["agentctx-model"],
        why: "only model speaks HTTP",
    },
];

/// Registry dependencies a package may not have outside tests, with the reason.
pub(crate) const FORBIDDEN_DEPENDENCIES: &[(&str, &str, &str)] = &[(
    "agentctx-protocol",
    "tokio",
    "protocol does no I/O and has no async runtime",
)];

/// Paths `agentctx-protocol` library code may not name.
pub(crate) const PROTOCOL_IO_PATHS: &[&str] = &["std::fs", "std::net", "std::process", "tokio::"];

const CHECK: &str = "invariant";

/// `manifest` is the package's manifest display path.
pub(crate) fn check_dependencies(manifest: &str, package: &Package) -> Vec<Finding> {
    let mut findings = Vec::new();
    for dep in &package.dependencies {
        if dep.kind() == DepKind::Dev {
            continue;
        }
        for owned in OWNED_DEPENDENCIES {
            if dep.name == owned.dependency && !owned.owners.contains(&package.name.as_str()) {
                findings.push(Finding::error(
                    CHECK,
                    manifest,
                    format!(
                        "`{}` depends on `{}` in {}; {} ({})",
                        package.name,
                        dep.name,
                        dep.kind().section(),
                        owned.why,
                        owned.owners.join(", ")
                    ),
                ));
            }
        }
        for (owner, forbidden, why) in FORBIDDEN_DEPENDENCIES {
            if package.name == *owner && dep.name == *forbidden {
                findings.push(Finding::error(
                    CHECK,
                    manifest,
                    format!(
                        "`{}` depends on `{}` in {}; {why}",
                        package.name,
                        dep.name,
                        dep.kind().section()
                    ),
                ));
            }
        }
    }
    findings
}

/// Library code of `agentctx-protocol` (not tests) naming an I/O module.
pub(crate) fn check_protocol_source(path: &str, text: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.trim();
        if code.starts_with("//") {
            continue;
        }
        if let Some(io) = PROTOCOL_IO_PATHS.iter().find(|io| code.contains(*io)) {
            findings.push(
                Finding::error(
                    CHECK,
                    path,
                    format!("protocol does no I/O, but this line names `{io}`"),
                )
                .at_line(index + 1),
            );
        }
    }
    findings
}

#[cfg(test)]
#[path = "crate_invariants_tests.rs"]
mod tests;
