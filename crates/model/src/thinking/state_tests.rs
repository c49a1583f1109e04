use pretty_assertions::assert_eq;

use super::*;

#[test]
fn toggle_next_cycles_none_deep_ultra_none() {
    let mut state = ThinkingState::new();
    assert_eq!(state.current_level(), None);
    assert_eq!(state.toggle_next(), Some(ThinkingLevel::DeepThink));
    assert_eq!(state.toggle_next(), Some(ThinkingLevel::UltraThink));
    assert_eq!(state.toggle_next(), Some(ThinkingLevel::None));
    assert_eq!(state.toggle_next(), Some(ThinkingLevel::DeepThink));
}

#[test]
fn toggle_prev_cycles_backwards() {
    let mut state = ThinkingState::new();
    assert_eq!(state.toggle_prev(), Some(ThinkingLevel::UltraThink));
    assert_eq!(state.toggle_prev(), Some(ThinkingLevel::DeepThink));
    assert_eq!(state.toggle_prev(), Some(ThinkingLevel::None));
}

#[test]
fn set_level_none_clears_the_toggle() {
    let mut state = ThinkingState::new();
    state.set_level(Some(ThinkingLevel::UltraThink));
    assert_eq!(state.current_level(), Some(ThinkingLevel::UltraThink));
    state.set_level(None);
    assert_eq!(state, ThinkingState::new());
}
