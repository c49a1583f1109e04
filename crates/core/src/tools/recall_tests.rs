use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_protocol::CompactedItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_rollout::RolloutRecorder;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::approval::ApprovalPolicy;
use crate::session_state::SessionState;

/// A session's home with its rollout, written item by item.
struct Recorded {
    _dir: tempfile::TempDir,
    home: PathBuf,
    recorder: RolloutRecorder,
}

impl Recorded {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let recorder = RolloutRecorder::create(&home, SessionMetaLine::default()).unwrap();
        Self {
            _dir: dir,
            home,
            recorder,
        }
    }

    fn items(&mut self, items: &[ResponseItem]) -> &mut Self {
        self.recorder.record_response_items(items).unwrap();
        self
    }

    fn call(&mut self, call_id: &str, name: &str, arguments: Value, output: &str) -> &mut Self {
        self.items(&[
            ResponseItem::function_call(call_id, name, arguments.to_string()),
            ResponseItem::function_call_output(call_id, output),
        ])
    }

    fn compaction(&mut self) -> &mut Self {
        let compacted = CompactedItem {
            message: "summary".to_string(),
            replacement_history: Some(vec![ResponseItem::user_text("summary")]),
            ..CompactedItem::default()
        };
        self.recorder
            .record_items(&[RolloutItem::Compacted(compacted)])
            .unwrap();
        self
    }

    /// Writes `text` as micro-compaction persists the result of `call_id`.
    fn persist(&mut self, call_id: &str, text: &str) -> PathBuf {
        let path = agentctx_compact::persisted_output_path(&self.home, call_id);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn rollout(&self) -> PathBuf {
        self.recorder.path().to_path_buf()
    }

    fn search(&self, query: &str) -> Found {
        search(
            &self.rollout(),
            &self.home,
            &Query::parse(query).unwrap(),
            &CancellationToken::new(),
        )
    }

    fn recall(&self, query: &str, limit: usize) -> ToolOutput {
        let query = Query::parse(query).unwrap();
        render(&query, self.search(&query.raw), limit)
    }

    /// `text` with the home folder written as `[HOME]`.
    fn normalize(&self, text: &str) -> String {
        text.replace(&self.home.display().to_string(), "[HOME]")
    }
}

fn lines(text: &str) -> String {
    (1..=30)
        .map(|n| {
            if n == 15 {
                format!("{text}\n")
            } else {
                format!("filler line {n}\n")
            }
        })
        .collect()
}

#[test]
fn the_description_the_model_sees_is_pinned() {
    let spec = RecallTool.spec();
    insta::assert_snapshot!(format!(
        "{}\n\n{}\n\n{}",
        spec.name,
        spec.description,
        serde_json::to_string_pretty(&spec.parameters).unwrap()
    ));
}

#[test]
fn the_query_is_words_in_lowercase_and_a_path_is_one_token() {
    let query = Query::parse("  Parse_Header  \"parse_header\" tokens, ").unwrap();
    assert_eq!(query.words, ["parse_header", "tokens"]);
    assert!(!query.path_like);
    assert!(Query::parse("src/lib.rs").unwrap().path_like);
    assert!(Query::parse("parser.rs").unwrap().path_like);
    assert!(!Query::parse("the end.").unwrap().path_like);
    assert!(!Query::parse(".gitignore").unwrap().path_like);
    assert_eq!(Query::parse("  \n "), None);
    assert_eq!(Query::parse("\"\" ,"), None);
}

#[test]
fn exact_matches_come_first_then_all_words_then_some_then_the_newest() {
    let query = Query::parse("parse_header tokens").unwrap();
    let rank_of = |text: &str, line| rank(&query, text, "", None, line);
    // The phrase as it stands.
    let exact = rank_of("fn x() { parse_header tokens }", 1).unwrap();
    // Both words, apart.
    let all = rank_of("tokens … parse_header", 9).unwrap();
    // One word, newest.
    let some = rank_of("tokens only", 20).unwrap();
    let some_older = rank_of("tokens only", 10).unwrap();
    assert!(exact > all && all > some && some > some_older);
    assert_eq!(rank_of("nothing here", 30), None);

    // A word inside a longer identifier is present but not exact.
    let identifier = Query::parse("parse").unwrap();
    let inside = rank(&identifier, "fn parser() {}", "", None, 5).unwrap();
    let standalone = rank(&identifier, "fn parse() {}", "", None, 1).unwrap();
    assert!(standalone > inside);

    // A path names the file of a read even when the output does not mention it.
    let path = Query::parse("src/lib.rs").unwrap();
    let read = rank(
        &path,
        "1\tfn main() {}",
        "read_file {\"path\":\"/repo/src/lib.rs\"}",
        Some("/repo/src/lib.rs"),
        2,
    )
    .unwrap();
    assert!(read.exact);
    assert!(!same_file("/repo/src/mylib.rs", "lib.rs"));
    assert!(same_file("/repo/src/lib.rs", "./src/lib.rs"));
}

