//! `agentctx report` on a generated history of 1,000 sessions and about 1 GB
//! (docs/design/report.md, "Scale"): the wall time of the whole command, and its peak memory
//! as the command itself reports it (Linux's `VmHWM`).
//!
//! The history is made of the bundled samples (this crate's `examples/sessions/`) with fresh
//! ids: 900 Codex sessions, each the Codex sample's header and the rest of its lines repeated
//! six times (about 1 MB, 57 × 6 requests), in ten projects, and 100 copies of the Claude Code
//! transcript in five projects. It is written to a temporary folder, never committed. The
//! report runs with its defaults (reminders replayed, request bodies within the default budget)
//! and its release build, as a user runs it.
//!
//! Records `report_scale_seconds` for `cargo xtask bench`. Run alone with
//! `cargo bench -p agentctx-cli --bench report_scale`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    reason = "benchmark setup fails loudly and prints its figures"
)]

use std::path::Path;
use std::time::Instant;

const CODEX_SAMPLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/sessions/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl"
));
const CODEX_ID: &str = "019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8";
const CODEX_PROJECT: &str = "/home/mira/src/tally";
const CLAUDE_SAMPLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/sessions/claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"
));
const CLAUDE_ID: &str = "3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865";
const CLAUDE_PROJECT: &str = "/home/mira/src/feedkit";

const CODEX_SESSIONS: usize = 900;
const CODEX_COPIES: usize = 6;
const CLAUDE_SESSIONS: usize = 100;

/// Writes the history under `root`; returns its size in bytes.
fn generate(root: &Path) -> u64 {
    let (header, rest) = CODEX_SAMPLE.split_once('\n').unwrap();
    let mut total = 0u64;
    for session in 0..CODEX_SESSIONS {
        let id = format!("019a9d4e-6b2f-7c10-8e3a-{session:012x}");
        let project = format!("{CODEX_PROJECT}{}", session % 10);
        let mut text = String::with_capacity(header.len() + rest.len() * CODEX_COPIES + 1);
        text.push_str(
            &header
                .replace(CODEX_ID, &id)
                .replace(CODEX_PROJECT, &project),
        );
        text.push('\n');
        let body = rest.replace(CODEX_PROJECT, &project);
        for _ in 0..CODEX_COPIES {
            text.push_str(&body);
        }
        let day = 1 + session % 28;
        let dir = root.join(format!("codex/2025/11/{day:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("rollout-2025-11-{day:02}T09-31-07-{id}.jsonl")),
            &text,
        )
        .unwrap();
        total += text.len() as u64;
    }
    for session in 0..CLAUDE_SESSIONS {
        let id = format!("3e9b7c41-58d2-4a0f-b6e3-{session:012x}");
        let project = format!("{CLAUDE_PROJECT}{}", session % 5);
        let text = CLAUDE_SAMPLE
            .replace(CLAUDE_ID, &id)
            .replace(CLAUDE_PROJECT, &project);
        let dir = root.join(format!("claude/-home-mira-src-feedkit{}", session % 5));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{id}.jsonl")), &text).unwrap();
        total += text.len() as u64;
    }
    total
}

/// Writes a figure for `cargo xtask bench` when it asked for them.
fn record(key: &str, value: f64) {
    if let Some(dir) = std::env::var_os("AGENTCTX_BENCH_FIGURES") {
        std::fs::write(Path::new(&dir).join(key), value.to_string()).unwrap();
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history");
    let bytes = generate(&history);
    let out = dir.path().join("report");
    let started = Instant::now();
    let output = assert_cmd::Command::new(env!("CARGO_BIN_EXE_agentctx"))
        .env_remove("AGENTCTX_HOME")
        .env_remove("RUST_LOG")
        .arg("report")
        .arg(&history)
        .arg("-o")
        .arg(&out)
        .arg("--home")
        .arg(dir.path().join("home"))
        .output()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let rows = index.matches(r#"<a href="sessions/"#).count();
    assert_eq!(rows, CODEX_SESSIONS + CLAUDE_SESSIONS, "{stderr}");
    let peak_mb = stderr
        .split_once("peak memory ")
        .and_then(|(_, rest)| rest.split_once(" MB"))
        .and_then(|(mb, _)| mb.parse::<f64>().ok());
    record("report_scale_seconds", seconds);
    if let Some(peak_mb) = peak_mb {
        record("report_scale_peak_mb", peak_mb);
    }
    println!(
        "report_scale: {rows} sessions, {:.0} MB of history, {seconds:.1} s, peak memory {} ({})",
        bytes as f64 / 1e6,
        peak_mb.map_or_else(|| "unknown".to_string(), |mb| format!("{mb:.0} MB")),
        stderr.trim()
    );
}
