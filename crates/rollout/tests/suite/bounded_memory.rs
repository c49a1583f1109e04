//! A huge rollout is streamed, never loaded whole: a child process reads a generated file
//! through `RolloutReader` and reports its peak resident memory (`VmHWM`), which must stay far
//! below the file's size. A Claude Code transcript, whose branches are known only at its end,
//! is read in two passes for the same bound.

use std::io::BufWriter;
use std::io::Write;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::peak_rss_kib;
use agentctx_test_support::child_process::spawn_test;

const CHILD: &str = "suite::bounded_memory::rollout_reader_child";
const PARENT: &str = "a_huge_rollout_is_read_in_bounded_memory";
/// Peak memory allowed to the reading child, whatever the file's size.
const MAX_PEAK_RSS_MIB: u64 = 64;
/// Size of the generated Claude Code transcript: well above the bound, small enough for a
/// debug build to read twice in seconds (docs/reliability.md has the figures).
const CLAUDE_TRANSCRIPT_MIB: u64 = 384;

/// Writes a rollout of about `bytes` bytes: the fixture's header, then function-call outputs
/// of 4 KiB each, as a long tool-heavy session has.
fn write_rollout(path: &Path, bytes: u64) -> u64 {
    let header = include_str!("../fixtures/codex_current.jsonl")
        .lines()
        .next()
        .unwrap();
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    writeln!(out, "{header}").unwrap();
    let output = "o".repeat(4096);
    let mut written = header.len() as u64 + 1;
    let mut lines = 0u64;
    while written < bytes {
        let line = format!(
            r#"{{"timestamp":"2025-11-14T08:12:13.690Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_{lines}","output":"{output}"}}}}"#
        );
        writeln!(out, "{line}").unwrap();
        written += line.len() as u64 + 1;
        lines += 1;
    }
    out.flush().unwrap();
    lines
}

/// The child's work: stream the file, print the record count and its own peak memory.
#[test]
#[ignore = "child process of a_huge_rollout_is_read_in_bounded_memory"]
fn rollout_reader_child() {
    let path = child_env("AGENTCTX_TEST_ROLLOUT", PARENT);
    let mut records = 0u64;
    let mut skipped = 0u64;
    for event in RolloutReader::open(Path::new(&path)).unwrap() {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(_) => skipped += 1,
        }
    }
    let peak = peak_rss_kib(std::process::id()).unwrap();
    println!("records={records} skipped={skipped} peak_kib={peak}");
}

fn read_in_child(path: &Path) -> (u64, u64, u64) {
    let child = spawn_test(
        CHILD,
        &[("AGENTCTX_TEST_ROLLOUT", path.display().to_string())],
    );
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let field = |name: &str| report_field(&stdout, name);
    (field("records="), field("skipped="), field("peak_kib="))
}

/// A `name=value` figure of the child's report line (the one holding `records=`).
fn report_field(stdout: &str, name: &str) -> u64 {
    let report = stdout.lines().find_map(|line| {
        let at = line.find("records=")?;
        line.get(at..)
    });
    report
        .unwrap()
        .split_whitespace()
        .find_map(|pair| pair.strip_prefix(name))
        .unwrap()
        .parse()
        .unwrap()
}

/// Generates a rollout of `bytes` bytes, reads it in a child; returns the records read and the
/// child's peak RSS in KiB.
fn check(bytes: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-huge.jsonl");
    let lines = write_rollout(&path, bytes);
    let (records, skipped, peak_kib) = read_in_child(&path);
    assert_eq!(skipped, 0);
    // The header plus every generated line.
    assert_eq!(records, lines + 1);
    assert!(
        peak_kib >> 10 <= MAX_PEAK_RSS_MIB,
        "peak RSS {peak_kib} KiB reading a {bytes}-byte rollout"
    );
    (records, peak_kib)
}

/// One gigabyte, generated in a temporary folder: about 23 s on a loaded two-core machine
/// with a debug build, so it runs with the rest (docs/reliability.md has the figures).
#[test]
fn a_huge_rollout_is_read_in_bounded_memory() {
    let (records, peak_kib) = check(1 << 30);
    println!(
        "rollout: 1024 MiB, {records} records, child peak RSS {} MiB",
        peak_kib >> 10
    );
}