#[test]
fn what_came_before_the_latest_compaction_is_found_and_what_followed_is_not() {
    let mut session = Recorded::new();
    session
        .items(&[ResponseItem::user_text("Find the zanzibar constant")])
        .call(
            "c1",
            "read_file",
            json!({"path": "src/consts.rs"}),
            &lines("pub const ZANZIBAR: u32 = 7;"),
        )
        .items(&[ResponseItem::assistant_text("ZANZIBAR is 7.")])
        .compaction()
        // After the compaction: still in the context, not searched.
        .call(
            "c2",
            "grep",
            json!({"pattern": "zanzibar"}),
            "src/consts.rs:15:pub const ZANZIBAR",
        );
    let found = session.search("zanzibar");
    assert_eq!(found.compactions, 1);
    assert_eq!(found.total, 3, "{found:#?}");
    // Newest first among equals: the assistant's message, the read, the user's message.
    let origins: Vec<&Origin> = found.matches.iter().map(|found| &found.origin).collect();
    assert!(matches!(origins[0], Origin::AssistantMessage));
    assert!(matches!(origins[1], Origin::ToolOutput { name, .. } if name == "read_file"));
    assert!(matches!(origins[2], Origin::UserMessage));

    let output = session.recall("ZANZIBAR", 5);
    assert!(output.success);
    insta::assert_snapshot!(session.normalize(&output.text));
}

#[test]
fn earlier_compactions_are_searched_too() {
    let mut session = Recorded::new();
    session
        .items(&[ResponseItem::user_text("first: alpha-fox")])
        .compaction()
        .items(&[ResponseItem::user_text("second: beta-fox")])
        .compaction()
        .items(&[ResponseItem::user_text("third: gamma-fox")]);
    let found = session.search("fox");
    assert_eq!(found.compactions, 2);
    let texts: Vec<&str> = found.matches.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["second: beta-fox", "first: alpha-fox"]);
}

