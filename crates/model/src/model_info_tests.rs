use pretty_assertions::assert_eq;

use super::*;
use crate::prompt::ReasoningEffort::High;
use crate::prompt::ReasoningEffort::Low;
use crate::prompt::ReasoningEffort::Medium;
use crate::prompt::ReasoningEffort::Minimal;
use crate::prompt::ReasoningEffort::XHigh;

fn accepting(efforts: &[ReasoningEffort]) -> ModelInfo {
    ModelInfo {
        reasoning_efforts: efforts.to_vec(),
        ..ModelInfo::default()
    }
}

#[test]
fn an_effort_the_model_takes_is_sent_as_asked() {
    let gpt5 = accepting(&[Minimal, Low, Medium, High]);
    for effort in [Minimal, Low, Medium, High] {
        assert_eq!(gpt5.clamp_effort(effort), effort);
    }
}

#[test]
fn a_higher_effort_is_clamped_to_the_highest_accepted() {
    let gpt5 = accepting(&[Minimal, Low, Medium, High]);
    assert_eq!(gpt5.clamp_effort(XHigh), High);
    let codex_mini = accepting(&[Medium, High]);
    assert_eq!(codex_mini.clamp_effort(XHigh), High);
}

#[test]
fn a_lower_effort_goes_to_the_lowest_accepted() {
    let codex = accepting(&[Low, Medium, High]);
    assert_eq!(codex.clamp_effort(Minimal), Low);
    let codex_mini = accepting(&[Medium, High]);
    assert_eq!(codex_mini.clamp_effort(Low), Medium);
}

#[test]
fn a_gap_in_the_list_takes_the_next_effort_below() {
    let odd = accepting(&[Low, High]);
    assert_eq!(odd.clamp_effort(Medium), Low);
}

#[test]
fn an_unknown_model_gets_what_was_asked() {
    assert_eq!(ModelInfo::default().clamp_effort(XHigh), XHigh);
}
