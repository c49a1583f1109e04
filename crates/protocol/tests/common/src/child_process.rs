//! Child processes for the multi-process tests (concurrency, kills, peak memory): the test
//! binary runs itself again on one `#[ignore]`d test that does the child's work, configured
//! through the child's environment (the parent's own environment is never changed).

use std::io::BufRead;
use std::io::BufReader;
use std::process::Child;
use std::process::ChildStdout;
use std::process::Stdio;

/// Starts `test` (its full path in the test binary, e.g.
/// `suite::history_concurrency::history_writer_child`) of the running test binary in a new
/// process, with `envs` added to the child's environment. Its stdout and stderr are piped.
#[expect(
    clippy::disallowed_methods,
    reason = "the one place the tests start a process: the test binary itself, again"
)]
pub fn spawn_test(test: &str, envs: &[(&str, String)]) -> Child {
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

/// The value of `key` in this (child) process's environment. A child test run by hand,
/// without its parent, fails with a message naming the parent test.
pub fn child_env(key: &str, parent: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| panic!("{key} is unset: this test is run by {parent}"))
}

/// Reads the child's stdout until a line ending with `marker` (the child prints it when its
/// work begins; libtest's `test name ... ` may precede it on the same line), and returns the
/// rest of the stream. Panics when the child ends first.
pub fn wait_for_line(stdout: ChildStdout, marker: &str) -> BufReader<ChildStdout> {
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .expect("read the child's stdout");
        assert!(read > 0, "the child ended before printing {marker:?}");
        if line.trim_end().ends_with(marker) {
            return reader;
        }
    }
}

/// Peak resident set size of process `pid` in KiB (`VmHWM` of `/proc/<pid>/status`); `None`
/// where there is no such file (not Linux, or the process was reaped).
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_hwm(&status)
}

/// The `VmHWM:` figure of a `/proc/<pid>/status` text, in KiB.
pub fn parse_vm_hwm(status: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        line.strip_prefix("VmHWM:")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
    })
}

/// A small deterministic generator (64-bit LCG) for kill delays and sizes, so that a failing
/// run can be replayed from its seed without a random-number dependency.
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next value in `0..bound` (`bound` at least 1).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound.max(1)
    }
}
