//! [`SubagentExecutor`]: runs one subagent, from its initial messages to its final report.
//!
//! Its initial messages put the agent's `critical_system_reminder` right after its system
//! prompt, drop the parent's reminders from any parent messages it is handed, then add the task.
//! It runs its own context engine: before each of its requests only core-tier reminders run
//! (`is_main_agent` and `has_user_input` false), on its own file tracker and throttle, which its
//! file tools report to. See docs/design/core.md, "Subagents".

use std::sync::Arc;
use std::sync::Mutex;

use agentctx_engine::Action;
use agentctx_engine::CompactConfig;
use agentctx_engine::ContextEngine;
use agentctx_engine::HostState;
use agentctx_engine::PromptParts;
use agentctx_engine::prompt_overhead_tokens;
use agentctx_model::ModelClient;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::XmlTag;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::filter_system_reminders;
use async_trait::async_trait;

use super::AgentDefinition;
use super::AgentTools;
use super::SubagentOverrides;
use super::SubagentRunner;
use crate::hooks_ext::HooksExt;
use crate::hooks_ext::SkillHookHost;
use crate::model_switch::ModelResolver;
use crate::model_switch::ModelSwitchError;
use crate::session_state::SessionState;
use crate::slash_commands_ext::ToolLimit;
use crate::tools::ToolContext;
use crate::tools::ToolRegistry;
use crate::turn_stream::run_tool_calls;
use crate::turn_stream::stream_response;

/// Runs one subagent.
pub struct SubagentExecutor {
    definition: AgentDefinition,
    model: Arc<dyn ModelClient>,
    config: SystemReminderConfig,
    /// The session's `[compact]` settings (the engine scales them to the agent's window).
    compact: CompactConfig,
    thinking: crate::thinking_ext::ThinkingOptions,
    /// Cuts the agent's tools (a forked skill's `allowed-tools`).
    tool_limit: Option<ToolLimit>,
    /// Run for its tool calls and its end (a forked skill's hooks).
    hooks: Option<HooksExt>,
}

impl std::fmt::Debug for SubagentExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubagentExecutor")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

impl SubagentExecutor {
    /// An executor for `definition` on `model`, with the session's reminder config.
    pub fn new(
        definition: AgentDefinition,
        model: Arc<dyn ModelClient>,
        config: SystemReminderConfig,
    ) -> Self {
        Self {
            config,
            compact: CompactConfig::default(),
            definition,
            model,
            thinking: Default::default(),
            tool_limit: None,
            hooks: None,
        }
    }

    /// The run's tools are the agent's cut to `limit` (a forked skill's `allowed-tools`): a
    /// tool the agent lacks is not added, and a call to a tool cut off is refused.
    pub(crate) fn with_tool_limit(mut self, limit: ToolLimit) -> Self {
        self.tool_limit = Some(limit);
        self
    }

    /// `hooks` run around the run's tool calls (`PreToolUse`, `PostToolUse`) and when it ends
    /// (`SubagentStop`: a block makes it go on with the hook's reason as its next message).
    pub(crate) fn with_hooks(mut self, hooks: HooksExt) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The session's thinking settings: the run's requests think at the level they give for
    /// its task (a keyword in the task counts, as in the user's message).
    pub(crate) fn with_thinking(mut self, thinking: crate::thinking_ext::ThinkingOptions) -> Self {
        self.thinking = thinking;
        self
    }

    /// The session's `[compact]` settings: the run compacts as its parent does, at thresholds
    /// scaled to its own model's window.
    pub(crate) fn with_compact_config(mut self, compact: CompactConfig) -> Self {
        self.compact = compact;
        self
    }

    /// Compacts the run's history with its model, the agent's system prompt and critical
    /// reminder put back before the task when it runs in the middle of the run.
    async fn compact(
        &self,
        engine: &mut ContextEngine,
        reason: agentctx_engine::CompactReason,
        initial_context: &[ResponseItem],
        instructions: &str,
        host: &HostState,
    ) {
        let compaction = engine
            .compact(
                Some(self.model.as_ref()),
                reason,
                initial_context.to_vec(),
                instructions,
                host,
                host.requests,
            )
            .await;
        tracing::info!(
            agent = %self.definition.name,
            ?reason,
            before = compaction.tokens_before,
            after = compaction.tokens_after,
            "subagent compacted"
        );
    }

