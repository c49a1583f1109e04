//! `cargo xtask snapshots`: insta snapshots through `cargo insta` (installed by
//! `cargo xtask tools`).
//!
//! - `cargo xtask snapshots [ARGS]` runs the tests with `cargo insta test`, which records
//!   every changed snapshot as a pending `.snap.new` (inline ones too) and lists them;
//! - `--review` walks through the pending ones interactively (`cargo insta review`);
//! - `--accept` / `--reject` take or drop all of them (`cargo insta accept` / `reject`).

use anyhow::Result;
use anyhow::bail;

use crate::ci::has_cargo_tool;
use crate::process::Cmd;
use crate::workspace;

/// What to do with the snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Test,
    Review,
    Accept,
    Reject,
}

impl Action {
    pub(crate) fn from_flags(review: bool, accept: bool, reject: bool) -> Self {
        if review {
            Self::Review
        } else if accept {
            Self::Accept
        } else if reject {
            Self::Reject
        } else {
            Self::Test
        }
    }
}

/// The `cargo insta` command for `action`; `args` go to `cargo insta test` (e.g.
/// `-p agentctx-reminders`), which runs the whole workspace unless a package is named.
pub(crate) fn command(action: Action, args: &[String]) -> Cmd {
    match action {
        Action::Test => Cmd::cargo(["insta", "test", "--all-features"])
            .args(workspace::scope_args(args))
            .args(args.iter().cloned()),
        Action::Review => Cmd::cargo(["insta", "review"]),
        Action::Accept => Cmd::cargo(["insta", "accept"]),
        Action::Reject => Cmd::cargo(["insta", "reject"]),
    }
}

pub(crate) fn run(action: Action, args: &[String]) -> Result<()> {
    if action != Action::Test && !args.is_empty() {
        bail!(
            "extra arguments go to `cargo insta test` only; drop them with --review, --accept or --reject"
        );
    }
    if !has_cargo_tool("insta") {
        bail!("cargo-insta is not installed; `cargo xtask tools` installs it");
    }
    command(action, args).run()
}

#[cfg(test)]
#[path = "snapshots_tests.rs"]
mod tests;
