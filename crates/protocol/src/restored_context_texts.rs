//! Texts that tell the model about context it had before a compaction: the plan file, the
//! skills it invoked, and a file too large to restore. Both the reminder engine (which shows them
//! as reminders) and the compaction crate (which restores them right after a compaction) write
//! them, so they are defined once here (docs/design/compaction.md, "Context restoration").

/// A skill invoked in the session (by the model's `skill` tool or the user), with the prompt it
/// brought: the session state records it, the `invoked_skills` reminder reports it and a
/// compaction restores it, so its guidelines stay in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvokedSkill {
    /// The skill's name.
    pub name: String,
    /// Where its `SKILL.md` is; empty for a skill without one (a builtin).
    pub path: std::path::PathBuf,
    /// The prompt it injected.
    pub content: String,
}

/// The plan file of plan mode at `path` with its `content` (which may end with a note saying
/// what was cut).
pub fn plan_file_reference_text(path: &str, content: &str) -> String {
    format!(
        "A plan file exists from plan mode at: {path}\n\nPlan contents:\n\n{content}\n\nIf this plan is relevant to the current work and not already complete, continue working on it."
    )
}

/// The skills invoked in this session, each with its prompt, so the model keeps following them.
pub fn invoked_skills_text(skills: &[InvokedSkill]) -> String {
    let sections = skills
        .iter()
        .map(|skill| {
            format!(
                "### Skill: {}\nPath: {}\n\n{}",
                skill.name,
                skill.path.display(),
                skill.content
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    format!(
        "The following skills were invoked in this session. Continue to follow these guidelines:\n\n{sections}"
    )
}

/// A file read before the compaction whose content is too large to restore.
pub fn compact_file_reference_text(path: &str) -> String {
    format!(
        "Note: {path} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
    )
}

#[cfg(test)]
#[path = "restored_context_texts_tests.rs"]
mod tests;
