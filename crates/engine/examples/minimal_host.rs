//! What a Codex fork writes to put the context engine in its turn loop: two file tools against
//! an OpenAI Responses server (`OPENAI_BASE_URL`, model `AGENTCTX_MODEL`), reminders and
//! compaction as the engine decides them, a rollout under `AGENTCTX_HOME` that `agentctx replay`
//! reads. Each argument is a user turn; answers go to stdout, what the host did to stderr:
//! `cargo run -p agentctx-engine --example minimal_host -- "Write notes.txt" "Read it back"`.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the host prints what it did"
)]

use std::path::PathBuf;

use agentctx_context::EnvironmentContext;
use agentctx_context::TurnSettings;
use std::sync::Arc;

use agentctx_engine::CompactReason;
use agentctx_engine::ContextEngine;
use agentctx_engine::EngineOptions;
use agentctx_engine::HostState;
use agentctx_engine::PromptParts;
use agentctx_engine::RequestStep;
use agentctx_engine::collect_response;
use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::ModelConfig;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_rollout::RolloutRecorder;

type Error = Box<dyn std::error::Error>;

const INSTRUCTIONS: &str = "You are a coding agent. Use the file tools; answer briefly.";

const TOOLS: &str = r#"[
  {"name": "read_file", "description": "Reads a file of the working directory.", "parameters":
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
  {"name": "write_file", "description": "Writes a file of the working directory.", "parameters":
    {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
     "required": ["path", "content"]}}]"#;

/// What a fork has around its turn loop.
struct Host {
    engine: ContextEngine,
    client: Arc<HttpModelClient>,
    rollout: RolloutRecorder,
    settings: TurnSettings,
    parts: PromptParts,
    cwd: PathBuf,
    initial: Vec<ResponseItem>, // What a turn starts from (the first, or after a compaction).
    clock: i32,                 // Model requests made in the session: the reminders' clock.
}

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
    let meta = agentctx_engine::session_meta(&cwd, INSTRUCTIONS);
    let rollout = RolloutRecorder::create(&home, meta)?;
    eprintln!("rollout: {}", rollout.path().display());
    let id = rollout.session_id().to_string();
    let info = client.model_info();
    let options = EngineOptions::new(&cwd, &home, &id, Default::default(), Default::default())
        .with_window(info.context_window, info.max_output_tokens);
    let mut engine = ContextEngine::new(options);
    engine.set_client(&client);
    let parts = PromptParts::new(INSTRUCTIONS, serde_json::from_str(TOOLS)?, &id);
    let cwd_text = Some(cwd.display().to_string());
    let environment = EnvironmentContext::from_cwd(cwd_text.clone());
    let mut host = Host {
        engine,
        client: Arc::new(client),
        rollout,
        settings: TurnSettings::new(&model, cwd_text),
        parts,
        cwd,
        initial: vec![environment.to_response_item()],
        clock: 0,
    };
    for (turn, input) in std::env::args().skip(1).enumerate() {
        let answer = host.run_turn(format!("{id}-{turn}"), &input).await?;
        println!("{}", answer.unwrap_or_default());
    }
    host.engine.wait_for_background().await;
    Ok(())
}

impl Host {
    /// One user turn; returns the model's last answer.
    async fn run_turn(&mut self, turn_id: String, input: &str) -> Result<Option<String>, Error> {
        // 1. Before the turn: the engine says whether to compact first.
        if let Some(reason) = self.engine.before_turn().compact_reason() {
            self.compact(reason).await?;
        }
        let initial = self.initial.clone();
        let mut start = (self.engine).begin_turn(&self.settings, turn_id, || initial, input);
        (self.engine).annotate_turn_context(&mut start.turn_context, Some(&self.parts.tools));
        self.rollout.record_items(&start.rollout_items())?;
        let mut first_request = true;
        let answer = loop {
            self.clock += 1;
            let host = HostState::at_request(self.clock);
            let reminders = self.engine.reminder_context(&host, first_request);
            let prepared = self.engine.prepare_request(reminders).await;
            first_request = false;
            self.rollout.record_response_items(&prepared.recorded)?;
            // 2. Before the request: send it, compact first, or fail the turn.
            let (prompt, tokens) = match self.engine.before_request(&prepared, self.parts.clone()) {
                RequestStep::Send { prompt, tokens } => (prompt, tokens),
                RequestStep::Compact(reason) => {
                    self.compact(reason).await?;
                    continue;
                }
                RequestStep::Fail(full) => return Err(format!("context full: {full:?}").into()),
            };
            let response = match collect_response(self.client.as_ref(), &prompt, |_| {}).await {
                Ok(response) => response,
                Err(failure) => {
                    // 3. After a failure: an overflow is compacted and sent again, once a turn.
                    let decision = self.engine.after_failure(failure.request_failure(tokens));
                    let reason = decision.compact_reason().ok_or(failure)?;
                    self.compact(reason).await?;
                    continue;
                }
            };
            let items = self.engine.with_readable_copies(&response.items);
            self.rollout.record_response_items(&items)?;
            let info = self.engine.record_response(&items, response.usage.as_ref());
            self.rollout
                .record_items(info.map(RolloutItem::token_count).as_slice())?;
            let mut outputs = Vec::new();
            for (call_id, name, arguments) in response.function_calls() {
                let output = self.run_tool(&name, &arguments);
                let output = output.unwrap_or_else(|error| format!("error: {error}"));
                outputs.push(ResponseItem::function_call_output(call_id, output));
            }
            if outputs.is_empty() {
                break response.last_assistant_text();
            }
            self.engine.record_tool_outputs(&outputs, outputs.len());
            self.rollout.record_response_items(&outputs)?;
            // 4. After the tool outputs: the engine says whether to compact in mid-turn.
            if let Some(reason) = self.engine.after_tool_outputs().compact_reason() {
                self.compact(reason).await?;
            }
        };
        self.engine.after_turn(self.client.clone(), false);
        self.rollout.flush()?;
        Ok(answer)
    }

    /// Compacts as the engine asked, records the `compacted` line and says what it did.
    async fn compact(&mut self, reason: CompactReason) -> Result<(), Error> {
        let (host, initial) = (HostState::at_request(self.clock), self.initial.clone());
        let client = Some(self.client.as_ref() as &dyn ModelClient);
        let compaction =
            (self.engine).compact(client, reason, initial, INSTRUCTIONS, &host, host.requests);
        let compacted = RolloutItem::Compacted(compaction.await.compacted_item());
        self.rollout.record_items(&[compacted])?;
        let decision = self.engine.take_decisions().pop(); // The one that asked for it.
        eprintln!("compacted: {}", serde_json::to_string(&decision)?);
        Ok(())
    }

    /// Runs a tool in the working directory; the tools tell the engine what they read and
    /// write (changed files, what a compaction restores).
    fn run_tool(&self, name: &str, arguments: &str) -> Result<String, Error> {
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
