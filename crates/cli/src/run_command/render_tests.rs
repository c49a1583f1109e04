use agentctx_protocol::LoopEvent;
use pretty_assertions::assert_eq;

use super::compaction_line;
use super::truncation_line;

#[test]
fn compactions_are_shown_when_they_start_and_end() {
    assert_eq!(
        compaction_line(&LoopEvent::CompactionStarted).as_deref(),
        Some("compacting the conversation (summarising older messages)...")
    );
    assert_eq!(
        compaction_line(&LoopEvent::CompactionCompleted {
            removed_messages: 12,
            summary_tokens: 340,
        })
        .as_deref(),
        Some("compacted: 12 messages replaced by a summary of 340 tokens")
    );
    assert_eq!(
        compaction_line(&LoopEvent::MicroCompactionApplied { removed_results: 3 }).as_deref(),
        Some("compacted: 3 old tool results cleared")
    );
    assert_eq!(
        compaction_line(&LoopEvent::PlanModeExited { approved: true }),
        None
    );
}

#[test]
fn a_truncated_answer_says_what_happens_next() {
    assert_eq!(
        truncation_line("length", 0, true, 1, 3),
        "the answer stopped at the model's output limit (length); asking it to continue (1 of 3)"
    );
    assert_eq!(
        truncation_line("max_tokens", 1, false, 3, 3),
        "the answer stopped at the model's output limit (max_tokens); 1 tool call cut short, not run; no continuation left, the answer is incomplete"
    );
}
