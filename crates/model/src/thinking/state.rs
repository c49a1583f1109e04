//! The session's thinking toggle (hotkey cycling).

use agentctx_protocol::ThinkingLevel;

/// Session-level thinking state for the hotkey toggle.
///
/// `None` means the user has not toggled this session, so lower priority sources decide;
/// once toggled, the chosen level (`ThinkingLevel::None` included, which turns thinking off)
/// is priority step 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThinkingState {
    current_level: Option<ThinkingLevel>,
}

impl ThinkingState {
    /// A state the user has not toggled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cycle forward: None → DeepThink → UltraThink → None (an untoggled state counts as None).
    pub fn toggle_next(&mut self) -> Option<ThinkingLevel> {
        let next = self.current_level.unwrap_or_default().cycle();
        self.current_level = Some(next);
        self.current_level
    }

    /// Cycle backward: None → UltraThink → DeepThink → None.
    pub fn toggle_prev(&mut self) -> Option<ThinkingLevel> {
        let prev = match self.current_level.unwrap_or_default() {
            ThinkingLevel::None => ThinkingLevel::UltraThink,
            ThinkingLevel::UltraThink => ThinkingLevel::DeepThink,
            ThinkingLevel::DeepThink => ThinkingLevel::None,
        };
        self.current_level = Some(prev);
        self.current_level
    }

    /// Sets the level; `None` returns the decision to lower priority sources.
    pub fn set_level(&mut self, level: Option<ThinkingLevel>) {
        self.current_level = level;
    }

    /// The toggled level, `None` when not toggled.
    pub fn current_level(&self) -> Option<ThinkingLevel> {
        self.current_level
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
