use agentctx_model::ModelError;
use agentctx_model::ScriptedModelClient;
use agentctx_protocol::ResponseItem;
use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::EXTRACTION_INSTRUCTIONS;
use super::ExtractionOutcome;
use super::extraction_prompt;
use super::run_extraction;
use crate::session_memory::HistoryItemId;
use crate::session_memory::SessionMemoryError;
use crate::session_memory::SessionMemoryMetadata;
use crate::session_memory::SessionMemoryStore;

const SUMMARY_ONE: &str = "## Current Task\nFix the tokenizer panic on empty input.\n\n## Key Decisions\n- Return an empty token list instead of erroring.";
const SUMMARY_TWO: &str = "## Current Task\nFix the tokenizer panic on empty input.\n\n## Files Modified\n- src/lexer.rs: early return on empty input.";

fn history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::user_text("The tokenizer panics on empty input. Fix it."),
        ResponseItem::function_call("c1", "read_file", r#"{"path":"src/lexer.rs"}"#),
        ResponseItem::function_call_output(
            "c1",
            "fn lex(input: &str) -> Vec<Token> { input[0..1] }",
        ),
        ResponseItem::assistant_text("The slice panics on empty input; I will return early."),
    ]
}

fn store() -> (tempfile::TempDir, SessionMemoryStore) {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "session-1").unwrap();
    (home, store)
}

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap()
}

#[test]
fn the_extraction_instructions_are_the_summary_template() {
    insta::assert_snapshot!("extraction_instructions", EXTRACTION_INSTRUCTIONS);
}

#[test]
fn the_extraction_request_carries_the_transcript_and_the_current_summary() {
    let prompt = extraction_prompt(SUMMARY_ONE, &history());
    assert_eq!(prompt.instructions, EXTRACTION_INSTRUCTIONS);
    assert_eq!(prompt.input.len(), 1);
    assert!(prompt.tools.is_empty());
    insta::assert_snapshot!(
        "extraction_request",
        prompt.input[0].message_text().unwrap()
    );
}

#[tokio::test]
async fn an_extraction_writes_the_summary_and_the_last_summarized_id() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text(format!("<summary>\n{SUMMARY_ONE}\n</summary>"));
    let items = history();

    let outcome = run_extraction(&model, &store, &items, now()).await.unwrap();

    let expected = SessionMemoryMetadata {
        last_summarized_id: HistoryItemId::of(&items, 3).unwrap().to_string(),
        last_extraction: now(),
        summary_token_count: (SUMMARY_ONE.len() as u64 + 1).div_ceil(4),
        messages_summarized: 4,
    };
    assert_eq!(
        outcome,
        ExtractionOutcome::Updated {
            metadata: expected.clone(),
            new_items: 4
        }
    );
    assert_eq!(
        store.read_summary().unwrap(),
        Some(format!("{SUMMARY_ONE}\n"))
    );
    assert_eq!(store.read_metadata().unwrap(), Some(expected));
    let prompt = model.last_prompt().unwrap();
    let request = prompt.input[0].message_text().unwrap();
    assert!(request.contains("[user] The tokenizer panics on empty input. Fix it."));
}

#[tokio::test]
async fn the_next_extraction_sends_only_what_the_summary_does_not_cover() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text(SUMMARY_ONE);
    model.push_text(SUMMARY_TWO);
    let mut items = history();
    run_extraction(&model, &store, &items, now()).await.unwrap();
    items.push(ResponseItem::function_call(
        "c2",
        "apply_patch",
        r#"{"path":"src/lexer.rs"}"#,
    ));
    items.push(ResponseItem::function_call_output("c2", "patched"));

    let outcome = run_extraction(&model, &store, &items, now()).await.unwrap();

    let ExtractionOutcome::Updated {
        metadata,
        new_items,
    } = outcome
    else {
        panic!("expected an update, got {outcome:?}");
    };
    assert_eq!(new_items, 2);
    assert_eq!(metadata.messages_summarized, 6);
    assert_eq!(
        metadata.last_summarized_id,
        HistoryItemId::of(&items, 5).unwrap().to_string()
    );
    let request = model.last_prompt().unwrap().input[0]
        .message_text()
        .unwrap();
    assert!(
        !request.contains("panics on empty input. Fix it."),
        "{request}"
    );
    assert!(request.contains("[tool call apply_patch]"), "{request}");
    assert!(
        request.contains(SUMMARY_ONE),
        "the current summary is given"
    );
}

#[tokio::test]
async fn nothing_new_makes_no_model_call() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text(SUMMARY_ONE);
    let items = history();
    run_extraction(&model, &store, &items, now()).await.unwrap();
    let outcome = run_extraction(&model, &store, &items, now()).await.unwrap();
    assert_eq!(outcome, ExtractionOutcome::NothingNew);
    assert_eq!(model.served(), 1);
    let outcome = run_extraction(&model, &store, &[], now()).await.unwrap();
    assert_eq!(outcome, ExtractionOutcome::NothingNew);
}

#[tokio::test]
async fn a_model_failure_leaves_the_summary_as_it_was() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text(SUMMARY_ONE);
    model.push_error(ModelError::BadRequest {
        status: 400,
        body: "nope".to_string(),
    });
    let mut items = history();
    run_extraction(&model, &store, &items, now()).await.unwrap();
    let metadata_before = store.read_metadata().unwrap();
    items.push(ResponseItem::user_text("also handle whitespace-only input"));

    let error = run_extraction(&model, &store, &items, now())
        .await
        .unwrap_err();

    assert!(
        matches!(
            error,
            SessionMemoryError::Model(ModelError::BadRequest { .. })
        ),
        "{error:?}"
    );
    assert_eq!(
        store.read_summary().unwrap(),
        Some(format!("{SUMMARY_ONE}\n"))
    );
    assert_eq!(store.read_metadata().unwrap(), metadata_before);
}

#[tokio::test]
async fn a_reply_that_is_no_summary_is_refused() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text("<analysis>thinking only</analysis>");
    let error = run_extraction(&model, &store, &history(), now())
        .await
        .unwrap_err();
    assert!(
        matches!(error, SessionMemoryError::InvalidSummary { .. }),
        "{error:?}"
    );
    assert_eq!(store.read_summary().unwrap(), None);
    assert_eq!(store.read_metadata().unwrap(), None);
}

#[tokio::test]
async fn corrupt_or_stale_metadata_makes_the_extraction_take_the_whole_history() {
    let (_home, store) = store();
    let model = ScriptedModelClient::new("summariser");
    model.push_text(SUMMARY_ONE);
    model.push_text(SUMMARY_TWO);
    std::fs::create_dir_all(store.dir()).unwrap();
    std::fs::write(store.metadata_path(), "not json").unwrap();
    let items = history();

    run_extraction(&model, &store, &items, now()).await.unwrap();
    let request = model.last_prompt().unwrap().input[0]
        .message_text()
        .unwrap();
    assert!(request.contains("Fix it."), "{request}");

    // A last_summarized_id from another history.
    let mut metadata = store.read_metadata().unwrap().unwrap();
    metadata.last_summarized_id = "2:00000000deadbeef".to_string();
    store.write(SUMMARY_ONE, &metadata).unwrap();
    run_extraction(&model, &store, &items, now()).await.unwrap();
    let request = model.last_prompt().unwrap().input[0]
        .message_text()
        .unwrap();
    assert!(request.contains("Fix it."), "{request}");
}
