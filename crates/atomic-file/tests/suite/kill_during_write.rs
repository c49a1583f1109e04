//! A writer killed (SIGKILL) at a random instant of `write_atomically` (temp file, write, fsync,
//! rename, folder fsync) leaves the target as some whole version, never a torn one, and the
//! temp files it leaves behind are found and removed by `remove_stale_temp_files`. Every crate
//! that writes its files through this crate inherits the property.

use std::io::Read;
use std::time::Duration;

use agentctx_atomic_file::TEMP_FILE_PREFIX;
use agentctx_atomic_file::remove_stale_temp_files;
use agentctx_atomic_file::write_atomically;
use agentctx_test_support::child_process::Lcg;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::spawn_test;
use agentctx_test_support::child_process::wait_for_line;

const KILLS: usize = 50;
const CHILD: &str = "suite::kill_during_write::atomic_writer_child";
const PARENT: &str = "a_kill_at_any_instant_of_a_write_leaves_a_whole_version";

/// Version `n` of the file: a header, a body of about 1 MiB (many write calls), a footer.
fn version(n: u64) -> String {
    format!(
        "version {n}\n{}\nend of version {n}\n",
        format!("line of version {n}\n").repeat(50_000)
    )
}

/// The version a whole file carries; panics on a torn one.
fn version_of(text: &str) -> u64 {
    let header = text.lines().next().unwrap();
    let n: u64 = header.strip_prefix("version ").unwrap().parse().unwrap();
    assert!(text == version(n), "the file is torn (version {n} header)");
    n
}

/// The child's work: rewrite the file with versions start, start + 1, ... until killed.
#[test]
#[ignore = "child process of a_kill_at_any_instant_of_a_write_leaves_a_whole_version"]
fn atomic_writer_child() {
    let path = child_env("AGENTCTX_TEST_PATH", PARENT);
    let start: u64 = child_env("AGENTCTX_TEST_START", PARENT).parse().unwrap();
    println!("ready-to-be-killed");
    for n in start.. {
        write_atomically(path.as_ref(), version(n).as_bytes()).unwrap();
    }
}

#[test]
fn a_kill_at_any_instant_of_a_write_leaves_a_whole_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/file.md");
    let mut delays = Lcg::new(7);
    let mut next = 1;
    let mut left_behind = 0;
    for _ in 0..KILLS {
        let mut child = spawn_test(
            CHILD,
            &[
                ("AGENTCTX_TEST_PATH", path.display().to_string()),
                ("AGENTCTX_TEST_START", next.to_string()),
            ],
        );
        let _rest = wait_for_line(child.stdout.take().unwrap(), "ready-to-be-killed");
        std::thread::sleep(Duration::from_micros(delays.below(30_000)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(!status.success(), "the child never finishes: {stderr}");
        if let Ok(text) = std::fs::read_to_string(&path) {
            next = version_of(&text) + 1;
        }
        left_behind += std::fs::read_dir(path.parent().unwrap())
            .map(|entries| {
                entries
                    .filter(|entry| {
                        entry
                            .as_ref()
                            .unwrap()
                            .file_name()
                            .to_string_lossy()
                            .starts_with(TEMP_FILE_PREFIX)
                    })
                    .count()
            })
            .unwrap_or(0);
        left_behind -= remove_stale_temp_files(dir.path()).min(left_behind);
    }
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["file.md".to_string()],
        "only the target is left"
    );
    println!(
        "atomic-file: {KILLS} kills, last whole version {}, no torn file",
        next - 1
    );
}
