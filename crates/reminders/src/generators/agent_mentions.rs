//! Agent mentions (`agent_mentions`): the user asked for an agent with
//! `@agent-<type>`.

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The prefix of an agent mention.
pub(crate) const AGENT_MENTION_PREFIX: &str = "@agent-";

/// The agent types mentioned in `prompt`, in order, each once. A mention starts a word
/// (`@agent-search`, not `me@agent-x`); trailing sentence punctuation is not part of the type.
pub(crate) fn parse_agent_mentions(prompt: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(rest) = word.strip_prefix(AGENT_MENTION_PREFIX) else {
            continue;
        };
        let agent_type = rest
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')))
            .next()
            .unwrap_or_default()
            .trim_end_matches(['.', ':', '-']);
        if !agent_type.is_empty() && !found.iter().any(|known| known == agent_type) {
            found.push(agent_type.to_string());
        }
    }
    found
}

/// The reminder for one mentioned agent type.
pub(crate) fn render_agent_mention(agent_type: &str) -> String {
    format!(
        "The user has expressed a desire to invoke the agent \"{agent_type}\". Please invoke the agent appropriately, passing in the required context to it. "
    )
}

/// Generates agent mention reminders.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct AgentMentionsGenerator;

impl AgentMentionsGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        let Some(prompt) = ctx.user_prompt.as_deref() else {
            return Ok(None);
        };
        let mentions = parse_agent_mentions(prompt);
        if mentions.is_empty() {
            return Ok(None);
        }
        let content = mentions
            .iter()
            .map(|agent_type| render_agent_mention(agent_type))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Some(SystemReminder::new(
            AttachmentType::AgentMentions,
            content,
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for AgentMentionsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::AgentMentions
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "agent_mentions_tests.rs"]
mod tests;