#[test]
fn a_path_finds_the_reads_and_edits_of_that_file_first() {
    let mut session = Recorded::new();
    session
        .call(
            "c1",
            "read_file",
            json!({"path": "src/lib.rs"}),
            "1\tpub fn run() {}\n",
        )
        .call(
            "c2",
            "shell",
            json!({"command": "cat notes.txt"}),
            "see src/lib.rs.bak for the old one",
        )
        .call(
            "c3",
            "edit_file",
            json!({"path": "/w/src/lib.rs", "old": "run", "new": "start"}),
            "Edited src/lib.rs",
        )
        .compaction();
    let found = session.search("src/lib.rs");
    let calls: Vec<String> = found
        .matches
        .iter()
        .map(|found| match &found.origin {
            Origin::ToolOutput { name, .. } => name.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(calls, ["edit_file", "read_file", "shell"]);
}

#[test]
fn persisted_results_of_this_session_are_searched_and_others_are_not() {
    let mut session = Recorded::new();
    let big = lines("error[E0425]: cannot find value `quokka_count`");
    session.call("c1", "shell", json!({"command": "cargo build"}), &big);
    // Micro-compaction cleared it after the call was recorded: the file holds the text.
    let path = session.persist("c1", &big);
    // A result of another session in the same folder.
    session.persist("other_session_call", "quokka_count elsewhere");
    let found = session.search("quokka_count");
    assert_eq!(found.total, 1, "{found:#?}");
    assert_eq!(found.persisted, 1);
    assert!(matches!(
        &found.matches[0].origin,
        Origin::ToolOutput { persisted: Some(file), from_file: true, .. } if *file == path
    ));
    let output = session.recall("quokka_count", 5);
    insta::assert_snapshot!(session.normalize(&output.text));

    // Before a compaction the rollout's copy is shown, and the file is named.
    session.compaction();
    let output = session.recall("quokka_count", 5);
    assert!(
        output.text.contains("before the compaction; whole in"),
        "{}",
        output.text
    );
}

#[test]
fn recall_results_and_harness_messages_are_not_searched() {
    let mut session = Recorded::new();
    let mut reminder = ResponseItem::user_text("<system-reminder>\nwombat\n</system-reminder>");
    reminder.set_injected(true);
    session
        .items(&[reminder, ResponseItem::developer_text("wombat rules")])
        .call(
            "r1",
            RECALL_TOOL,
            json!({"query": "wombat"}),
            "wombat found",
        )
        .compaction();
    let output = session.recall("wombat", 5);
    assert!(output.success);
    assert!(
        output.text.starts_with("No match for \"wombat\""),
        "{}",
        output.text
    );
}

#[test]
fn corrupt_lines_are_skipped_and_said() {
    let mut session = Recorded::new();
    session.items(&[ResponseItem::user_text("the platypus plan")]);
    session.recorder.flush().unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(session.rollout())
        .unwrap();
    file.write_all(b"{not json\n").unwrap();
    drop(file);
    session.compaction();
    let found = session.search("platypus");
    assert_eq!(found.skipped, 1);
    assert_eq!(found.total, 1);
    let output = session.recall("platypus", 5);
    assert!(
        output
            .text
            .contains("(1 unreadable lines or files were skipped.)"),
        "{}",
        output.text
    );
}

#[test]
fn nothing_removed_and_no_match_say_so() {
    let mut session = Recorded::new();
    session.items(&[ResponseItem::user_text("hello")]);
    insta::assert_snapshot!("nothing_removed", session.recall("hello", 5).text);
    session.compaction();
    insta::assert_snapshot!("no_match", session.recall("absent words", 5).text);

    // A missing rollout is an error, never a panic.
    let query = Query::parse("x").unwrap();
    let found = search(
        &session.home.join("gone.jsonl"),
        &session.home,
        &query,
        &CancellationToken::new(),
    );
    let output = render(&query, found, 5);
    assert!(!output.success);
    assert!(
        output.text.starts_with("Error: recall: cannot read"),
        "{}",
        output.text
    );
}

#[test]
fn the_output_stays_within_its_budget_and_counts_what_it_left_out() {
    let mut session = Recorded::new();
    for n in 0..30 {
        let text: String = (0..200)
            .map(|line| format!("line {line} of result {n}: the kiwi value is {line}\n"))
            .collect();
        session.call(
            &format!("c{n}"),
            "shell",
            json!({"command": format!("run {n}")}),
            &text,
        );
    }
    session.compaction();
    let output = session.recall("kiwi", MAX_RECALL_LIMIT);
    assert!(
        output.text.len() <= RECALL_OUTPUT_CHARS,
        "{}",
        output.text.len()
    );
    assert!(
        output.text.starts_with("10 of 30 matches"),
        "{}",
        &output.text[..80]
    );
    assert!(output.text.contains("20 more matches not shown"));
    // The newest result first.
    assert!(
        output
            .text
            .contains("[1] result of shell {\"command\":\"run 29\"}")
    );
    assert!(output.text.contains("more matching lines)"));
}

#[test]
fn an_excerpt_shows_context_around_the_matching_lines() {
    let query = Query::parse("needle").unwrap();
    let text: String = (1..=20)
        .map(|n| {
            if n == 5 || n == 15 {
                format!("needle {n}\n")
            } else {
                format!("hay {n}\n")
            }
        })
        .collect();
    assert_eq!(
        excerpt(&text, &query, 1_000),
        "hay 3\nhay 4\nneedle 5\nhay 6\nhay 7\n…\nhay 13\nhay 14\nneedle 15\nhay 16\nhay 17\n"
    );
    // A text that matched through its call: its first lines.
    assert_eq!(excerpt("a\nb\n", &query, 1_000), "a\nb\n");
}

#[tokio::test]
async fn the_tool_reads_the_sessions_rollout_and_refuses_without_one() {
    let mut session = Recorded::new();
    session
        .items(&[ResponseItem::user_text("remember the okapi")])
        .compaction();
    session.recorder.flush().unwrap();
    let state = SessionState {
        rollout_path: Some(session.rollout()),
        ..SessionState::default()
    };
    let ctx = ToolContext {
        cwd: session.home.clone(),
        home: session.home.clone(),
        plans_dir: session.home.join("plans"),
        state: Arc::new(Mutex::new(state)),
        approval: ApprovalPolicy::AutoApprove,
        approver: None,
        observers: Vec::new(),
        events: None,
        cancel: CancellationToken::new(),
        subagents: None,
        turn: 1,
        call_approval: std::sync::Arc::default(),
    };
    let output = RecallTool.handle(&ctx, r#"{"query": "okapi"}"#).await;
    assert!(output.success, "{}", output.text);
    assert!(
        output.text.contains("remember the okapi"),
        "{}",
        output.text
    );

    let bad = RecallTool
        .handle(&ctx, r#"{"query": "okapi", "limit": 11}"#)
        .await;
    assert!(!bad.success);
    let empty = RecallTool.handle(&ctx, r#"{"query": "  "}"#).await;
    assert!(!empty.success);

    ctx.state().rollout_path = None;
    let none = RecallTool.handle(&ctx, r#"{"query": "okapi"}"#).await;
    assert!(!none.success);
    assert!(
        none.text.contains("records no session file"),
        "{}",
        none.text
    );
}