    /// The agent.
    pub fn definition(&self) -> &AgentDefinition {
        &self.definition
    }

    /// The messages a run starts from: the system prompt, the critical system reminder, the
    /// parent messages without the parent's reminders, then the task prompt.
    pub fn build_initial_messages(
        &self,
        parent_messages: &[ResponseItem],
        prompt: &str,
    ) -> Vec<ResponseItem> {
        let mut messages = Vec::new();
        if let Some(system_prompt) = &self.definition.system_prompt {
            messages.push(ResponseItem::text_message("system", system_prompt.clone()));
        }
        if let Some(reminder) = &self.definition.critical_system_reminder {
            let mut item = ResponseItem::user_text(XmlTag::SystemReminder.wrap(reminder));
            item.set_injected(true);
            messages.push(item);
        }
        messages.extend(filter_system_reminders(parent_messages));
        messages.push(ResponseItem::user_text(prompt));
        messages
    }

    fn tools(&self) -> ToolRegistry {
        let own = match self.definition.tools {
            AgentTools::ReadOnly => ToolRegistry::read_only(),
        };
        match &self.tool_limit {
            Some(limit) => limit.apply(&own),
            None => own,
        }
    }

    /// Runs the agent on `prompt` with the parent's working directory and approvals; returns its
    /// last message.
    ///
    /// The subagent runs its own context engine (`agentctx-engine`), as the session does: its
    /// history and usage, its reminders (core tier only: `is_main_agent` and `has_user_input`
    /// false) on its own file tracker and throttle, which its file tools report to, and
    /// micro-compaction of its old tool results. Nothing it does reaches the parent's reminders,
    /// and the parent's never reach it.
    pub async fn run(&self, prompt: &str, parent: &ToolContext) -> Result<String, String> {
        // The session's configuration, scaled by the engine to the subagent's model window.
        let options = crate::engine_ext::engine_options(
            self.model.as_ref(),
            &parent.cwd,
            &parent.home,
            &format!("subagent-{}", self.definition.name),
            &self.config,
            &self.compact,
        );
        let mut engine = ContextEngine::new(options);
        engine.set_main_agent(false);
        let initial = self.build_initial_messages(&[], prompt);
        // What a compaction in the middle of the run puts back before the task: the agent's
        // system prompt and critical reminder.
        let initial_context: Vec<ResponseItem> = initial
            .iter()
            .take(initial.len().saturating_sub(1))
            .cloned()
            .collect();
        engine.record_items(&initial);
        if let Some(hooks) = &self.hooks {
            // `SubagentStart`: what its hooks give is the subagent's context from the start.
            let context: Vec<ResponseItem> = hooks
                .subagent_start()
                .await
                .into_iter()
                .map(|text| {
                    ResponseItem::user_text(format!(
                        "<system-reminder>\nSubagentStart hook additional context: {text}\n</system-reminder>"
                    ))
                })
                .collect();
            engine.record_items(&context);
        }
        let mut tools = self.tools();
        if let Some(hooks) = &self.hooks {
            hooks.install(&mut tools, &mut engine);
        }
        engine.set_tool_classes(tools.tool_classes());
        let reasoning = crate::thinking_ext::turn_thinking(
            &self.thinking,
            agentctx_model::thinking::ThinkingState::new(),
            prompt,
            self.model.as_ref(),
        )
        .reasoning;
        engine.set_reasoning(reasoning);
        let ctx = ToolContext {
            state: Arc::new(Mutex::new(SessionState::default())),
            observers: vec![engine.file_observer()],
            events: None,
            subagents: None,
            ..parent.clone()
        };
        // The parent's plan mode holds for the subagent: it gets the sub-agent plan-mode text
        // (read-only, the parent's plan file) while the parent plans.
        let plan = {
            let state = parent.state();
            agentctx_engine::HostPlan {
                active: state.plan.active,
                plan_file: state.plan.plan_file.clone(),
                entered_before: false,
                just_exited: false,
            }
        };
        let instructions = self.definition.system_prompt.clone().unwrap_or_default();
        let mut last = None;
        let mut stop_hook_active = false;
        let mut requests = 0;
        while requests < self.definition.max_requests {
            requests += 1;
            let host = HostState {
                requests: i32::try_from(requests).unwrap_or(i32::MAX),
                todo_tool_available: false,
                plan: plan.clone(),
                ..HostState::default()
            };
            let reminders = engine.reminder_context(&host, false);
            let prepared = engine.prepare_request(reminders).await;
            let parts = PromptParts {
                instructions: instructions.clone(),
                tools: tools.specs(),
                reasoning,
                session_id: None,
            };
            let overhead = prompt_overhead_tokens(&parts.instructions, &parts.tools);
            let decision = engine.decide_request(Some(&prepared), overhead);
            match decision.action {
                Action::Send | Action::Continue => {}
                Action::Compact { reason } => {
                    // Compacted, the same request is prepared again (it does not count).
                    requests -= 1;
                    self.compact(&mut engine, reason, &initial_context, &instructions, &host)
                        .await;
                    continue;
                }
                Action::Fail(full) => {
                    return Err(format!(
                        "the agent's context is full: {} tokens at a limit of {} (a {}-token window)",
                        full.prompt_tokens, full.limit, full.window_tokens
                    ));
                }
            }
            let prompt = engine.build_prompt(&prepared, parts);
            let streamed =
                stream_response(self.model.as_ref(), &prompt, None, &parent.cancel).await;
            drop(prompt);
            let response = match streamed {
                Ok(Some(response)) => response,
                Ok(None) => return Err("cancelled".to_string()),
                Err(failure) => {
                    let overflow = engine.after_failure(failure.request_failure(decision.tokens));
                    let Some(reason) = overflow.compact_reason() else {
                        return Err(failure.to_string());
                    };
                    requests -= 1;
                    self.compact(&mut engine, reason, &initial_context, &instructions, &host)
                        .await;
                    continue;
                }
            };
            engine.record_response(&response.items, response.usage.as_ref());
            if let Some(text) = response.last_assistant_text() {
                last = Some(text);
            }
            let calls = response.function_calls();
            if calls.is_empty() {
                if let Some(hooks) = &self.hooks
                    && let Some(reason) = hooks
                        .subagent_stop_blocked(
                            last.as_deref().unwrap_or_default(),
                            stop_hook_active,
                        )
                        .await
                {
                    // Claude Code: a blocked `SubagentStop` keeps the subagent running, the
                    // reason its next instruction.
                    stop_hook_active = true;
                    engine.record_items(&[ResponseItem::user_text(reason)]);
                    continue;
                }
                return last.ok_or_else(|| "the agent ended without a report".to_string());
            }
            let results = run_tool_calls(&tools, &ctx, &calls).await;
            let outputs: Vec<ResponseItem> = results.into_iter().map(|(item, _)| item).collect();
            engine.record_tool_outputs(&outputs, outputs.len());
            // A long run compacts in its middle, as its parent does.
            if let Some(reason) = engine.after_tool_outputs().compact_reason() {
                self.compact(&mut engine, reason, &initial_context, &instructions, &host)
                    .await;
            }
        }
        last.ok_or_else(|| {
            format!(
                "the agent made {} requests without a report",
                self.definition.max_requests
            )
        })
    }
}

