//! Child processes for the multi-process tests: the test binary runs itself again on one
//! `#[ignore]`d test that does the child's work, configured through the child's environment
//! (the parent's own environment is never changed).

use std::path::Path;
use std::process::Child;
use std::process::Stdio;

/// Starts `test` (its full path, e.g. `suite::history_concurrency::history_writer_child`) of
/// this test binary in a new process with `envs` added to its environment.
#[expect(
    clippy::disallowed_methods,
    reason = "the one place these tests start a process: the test binary itself"
)]
pub(crate) fn spawn_test(test: &str, envs: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = std::process::Command::new(exe);
    command
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    command.spawn().expect("start the child test process")
}

/// The value of `key` in this (child) process's environment; the child test fails with a
/// clear message when run by hand without its parent.
pub(crate) fn child_env(key: &str, parent: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| panic!("{key} is unset: this test is run by {parent}"))
}

/// Peak resident set size of a finished or running child, in KiB, from `/proc/<pid>/status`
/// (`VmHWM`); `None` off Linux.
#[allow(dead_code, reason = "used by the tests that measure memory")]
pub(crate) fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("status")).ok()?;
    status.lines().find_map(|line| {
        line.strip_prefix("VmHWM:")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
    })
}