/// Writes a Claude Code transcript of about `bytes` bytes, shaped like a long real session:
/// turns of a prompt, a response split over two records (text, then a tool call), a progress
/// record, a 16 KiB tool result and a final answer; every tenth turn the user first starts a
/// branch (prompt, tool call, result) and rewinds it, every seventh a sub-agent writes its own
/// sidechain records. Returns the number of abandoned records it wrote.
fn write_claude_transcript(path: &Path, bytes: u64) -> u64 {
    const SESSION: &str = "7f3c9d2e-1b84-4a6f-9e0c-5d2a8b4f6c17";
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let output = "fn main() {\\n    println!(\\\"hello\\\");\\n}\\n".repeat(16 * 1024 / 44);
    let mut next = 0u64;
    let mut uuid = move || {
        next += 1;
        format!("00000000-0000-4000-8000-{next:012x}")
    };
    let mut written = 0u64;
    let mut abandoned = 0u64;
    let mut leaf: Option<String> = None;
    let line = |out: &mut BufWriter<std::fs::File>,
                kind: &str,
                uuid: &str,
                parent: Option<&str>,
                sidechain: bool,
                body: &str| {
        let parent = parent.map_or("null".to_string(), |parent| format!("\"{parent}\""));
        let text = format!(
            r#"{{"parentUuid":{parent},"isSidechain":{sidechain},"userType":"external","cwd":"/home/mira/src/tally","sessionId":"{SESSION}","version":"2.0.55","gitBranch":"main","type":"{kind}",{body},"uuid":"{uuid}","timestamp":"2025-12-02T10:04:51.227Z"}}"#
        );
        writeln!(out, "{text}").unwrap();
        text.len() as u64 + 1
    };
    let prompt = |n: u64| format!(r#""message":{{"role":"user","content":"prompt {n}"}}"#);
    let call = |id: &str, n: u64| {
        format!(
            r#""message":{{"model":"claude-sonnet-4-5","id":"{id}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{n}","name":"Read","input":{{"file_path":"/src/lib.rs"}}}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":4000,"output_tokens":50}}}}"#
        )
    };
    let text = |id: &str, words: &str| {
        format!(
            r#""message":{{"model":"claude-sonnet-4-5","id":"{id}","type":"message","role":"assistant","content":[{{"type":"text","text":"{words}"}}],"usage":{{"input_tokens":10,"cache_read_input_tokens":4000,"output_tokens":20}}}}"#
        )
    };
    let result = |n: u64| {
        format!(
            r#""message":{{"role":"user","content":[{{"tool_use_id":"toolu_{n}","type":"tool_result","content":"{output}"}}]}}"#
        )
    };
    let mut turn = 0u64;
    while written < bytes {
        turn += 1;
        if turn.is_multiple_of(10) {
            // A branch the user rewinds: its records are abandoned by the next prompt.
            let (p, a, r) = (uuid(), uuid(), uuid());
            written += line(&mut out, "user", &p, leaf.as_deref(), false, &prompt(turn));
            written += line(
                &mut out,
                "assistant",
                &a,
                Some(&p),
                false,
                &call(&format!("msg_x{turn}"), turn),
            );
            written += line(&mut out, "user", &r, Some(&a), false, &result(turn));
            abandoned += 3;
        }
        let (p, a1, a2, progress, r, done) = (uuid(), uuid(), uuid(), uuid(), uuid(), uuid());
        written += line(&mut out, "user", &p, leaf.as_deref(), false, &prompt(turn));
        let id = format!("msg_{turn}");
        written += line(
            &mut out,
            "assistant",
            &a1,
            Some(&p),
            false,
            &text(&id, "Let me read it."),
        );
        written += line(
            &mut out,
            "assistant",
            &a2,
            Some(&a1),
            false,
            &call(&id, turn),
        );
        written += line(
            &mut out,
            "progress",
            &progress,
            Some(&a2),
            false,
            r#""data":{"type":"hook_progress","hookEvent":"PreToolUse"}"#,
        );
        if turn.is_multiple_of(7) {
            // A sub-agent's records, on their own sidechain.
            let (sp, sa, sr) = (uuid(), uuid(), uuid());
            written += line(&mut out, "user", &sp, None, true, &prompt(turn));
            written += line(
                &mut out,
                "assistant",
                &sa,
                Some(&sp),
                true,
                &call(&format!("msg_s{turn}"), turn + 1_000_000),
            );
            written += line(
                &mut out,
                "user",
                &sr,
                Some(&sa),
                true,
                &result(turn + 1_000_000),
            );
        }
        written += line(&mut out, "user", &r, Some(&a2), false, &result(turn));
        written += line(
            &mut out,
            "assistant",
            &done,
            Some(&r),
            false,
            &text(&format!("msg_d{turn}"), "Done."),
        );
        leaf = Some(done);
    }
    out.flush().unwrap();
    abandoned
}

/// The child's work for a Claude Code transcript: read it as `agentctx replay` does (the
/// two-pass import from a file), print what it read and its own peak memory.
#[test]
#[ignore = "child process of a_huge_claude_transcript_is_read_in_bounded_memory"]
fn claude_reader_child() {
    let path = child_env("AGENTCTX_TEST_TRANSCRIPT", CLAUDE_PARENT);
    let mut reader = RolloutReader::open(Path::new(&path)).unwrap();
    let mut records = 0u64;
    let mut skipped = 0u64;
    for event in reader.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(_) => skipped += 1,
        }
    }
    let abandoned = reader
        .ignored()
        .get("abandoned-branch")
        .copied()
        .unwrap_or(0);
    let peak = peak_rss_kib(std::process::id()).unwrap();
    println!("records={records} skipped={skipped} abandoned={abandoned} peak_kib={peak}");
}

const CLAUDE_CHILD: &str = "suite::bounded_memory::claude_reader_child";
const CLAUDE_PARENT: &str = "a_huge_claude_transcript_is_read_in_bounded_memory";

/// A Claude Code transcript's branches are known only at its end; read from a file in two
/// passes, its memory stays bounded anyway (one pass held every record: about twice the file).
#[test]
fn a_huge_claude_transcript_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("transcript.jsonl");
    let bytes = CLAUDE_TRANSCRIPT_MIB << 20;
    let abandoned = write_claude_transcript(&path, bytes);
    let child = spawn_test(
        CLAUDE_CHILD,
        &[("AGENTCTX_TEST_TRANSCRIPT", path.display().to_string())],
    );
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let field = |name: &str| -> u64 { report_field(&stdout, name) };
    assert_eq!(field("skipped="), 0);
    assert_eq!(field("abandoned="), abandoned);
    assert!(field("records=") > 0);
    let peak_kib = field("peak_kib=");
    println!(
        "claude transcript: {CLAUDE_TRANSCRIPT_MIB} MiB, {} records, {abandoned} abandoned, child peak RSS {} MiB",
        field("records="),
        peak_kib >> 10
    );
    assert!(
        peak_kib >> 10 <= MAX_PEAK_RSS_MIB,
        "peak RSS {peak_kib} KiB reading a {CLAUDE_TRANSCRIPT_MIB} MiB transcript"
    );
}
