//! `agentctx report` on the bundled sample sessions (this crate's `examples/sessions/`): the
//! folder it writes, the figures of the index, the escaping of what sessions hold, and the
//! request bodies and their budget. `report_browser` opens the same report in Chromium.

use std::path::Path;
use std::path::PathBuf;

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::replay::CLAUDE_SAMPLE;

/// The Codex sample's requests.
const CODEX_REQUESTS: usize = 57;

/// This crate's directory: the tests read only what the crate itself carries.
pub(super) fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// `agentctx report <args> -o <out>` run from this crate's directory, with an empty agentctx
/// home and none of the caller's `AGENTCTX_` settings.
pub(super) fn report(out: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("agentctx").unwrap();
    cmd.current_dir(crate_dir())
        .env_remove("RUST_LOG")
        .arg("report")
        .args(args)
        .arg("-o")
        .arg(out)
        .arg("--home")
        .arg(home);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("AGENTCTX_") || name.starts_with("CODEX_") {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd
}

/// The sort keys (`data-v`) of the cells of the index's session rows, row by row.
fn index_rows(index: &str) -> Vec<Vec<String>> {
    let table = index
        .split_once(r#"<table id="sessions""#)
        .unwrap()
        .1
        .split_once("</table>")
        .unwrap()
        .0;
    let body = table.split_once("<tbody>").unwrap().1;
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split(r#"data-v=""#)
                .skip(1)
                .map(|cell| cell.split_once('"').unwrap().0.to_string())
                .collect()
        })
        .collect()
}

/// The column of the index's session table headed `heading`.
fn column(index: &str, heading: &str) -> usize {
    let head = index
        .split_once(r#"<table id="sessions""#)
        .unwrap()
        .1
        .split_once("</thead>")
        .unwrap()
        .0;
    head.split("<th ")
        .skip(1)
        .position(|th| th.contains(&format!(">{heading}</th>")))
        .unwrap_or_else(|| panic!("no column {heading}"))
}

#[test]
fn the_report_of_the_samples_has_an_index_row_and_a_page_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report(&out, dir.path(), &["examples/sessions"])
        .assert()
        .success();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let rows = index_rows(&index);
    assert_eq!(rows.len(), 3, "{index}");
    let tool = column(&index, "Tool");
    let mut tools: Vec<&str> = rows.iter().map(|row| row[tool].as_str()).collect();
    tools.sort_unstable();
    assert_eq!(tools, ["Claude Code", "Claude Code", "Codex"]);
    // Every row links a page that exists and draws the timeline.
    let pages: Vec<&str> = index
        .split(r#"<a href="sessions/"#)
        .skip(1)
        .map(|link| link.split_once('"').unwrap().0)
        .collect();
    assert_eq!(pages.len(), 3);
    for page in pages {
        let html = std::fs::read_to_string(out.join("sessions").join(page)).unwrap();
        assert!(html.contains("<svg "), "{page} draws no timeline");
        assert!(html.contains(r#"href="../assets/report.css""#));
    }
    for asset in ["report.css", "report.js"] {
        assert!(out.join("assets").join(asset).is_file(), "{asset}");
    }
    // The models of the samples are in the price table: every session has a cost, and without
    // a tier triggering (the samples stay far below their windows) ours is the same.
    let (cost, our_cost) = (column(&index, "Cost"), column(&index, "Our cost"));
    for row in &rows {
        let cost: f64 = row[cost].parse().unwrap();
        assert!(cost > 0.0, "{row:?}");
        assert_eq!(row[our_cost], row[column(&index, "Cost")]);
    }
    assert!(index.contains("<h2>Per day</h2>") && index.contains("<h2>Per project</h2>"));
    assert!(
        index.contains(r#"data-v="/home/mira/src/tally""#),
        "{index}"
    );
}

#[test]
fn every_request_has_the_body_the_engine_would_send_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report(&out, dir.path(), &["examples/sessions"])
        .assert()
        .success();
    let folder = std::fs::read_dir(out.join("sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_dir() && path.to_string_lossy().contains("rollout-2025"))
        .unwrap();
    let bodies = std::fs::read_dir(&folder).unwrap().count();
    assert_eq!(bodies, CODEX_REQUESTS);
    let first = std::fs::read_to_string(folder.join("request-0001.js")).unwrap();
    let json = first
        .strip_prefix("agentctxBody(1,")
        .and_then(|rest| rest.strip_suffix(");\n"))
        .unwrap();
    let body: Value = serde_json::from_str(json).unwrap();
    // The Responses body of the recorded model.
    assert_eq!(body["model"], "gpt-5.1-codex");
    assert!(
        body["input"]
            .as_array()
            .is_some_and(|input| !input.is_empty())
    );
}

#[test]
fn bodies_past_a_sessions_share_of_the_budget_are_listed_without_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report(&out, dir.path(), &["examples/sessions", "--bodies-mb", "1"])
        .assert()
        .success();
    let sessions = out.join("sessions");
    let page = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_file() && path.to_string_lossy().contains("rollout-2025"))
        .unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    let written = std::fs::read_dir(page.with_extension("")).unwrap().count();
    // A third of a megabyte holds the first requests' bodies, not all 57.
    assert!(written > 0 && written < CODEX_REQUESTS, "{written}");
    assert_eq!(
        html.matches(r#"<button type="button" class="body""#)
            .count(),
        written
    );
    assert!(
        html.contains(&format!(
            "the bodies from request {} on are past this session",
            written + 1
        )),
        "{html}"
    );
    let total: u64 = std::fs::read_dir(page.with_extension(""))
        .unwrap()
        .map(|entry| entry.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total <= 1_000_000 / 3, "{total}");

    let none = dir.path().join("none");
    report(
        &none,
        dir.path(),
        &["examples/sessions", "--bodies-mb", "0"],
    )
    .assert()
    .success();
    let dirs = std::fs::read_dir(none.join("sessions"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(dirs, 0);
}

#[test]
fn under_a_small_window_our_tiers_trigger_and_the_session_would_have_sent_less_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    // The Claude Code transcript records no window: judged against 16,000 tokens, our
    // auto-compaction triggers where its context grows past the threshold.
    report(
        &out,
        dir.path(),
        &[
            CLAUDE_SAMPLE,
            "--context-window",
            "16000",
            "--bodies-mb",
            "0",
        ],
    )
    .assert()
    .success();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let rows = index_rows(&index);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    let value = |heading: &str| -> f64 { row[column(&index, heading)].parse().unwrap() };
    assert!(value("Ours") >= 1.0, "{row:?}");
    assert!(value("Our input") < value("Input"), "{row:?}");
    // The cost moves too, though not necessarily down: a rewritten prompt misses the cache and
    // is written to it again, at Anthropic's cache-write price.
    assert!((value("Our cost") - value("Cost")).abs() > 1e-6, "{row:?}");
    let page = std::fs::read_dir(out.join("sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "html"))
        .unwrap();
    let page = std::fs::read_to_string(page).unwrap();
    // The request's "Our tiers" cell gives the compaction's stage, its reason and its figures.
    let cell = page
        .split(r#"<span class="tier auto">"#)
        .nth(1)
        .and_then(|rest| rest.split_once("</span>"))
        .unwrap_or_else(|| panic!("no compaction of ours: {page}"))
        .0;
    assert!(
        cell.starts_with(
            "full compaction, summary written offline · mid-turn, after tool outputs: "
        ),
        "{cell}"
    );
    assert!(cell.contains(" tokens against the window&apos;s trigger of 10,500 · "));
    assert!(
        cell.contains(" → ") && cell.contains(" · summary request ≈ "),
        "{cell}"
    );
    // The timeline marks it, its title the same text; and draws our policy's context line
    // beside the recorded one.
    let (request, title) = page
        .split(r#"<g class="decision auto"><title>Request "#)
        .nth(1)
        .and_then(|mark| mark.split_once("</title>"))
        .unwrap_or_else(|| panic!("no mark: {page}"))
        .0
        .split_once(": ")
        .unwrap();
    assert_eq!(title, cell);
    assert!(
        page.contains(&format!("<tr><td>{request}</td>")),
        "{request}"
    );
    assert!(page.contains(r#"class="policy"/>"#), "{page}");
    assert!(page.contains(">under our policy</text>"), "{page}");
}

/// The report of the Claude Code sample under `home`: the index's row (by heading) and the
/// session page.
fn claude_sample_report(home: &Path) -> (Vec<String>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report(&out, home, &[CLAUDE_SAMPLE, "--bodies-mb", "0"])
        .assert()
        .success();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page = std::fs::read_dir(out.join("sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "html"))
        .unwrap();
    let page = std::fs::read_to_string(page).unwrap();
    let row = index_rows(&index).remove(0);
    (row, index, page)
}

#[test]
fn the_report_draws_the_thresholds_of_config_toml() {
    let empty = tempfile::tempdir().unwrap();
    let (row, index, page) = claude_sample_report(empty.path());
    // The sample's 200,000-token window (less 20,000 for output) under the defaults: far from
    // our trigger.
    assert!(
        page.contains("200,000 tokens · warning 160,000 · auto-compact 167,000 · blocking 177,000"),
        "{page}"
    );
    assert_eq!(row[column(&index, "Ours")], "0", "{row:?}");

    // At 5% of the effective window (9,000 tokens), as `[compact]` of the home's config.toml
    // sets it, our auto-compaction triggers in the sample.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[compact]\nauto_compact_percent_override = 5\n",
    )
    .unwrap();
    let (row, index, page) = claude_sample_report(home.path());
    assert!(
        page.contains("200,000 tokens · warning 9,000 · auto-compact 9,000 · blocking 177,000"),
        "{page}"
    );
    let ours: u64 = row[column(&index, "Ours")].parse().unwrap();
    assert!(ours >= 1, "{row:?}");

    // A bad file stops the report with the file, the line and the key.
    let file = home.path().join("config.toml");
    std::fs::write(&file, "[compact]\nauto_compact_percent_override = 500\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = report(&dir.path().join("report"), home.path(), &[CLAUDE_SAMPLE])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "error: {}:2:33: `compact.auto_compact_percent_override`: ",
            file.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn what_a_session_holds_is_escaped_in_its_page_and_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("hostile.jsonl");
    let lines = [
        r#"{"timestamp":"2025-11-24T09:31:08.100Z","type":"session_meta","payload":{"id":"<img src=x onerror=alert(1)>","cwd":"/home/\"><script>alert(2)</script>"}}"#,
        r#"{"timestamp":"t","type":"turn_context","payload":{"model":"gpt-5</td><td>","cwd":"/x"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<script>alert(3)</script> & more"}]}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"<b>shell</b>","arguments":"{}","call_id":"c1"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
    ];
    std::fs::write(&session, lines.join("\n")).unwrap();
    let out = dir.path().join("report");
    report(
        &out,
        dir.path(),
        &[session.to_str().unwrap(), "--bodies-mb", "0"],
    )
    .assert()
    .success();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page_dir = out.join("sessions");
    let page = std::fs::read_dir(&page_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "html"))
        .unwrap();
    let page = std::fs::read_to_string(page).unwrap();
    for html in [&index, &page] {
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(!html.contains("<b>shell"), "{html}");
        assert!(!html.contains("gpt-5</td>"), "{html}");
        // Only our own script tag.
        assert_eq!(html.matches("<script").count(), 1, "{html}");
    }
    assert!(
        page.contains("&lt;script&gt;alert(3)&lt;/script&gt; &amp; more"),
        "{page}"
    );
    assert!(
        page.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{page}"
    );
}
