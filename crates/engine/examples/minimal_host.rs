//! What a Codex fork writes to put the context engine in its turn loop: a session with two file
//! tools against an OpenAI Responses server, reminders and compaction as the engine decides
//! them, recorded in a rollout `agentctx replay` reads. Each argument is one user turn:
//!
//! ```text
//! OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_API_KEY= AGENTCTX_MODEL=gpt-5 \
//!     cargo run -p agentctx-engine --example minimal_host -- "Write notes.txt" "Read it back"
//! ```
//!
//! The tools work in the current directory; the rollout goes under `AGENTCTX_HOME` (else
//! `~/.agentctx`). Answers go to stdout; the rollout's path and the compactions to stderr.
#![expect(clippy::print_stdout, reason = "the answers go to stdout")]
#![expect(clippy::print_stderr, reason = "what the host did goes to stderr")]

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_context::EnvironmentContext;
use agentctx_context::TurnSettings;
use agentctx_engine::Action;
use agentctx_engine::CompactReason;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::PromptParts;
use agentctx_engine::RequestFailure;
use agentctx_engine::replay::AGENTCTX_ORIGINATOR;
use agentctx_engine::replay::RECORDED_TOOLS_FIELD;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelConfig;
use agentctx_model::ModelError;
use agentctx_model::ResponseEvent;
use agentctx_model::ToolSpec;
use agentctx_protocol::EventMsg;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenCountEvent;
use agentctx_protocol::TokenUsage;
use agentctx_rollout::RolloutRecorder;
use futures::StreamExt;

type Error = Box<dyn std::error::Error>;

const INSTRUCTIONS: &str = "You are a coding agent. Use the file tools; answer briefly.";

/// The two tools, as the model sees them.
const TOOLS: &str = r#"[
  {"name": "read_file", "description": "Reads a file of the working directory.", "parameters":
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
  {"name": "write_file", "description": "Writes a file of the working directory.", "parameters":
    {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
     "required": ["path", "content"]}}]"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let env = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let cwd = std::env::current_dir()?.canonicalize()?;
    let home = env("AGENTCTX_HOME").map(PathBuf::from);
    let home = home.or_else(|| Some(std::env::home_dir()?.join(".agentctx")));
    let home = home.ok_or("no home directory: set AGENTCTX_HOME")?;
    // The OpenAI preset, at `OPENAI_BASE_URL` when it is set; with no key, none is sent.
    let mut provider = ModelConfig::default().resolve_provider(&env)?.config;
    provider.env_key = provider.env_key.filter(|key| env(key).is_some());
    let model = env("AGENTCTX_MODEL").unwrap_or_else(|| "gpt-5".to_string());
    let client = HttpModelClient::new(provider, &model, &env)?;
    // As codex records them: `agentctx replay` sends them with every request it rebuilds.
    let instructions = serde_json::json!({ "text": INSTRUCTIONS });
    let meta = SessionMetaLine {
        cwd: Some(cwd.display().to_string()),
        originator: Some(AGENTCTX_ORIGINATOR.to_string()),
        extra: serde_json::Map::from_iter([("base_instructions".to_string(), instructions)]),
        ..SessionMetaLine::default()
    };
    let rollout = RolloutRecorder::create(&home, meta)?;
    eprintln!("rollout: {}", rollout.path().display());
    let id = rollout.session_id().to_string();
    let info = client.model_info();
    let options = EngineOptions::new(&cwd, &home, &id, Default::default(), Default::default())
        .with_window(info.context_window, info.max_output_tokens);
    let mut engine = ContextEngine::new(options);
    engine.set_client(&client);
    let settings = TurnSettings {
        model,
        cwd: Some(cwd.display().to_string()),
        ..TurnSettings::default()
    };
    let tools = serde_json::from_str(TOOLS)?;
    let mut host = Host {
        engine,
        client,
        rollout,
        settings,
        tools,
        cwd,
        clock: 0,
    };
    for (turn, input) in std::env::args().skip(1).enumerate() {
        let answer = host.run_turn(format!("{id}-{turn}"), &input).await?;
        println!("{}", answer.unwrap_or_default());
    }
    host.engine.wait_for_background().await;
    Ok(())
}

