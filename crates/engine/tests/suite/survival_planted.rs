//! The planted facts of `agentctx-compact`'s tests (`tests/suite/planted_facts.rs` and
//! `full_compact.rs`: a critical instruction, open todos, recently read files, the last user
//! request), expressed as survival probes and checked through the engine: a long Claude Code
//! shaped history is compacted by the engine's offline full tier (summary and restoration), and
//! what the session does next (reading the recent files again, going on with the request) is
//! what the probes ask the compacted context for. The critical instruction and the last
//! request are planted verbatim beside the probes the history itself gives.

use std::path::Path;

use agentctx_context::ContextManager;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::OfflineTier;
use agentctx_engine::survival::Probe;
use agentctx_engine::survival::ProbeKind;
use agentctx_engine::survival::SurvivalProbes;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

const CRITICAL_INSTRUCTION: &str = "Never run `git push`; the user pushes.";
const LAST_REQUEST: &str = "Now port the remaining span tests in tests/spans.rs and stop there.";
const RECENT_FILES: [&str; 3] = ["src/lexer.rs", "src/span.rs", "tests/spans.rs"];
const TURNS: usize = 120;

/// A file body unique to the path and the turn it was read on.
fn file_content(path: &str, turn: usize) -> String {
    (0..60)
        .map(|line| {
            format!(
                "pub fn {}_item_{turn}_{line}() -> usize {{ {line} }}\n",
                path.replace(['/', '.'], "_")
            )
        })
        .collect()
}

fn read(call_id: &str, path: &str, content: &str) -> [ResponseItem; 2] {
    let numbered: String = content
        .lines()
        .enumerate()
        .map(|(index, line)| format!("{:>6}→{line}\n", index + 1))
        .collect();
    [
        ResponseItem::function_call(
            call_id,
            "Read",
            json!({"file_path": format!("/repo/{path}")}).to_string(),
        ),
        ResponseItem::function_call_output(call_id, numbered),
    ]
}

/// The history before the point: the instruction, many reads, the todos, the recent files and
/// the last request, which no answer followed.
fn before() -> Vec<ResponseItem> {
    let mut history = vec![ResponseItem::user_text(format!(
        "Split the tokenizer out of the parser. {CRITICAL_INSTRUCTION}"
    ))];
    for turn in 0..TURNS {
        let path = format!("src/old_{}.rs", turn % 20);
        history.extend(read(
            &format!("old{turn}"),
            &path,
            &file_content(&path, turn),
        ));
        history.push(ResponseItem::assistant_text(format!("Read {path}.")));
    }
    history.push(ResponseItem::function_call(
        "todo",
        "TodoWrite",
        json!({"todos": [
            {"content": "Split the lexer out of parser.rs", "status": "completed", "activeForm": "Splitting"},
            {"content": "Port the span tests", "status": "in_progress", "activeForm": "Porting"},
            {"content": "Update the changelog", "status": "pending", "activeForm": "Updating"},
        ]})
        .to_string(),
    ));
    history.push(ResponseItem::function_call_output(
        "todo",
        "Todos have been modified successfully.",
    ));
    for (index, path) in RECENT_FILES.iter().enumerate() {
        history.extend(read(
            &format!("recent{index}"),
            path,
            &file_content(path, TURNS),
        ));
    }
    history.push(ResponseItem::user_text(LAST_REQUEST));
    history
}

/// What the session did after the point: it read the recent files again.
fn after() -> Vec<ResponseItem> {
    let mut history = Vec::new();
    for (index, path) in RECENT_FILES.iter().enumerate() {
        history.extend(read(
            &format!("again{index}"),
            path,
            &file_content(path, TURNS),
        ));
    }
    history
}

#[tokio::test]
async fn the_planted_facts_survive_the_engines_full_compaction_as_probes() {
    let home = tempfile::tempdir().unwrap();
    let cwd = Path::new("/repo");
    let before = before();
    let mut history = ContextManager::new();
    history.replace(before.clone());
    let options = EngineOptions::new(
        cwd,
        home.path(),
        "planted",
        Default::default(),
        Default::default(),
    )
    .with_window(200_000, None);
    let mut engine = ContextEngine::with_history(options, history);
    engine.observe_recorded_reads(cwd, engine.history());
    engine
        .compact_offline(OfflineTier::Full, None, "")
        .await
        .unwrap();

    let mut probes = SurvivalProbes::extract(&before, &after(), cwd);
    probes.push(Probe::planted(CRITICAL_INSTRUCTION));
    probes.push(Probe::planted(LAST_REQUEST));
    let kinds: Vec<(ProbeKind, &str)> = probes
        .probes()
        .iter()
        .map(|probe| (probe.kind, probe.text.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ProbeKind::File, "src/lexer.rs"),
            (ProbeKind::File, "src/span.rs"),
            (ProbeKind::File, "tests/spans.rs"),
            (ProbeKind::Constraint, CRITICAL_INSTRUCTION),
            // The first request is still being worked on: no final answer followed it.
            (
                ProbeKind::OpenAsk,
                "Split the tokenizer out of the parser. Never run `git push`; the user pushes."
            ),
            (ProbeKind::OpenAsk, LAST_REQUEST),
            (ProbeKind::Todo, "Port the span tests"),
            (ProbeKind::Todo, "Update the changelog"),
            (ProbeKind::Planted, CRITICAL_INSTRUCTION),
            (ProbeKind::Planted, LAST_REQUEST),
        ]
    );

    let ours = probes.check(engine.history());
    assert_eq!(ours.lost, Vec::new(), "{ours:#?}");
    assert_eq!((ours.held, ours.probes), (10, 10));
    // The recent files were restored: the reads after the compaction were of content the
    // compacted context already held.
    assert_eq!((ours.reread.held, ours.reread.files), (3, 3), "{ours:#?}");

    // The same probes tell a summary that names nothing apart.
    let bare = probes.check(&[ResponseItem::user_text(
        "Summary: refactoring the tokenizer; tests are green.",
    )]);
    assert_eq!(bare.held, 0, "{bare:#?}");
    assert_eq!((bare.reread.held, bare.reread.files), (0, 3));
}