/// The subagents of a session: the built-in agents on the session's model.
pub(crate) struct Subagents {
    definitions: Vec<AgentDefinition>,
    model: Arc<dyn ModelClient>,
    config: SystemReminderConfig,
    /// The session's `[compact]` settings.
    compact: CompactConfig,
    thinking: crate::thinking_ext::ThinkingOptions,
    /// Resolves a run's own model (a forked skill's `model`).
    resolver: Option<Arc<dyn ModelResolver>>,
    /// Runs a forked skill's hooks.
    hooks: Option<SkillHookHost>,
}

impl std::fmt::Debug for Subagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subagents")
            .field("definitions", &self.definitions)
            .finish_non_exhaustive()
    }
}

impl Subagents {
    /// The built-in Explore and Plan agents.
    pub(crate) fn builtin(model: Arc<dyn ModelClient>, config: SystemReminderConfig) -> Self {
        Self {
            definitions: AgentDefinition::builtin(),
            model,
            config,
            compact: CompactConfig::default(),
            thinking: Default::default(),
            resolver: None,
            hooks: None,
        }
    }

    /// Resolves the model a run asks for ([`SubagentOverrides::model`]), as `/model` does
    /// (`None`: only the session's own model can run).
    pub(crate) fn with_model_resolver(mut self, resolver: Option<Arc<dyn ModelResolver>>) -> Self {
        self.resolver = resolver;
        self
    }