/// What a fork has around its turn loop.
struct Host {
    engine: ContextEngine,
    client: HttpModelClient,
    rollout: RolloutRecorder,
    settings: TurnSettings,
    tools: Vec<ToolSpec>,
    cwd: PathBuf,
    /// Model requests made in the session: the reminders' clock.
    clock: i32,
}

impl Host {
    /// One user turn; returns the model's last answer.
    async fn run_turn(&mut self, turn_id: String, input: &str) -> Result<Option<String>, Error> {
        // 1. Before the turn: the engine says whether to compact first.
        if let Some(reason) = self.engine.before_turn().compact_reason() {
            self.compact(reason).await?;
        }
        let (settings, initial) = (&self.settings, initial_context(&self.cwd));
        let start = self.engine.begin_turn(settings, turn_id, || initial, input);
        self.rollout.record_response_items(&start.context_updates)?;
        let mut turn_context = start.turn_context;
        let (field, tools) = (RECORDED_TOOLS_FIELD, serde_json::to_value(&self.tools)?);
        turn_context.extra.insert(field.to_string(), tools);
        self.record(RolloutItem::TurnContext(turn_context))?;
        self.rollout.record_response_items(&[start.user_message])?;
        let mut first_request = true;
        let answer = loop {
            self.clock += 1;
            let host = self.host_state();
            let reminders = self.engine.reminder_context(&host, first_request);
            first_request = false;
            let prepared = self.engine.prepare_request(reminders).await;
            self.rollout.record_response_items(&prepared.recorded)?;
            // 2. Before the request: send it, compact first, or fail the turn.
            let overhead = agentctx_engine::prompt_overhead_tokens(INSTRUCTIONS, &self.tools);
            let decision = self.engine.decide_request(Some(&prepared), overhead);
            match decision.action {
                Action::Send | Action::Continue => {}
                Action::Compact { reason } => {
                    self.compact(reason).await?;
                    continue;
                }
                Action::Fail(full) => return Err(format!("the context is full: {full:?}").into()),
            }
            let parts = PromptParts {
                instructions: INSTRUCTIONS.to_string(),
                tools: self.tools.clone(),
                session_id: Some(self.rollout.session_id().to_string()),
                ..PromptParts::default()
            };
            let prompt = self.engine.build_prompt(&prepared, parts);
            let (items, usage) = match stream(&self.client, prompt).await {
                Ok(response) => response,
                Err((error, output)) => {
                    // 3. After a failure: an overflow is compacted and sent again, once a turn.
                    let failure = request_failure(&error, output, decision.tokens);
                    let reason = self.engine.after_failure(failure).compact_reason();
                    self.compact(reason.ok_or(error)?).await?;
                    continue;
                }
            };
            let items = self.engine.with_readable_copies(&items);
            self.rollout.record_response_items(&items)?;
            if let Some(info) = self.engine.record_response(&items, usage.as_ref()) {
                let event = TokenCountEvent {
                    info: Some(info),
                    ..TokenCountEvent::default()
                };
                self.record(RolloutItem::EventMsg(EventMsg::TokenCount(event)))?;
            }
            let calls = items.iter().filter_map(|item| self.run_tool(item));
            let outputs: Vec<ResponseItem> = calls.collect();
            if outputs.is_empty() {
                break items.iter().rev().find_map(ResponseItem::message_text);
            }
            self.engine.record_tool_outputs(&outputs, outputs.len());
            self.rollout.record_response_items(&outputs)?;
            // 4. After the tool outputs: the engine says whether to compact in mid-turn.
            if let Some(reason) = self.engine.after_tool_outputs().compact_reason() {
                self.compact(reason).await?;
            }
        };
        self.engine.after_turn(Arc::new(self.client.clone()), false);
        self.rollout.flush()?;
        Ok(answer)
    }

    /// Compacts as the engine asked and records the `compacted` line.
    async fn compact(&mut self, reason: CompactReason) -> Result<(), Error> {
        let (host, initial) = (self.host_state(), initial_context(&self.cwd));
        let model: Option<&dyn ModelClient> = Some(&self.client);
        let compaction = self
            .engine
            .compact(model, reason, initial, INSTRUCTIONS, &host, self.clock)
            .await;
        self.record(RolloutItem::Compacted(compaction.compacted_item()))?;
        // The decision that asked for it, with what the compaction did.
        let decision = self.engine.take_decisions().pop();
        eprintln!("compacted: {}", serde_json::to_string(&decision)?);
        Ok(())
    }

