//! A skill's own hooks: the `hooks:` of its `SKILL.md` frontmatter, run while the skill is
//! active and removed when it ends.
//!
//! Claude Code's hooks reference, "Hooks in skills and agents"
//! (<https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents>): hooks "can be defined
//! directly in skills and subagents using frontmatter. These hooks are scoped to the
//! component's lifecycle and only run when that component is active"; every hook event is
//! supported; a handler's `once` field (skills only) makes it run "only once per session", after
//! which it is removed. A skill here is active from its invocation (typed as `/name`, or the
//! model's `skill` call) to the end of that turn; its hooks join the session's configured hooks
//! for the same events, with the same matchers, timeouts and exit-code semantics, and a command
//! both configure runs once (Claude Code deduplicates identical commands).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use agentctx_skills::SkillHooksConfig;

use super::settings::ConfiguredHook;
use super::settings::HookCommand;
use super::settings::HookEvent;
use super::settings::matches;

/// One hook of an active skill.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SkillHook {
    hook: ConfiguredHook,
    /// Runs once per session (`once: true`).
    once: bool,
    /// What identifies it for `once`: the skill, the event, the matcher and the command.
    key: String,
}

/// The hooks of the skills active now, and the `once` hooks that already ran this session.
#[derive(Debug, Default)]
pub(crate) struct SkillHooks {
    active: Mutex<Vec<SkillHook>>,
    /// Shared with the scoped sets of [`SkillHooks::scoped`]: `once` holds for the session.
    once_ran: Arc<Mutex<HashSet<String>>>,
}

impl SkillHooks {
    /// An empty set sharing this one's record of the `once` hooks that ran: the hooks of a
    /// skill run by a subagent (`context: fork`) live apart from the session's active skills
    /// yet a `once` hook still runs once per session.
    pub(crate) fn scoped(&self) -> Self {
        Self {
            active: Mutex::new(Vec::new()),
            once_ran: Arc::clone(&self.once_ran),
        }
    }

    /// Adds the hooks of `skill` from its frontmatter `config`. Events we do not run, hook types
    /// other than `command` and empty commands are logged and skipped, as in settings files.
    pub(crate) fn activate(&self, skill: &str, config: &SkillHooksConfig) {
        let mut added = Vec::new();
        for (name, matchers) in config {
            let Some(event) = HookEvent::from_name(name) else {
                tracing::info!(event = %name, skill, "skill hook event not supported; skipped");
                continue;
            };
            for matcher in matchers {
                for definition in &matcher.hooks {
                    let command = definition.command.as_deref().unwrap_or_default();
                    if definition.hook_type != "command" || command.trim().is_empty() {
                        tracing::info!(kind = %definition.hook_type, skill, "skill hook skipped: only command hooks run");
                        continue;
                    }
                    let matcher_text = matcher.matcher.clone().unwrap_or_default();
                    added.push(SkillHook {
                        key: format!("{skill}\u{0}{name}\u{0}{matcher_text}\u{0}{command}"),
                        once: definition.once,
                        hook: ConfiguredHook {
                            event,
                            matcher: matcher.matcher.clone(),
                            command: HookCommand {
                                kind: definition.hook_type.clone(),
                                command: command.to_string(),
                                timeout: definition.timeout,
                                ..HookCommand::default()
                            },
                            source: format!("skill {skill}"),
                        },
                    });
                }
            }
        }
        let mut active = self.active.lock().unwrap_or_else(PoisonError::into_inner);
        for hook in added {
            // A skill invoked twice in a turn adds its hooks once.
            if !active.iter().any(|seen| seen.key == hook.key) {
                active.push(hook);
            }
        }
    }

    /// Removes the hooks of every active skill (the turn that ran them ended).
    pub(crate) fn deactivate_all(&self) {
        self.active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Whether any skill hook is active.
    pub(crate) fn is_empty(&self) -> bool {
        self.active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// The active hooks of `event` whose matcher accepts one of `subjects`, leaving out the
    /// `once` hooks that already ran; the `once` hooks returned are marked as run.
    pub(crate) fn take_matching(&self, event: HookEvent, subjects: &[&str]) -> Vec<ConfiguredHook> {
        let active = self.active.lock().unwrap_or_else(PoisonError::into_inner);
        let mut once_ran = self.once_ran.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::new();
        for hook in active.iter() {
            if hook.hook.event != event || !matches(hook.hook.matcher.as_deref(), subjects) {
                continue;
            }
            if hook.once && !once_ran.insert(hook.key.clone()) {
                continue;
            }
            out.push(hook.hook.clone());
        }
        out
    }
}

#[cfg(test)]
#[path = "skill_hooks_tests.rs"]
mod tests;