    /// Runs the hooks a run brings ([`SubagentOverrides::hooks`]) through the session's.
    pub(crate) fn with_skill_hooks(mut self, hooks: SkillHookHost) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The client of `slug`: the session's model, else resolved through the resolver.
    async fn resolve_model(&self, slug: &str) -> Result<Arc<dyn ModelClient>, ModelSwitchError> {
        let slug = slug.trim();
        if slug == self.model.slug() {
            return Ok(Arc::clone(&self.model));
        }
        let resolver = self.resolver.as_ref().ok_or(ModelSwitchError::NoResolver)?;
        Ok(resolver.resolve(slug).await?.client)
    }

    /// The session's thinking settings, handed to every run (see
    /// [`SubagentExecutor::with_thinking`]).
    pub(crate) fn with_thinking(mut self, thinking: crate::thinking_ext::ThinkingOptions) -> Self {
        self.thinking = thinking;
        self
    }

    /// The session's `[compact]` settings, handed to every run (see
    /// [`SubagentExecutor::with_compact_config`]).
    pub(crate) fn with_compact_config(mut self, compact: CompactConfig) -> Self {
        self.compact = compact;
        self
    }

    /// The executor of the agent named `name` (case-insensitive).
    pub(crate) fn executor(&self, name: &str) -> Option<SubagentExecutor> {
        self.definitions
            .iter()
            .find(|definition| definition.name.eq_ignore_ascii_case(name))
            .map(|definition| {
                SubagentExecutor::new(
                    definition.clone(),
                    Arc::clone(&self.model),
                    self.config.clone(),
                )
                .with_compact_config(self.compact.clone())
                .with_thinking(self.thinking.clone())
            })
    }
}

#[async_trait]
impl SubagentRunner for Subagents {
    fn agents(&self) -> Vec<AgentDefinition> {
        self.definitions.clone()
    }

    async fn run_with(
        &self,
        agent: &str,
        prompt: &str,
        parent: &ToolContext,
        overrides: &SubagentOverrides,
    ) -> Result<String, String> {
        let Some(mut executor) = self.executor(agent) else {
            let names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
            return Err(format!(
                "unknown agent {agent}; available: {}",
                names.join(", ")
            ));
        };
        if let Some(slug) = &overrides.model {
            executor.model = self
                .resolve_model(slug)
                .await
                .map_err(|error| error.to_string())?;
        }
        if let Some(limit) = &overrides.tool_limit {
            executor = executor.with_tool_limit(limit.clone());
        }
        if let Some(scoped) = &overrides.hooks {
            let Some(host) = &self.hooks else {
                return Err(format!(
                    "the hooks of `{}` cannot run here (no session hooks)",
                    scoped.owner
                ));
            };
            executor = executor.with_hooks(host.for_skill(&scoped.owner, &scoped.config));
        } else if let Some(host) = &self.hooks {
            // The session's hooks run in the subagent too (`SubagentStart`, its tool calls,
            // `SubagentStop`), with its `agent_id` and `agent_type`.
            let agent_type = executor.definition.name.clone();
            executor = executor.with_hooks(host.for_agent(&agent_type));
        }
        executor.run(prompt, parent).await
    }
}