    fn record(&mut self, item: RolloutItem) -> Result<(), Error> {
        Ok(self.rollout.record_items(&[item])?)
    }

    fn host_state(&self) -> HostState {
        HostState {
            requests: self.clock,
            ..HostState::default()
        }
    }

    /// Runs `item` when it is a tool call. The tools stay in the working directory and report
    /// what they read and write to the engine (changed files, what a compaction restores).
    fn run_tool(&self, item: &ResponseItem) -> Option<ResponseItem> {
        let ResponseItem::FunctionCall {
            name,
            arguments,
            call_id,
            ..
        } = item
        else {
            return None;
        };
        let output = self.file_tool(name, arguments);
        let output = output.unwrap_or_else(|error| format!("error: {error}"));
        Some(ResponseItem::function_call_output(call_id, output))
    }

    fn file_tool(&self, name: &str, arguments: &str) -> Result<String, Error> {
        let arguments: serde_json::Value = serde_json::from_str(arguments)?;
        let relative = arguments["path"].as_str().unwrap_or_default();
        let path = self.cwd.join(relative);
        // Its folder, links resolved, is in the working directory: no `..`, no absolute path.
        let folder = path.parent().ok_or("no folder")?.canonicalize()?;
        if !folder.starts_with(&self.cwd) {
            return Err(format!("{} is outside the working directory", path.display()).into());
        }
        let observer = self.engine.file_observer();
        match (name, arguments["content"].as_str()) {
            ("read_file", _) => {
                let content = std::fs::read_to_string(&path)?;
                observer.file_read(&path, &content, self.clock, None, None);
                Ok(content)
            }
            ("write_file", Some(content)) => {
                std::fs::write(&path, content)?;
                observer.file_written(&path, content, self.clock);
                Ok(format!("wrote {}", path.display()))
            }
            _ => Err(format!("no tool `{name}` taking these arguments").into()),
        }
    }
}

/// What a turn starts from (in full on the first turn and after a compaction before a turn).
fn initial_context(cwd: &Path) -> Vec<ResponseItem> {
    let environment = EnvironmentContext {
        cwd: Some(cwd.display().to_string()),
        ..EnvironmentContext::default()
    };
    vec![environment.to_response_item()]
}

/// Streams `prompt` to its end (it borrows the engine's history until then): the items and
/// usage, or the error that ended it and whether output had come before it.
async fn stream(
    client: &HttpModelClient,
    prompt: agentctx_model::Prompt<'_>,
) -> Result<(Vec<ResponseItem>, Option<TokenUsage>), (ModelError, bool)> {
    let events = client.stream(&prompt).await;
    let mut events = events.map_err(|error| (error, false))?;
    let (mut items, mut output) = (Vec::new(), false);
    while let Some(event) = events.next().await {
        let event = event.map_err(|error| (error, output))?;
        output |= !matches!(event, ResponseEvent::Created | ResponseEvent::RateLimits(_));
        match event {
            ResponseEvent::OutputItemDone(item) => items.push(item),
            // A new attempt starts over: nothing of the broken one is kept.
            ResponseEvent::AttemptAbandoned { .. } => (items, output) = (Vec::new(), false),
            ResponseEvent::Completed { token_usage, .. } => return Ok((items, token_usage)),
            _ => {}
        }
    }
    let reason = "the stream ended before the response completed".to_string();
    Err((ModelError::StreamDisconnected { reason }, output))
}

/// What the engine needs to know of a request that failed with `error` (`output`: after some
/// output came) and counted `prompt_tokens` against the window.
fn request_failure(error: &ModelError, output: bool, prompt_tokens: u64) -> RequestFailure {
    // A local server may fail so on a prompt over its window; an error it named never is that.
    let died = matches!(
        error,
        ModelError::StreamDisconnected { .. }
            | ModelError::Decode { .. }
            | ModelError::Server { .. }
    );
    RequestFailure {
        context_window_exceeded: matches!(error, ModelError::ContextWindowExceeded { .. }),
        died_before_output: died && !output,
        prompt_tokens,
    }
}
