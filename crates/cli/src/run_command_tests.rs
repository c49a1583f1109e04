use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_prompt_typed_during_a_turn_is_queued_for_the_model_and_commands_wait_for_the_turn() {
    assert_eq!(
        typed_during_turn("  also check the docs \n"),
        TypedDuringTurn::Queue("also check the docs".to_string())
    );
    assert_eq!(
        typed_during_turn("/model gpt-5-mini"),
        TypedDuringTurn::AfterTurn("/model gpt-5-mini".to_string())
    );
    assert_eq!(
        typed_during_turn("exit"),
        TypedDuringTurn::AfterTurn("exit".to_string())
    );
    assert_eq!(typed_during_turn("   "), TypedDuringTurn::Skip);
}
