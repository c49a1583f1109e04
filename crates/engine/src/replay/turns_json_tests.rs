use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;

use super::TURNS_WORTH_A_THREAD;
use super::turns_json;
use crate::replay::ReplayOptions;
use crate::replay::ReplayTurn;
use crate::replay::replay_reader;

/// The turns of the bundled Codex sample with its body repeated `copies` times.
fn sample_turns(copies: usize) -> Vec<ReplayTurn> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/samples/rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl",
    );
    let sample = std::fs::read_to_string(path).unwrap();
    let (header, body) = sample.split_once('\n').unwrap();
    let text = format!("{header}\n{}", body.repeat(copies));
    let reader = RolloutReader::new(Path::new("s.jsonl"), Cursor::new(text));
    replay_reader(reader, &ReplayOptions::default(), None)
        .unwrap()
        .turns
}

/// The turns as the report writes them: the raw texts in an array.
fn written(turns: &[ReplayTurn]) -> String {
    serde_json::to_string(&turns_json(turns).unwrap()).unwrap()
}

#[test]
fn turns_written_from_their_texts_are_the_bytes_serde_json_writes_for_them() {
    let many = sample_turns(12);
    assert!(
        many.len() >= TURNS_WORTH_A_THREAD,
        "{} turns: enough for the second thread",
        many.len()
    );
    assert_eq!(written(&many), serde_json::to_string(&many).unwrap());
    // An odd count, split unevenly.
    let odd = &many[..TURNS_WORTH_A_THREAD + 1];
    assert_eq!(written(odd), serde_json::to_string(odd).unwrap());
}

#[test]
fn a_few_turns_or_none_are_written_on_the_calling_thread_the_same_way() {
    let few = sample_turns(1);
    assert!(!few.is_empty() && few.len() < TURNS_WORTH_A_THREAD);
    assert_eq!(written(&few), serde_json::to_string(&few).unwrap());
    assert_eq!(written(&[]), "[]");
}

#[test]
fn each_text_is_one_turn_in_order() {
    let many = sample_turns(12);
    let texts = turns_json(&many).unwrap();
    assert_eq!(texts.len(), many.len());
    for (text, turn) in texts.iter().zip(&many) {
        assert_eq!(text.get(), serde_json::to_string(turn).unwrap());
    }
}
