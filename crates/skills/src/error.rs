//! [`SkillError`]: failures of command lookup and invocation.

/// Why a command could not be invoked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkillError {
    /// The skill is running already; a skill never runs twice at once.
    #[error("skill `{name}` is already running")]
    AlreadyRunning {
        /// The skill's name.
        name: String,
    },
    /// No enabled command has this name or alias.
    #[error("unknown command `/{name}`")]
    UnknownCommand {
        /// The name looked up.
        name: String,
    },
    /// The skill has `user_invocable: false`.
    #[error("`/{name}` cannot be invoked by the user")]
    NotUserInvocable {
        /// The skill's name.
        name: String,
    },
    /// The skill is not available to the model (disabled, builtin or undescribed).
    #[error("skill `{name}` cannot be invoked by the model")]
    NotModelInvocable {
        /// The skill's name.
        name: String,
    },
}
