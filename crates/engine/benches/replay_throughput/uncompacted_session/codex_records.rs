//! The records of a Codex rollout the generated session is written in: the envelope and the
//! payloads of the line types it uses, their fields in codex's order.

use serde::Serialize;

/// Codex's `{"timestamp", "type", "payload"}` envelope.
#[derive(Serialize)]
pub(super) struct Line<'a, P> {
    pub(super) timestamp: &'a str,
    #[serde(rename = "type")]
    pub(super) kind: &'a str,
    pub(super) payload: P,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Item<'a> {
    Message {
        role: &'a str,
        content: Vec<Content<'a>>,
    },
    Reasoning {
        summary: Vec<Summary<'a>>,
        encrypted_content: &'a str,
    },
    FunctionCall {
        name: &'a str,
        arguments: &'a str,
        call_id: &'a str,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Content<'a> {
    InputText { text: &'a str },
    OutputText { text: &'a str },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Summary<'a> {
    SummaryText { text: &'a str },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Event<'a> {
    UserMessage {
        message: &'a str,
        images: [(); 0],
        kind: &'a str,
    },
    AgentMessage {
        message: &'a str,
    },
    TokenCount {
        info: TokenInfo,
        rate_limits: RateLimits,
    },
}

#[derive(Serialize)]
pub(super) struct SessionMeta<'a> {
    pub(super) id: &'a str,
    pub(super) timestamp: &'a str,
    pub(super) cwd: &'a str,
    pub(super) originator: &'a str,
    pub(super) cli_version: &'a str,
    pub(super) instructions: Option<&'a str>,
    pub(super) source: &'a str,
    pub(super) model_provider: &'a str,
    pub(super) base_instructions: Text<'a>,
    pub(super) git: Git<'a>,
}

#[derive(Serialize)]
pub(super) struct Text<'a> {
    pub(super) text: &'a str,
}

#[derive(Serialize)]
pub(super) struct Git<'a> {
    pub(super) commit_hash: &'a str,
    pub(super) branch: &'a str,
    pub(super) repository_url: &'a str,
}

#[derive(Serialize)]
pub(super) struct TurnContext<'a> {
    pub(super) turn_id: &'a str,
    pub(super) cwd: &'a str,
    pub(super) approval_policy: &'a str,
    pub(super) sandbox_policy: SandboxPolicy,
    pub(super) model: &'a str,
    pub(super) effort: &'a str,
    pub(super) summary: &'a str,
    pub(super) truncation_policy: TruncationPolicy,
}

#[derive(Serialize)]
#[serde(tag = "type", rename = "workspace-write")]
pub(super) struct SandboxPolicy {
    pub(super) network_access: bool,
    pub(super) exclude_tmpdir_env_var: bool,
    pub(super) exclude_slash_tmp: bool,
}

#[derive(Serialize)]
pub(super) struct TruncationPolicy {
    pub(super) mode: &'static str,
    pub(super) limit: usize,
}

/// The arguments of codex's `shell` tool.
#[derive(Serialize)]
pub(super) struct ShellArguments<'a> {
    pub(super) command: [&'a str; 3],
    pub(super) workdir: &'a str,
    pub(super) timeout_ms: u64,
}

/// The output of codex's `shell` tool, as the model gets it (a JSON text).
#[derive(Serialize)]
pub(super) struct ShellOutput<'a> {
    pub(super) output: &'a str,
    pub(super) metadata: ShellMetadata,
}

#[derive(Serialize)]
pub(super) struct ShellMetadata {
    pub(super) exit_code: i32,
    pub(super) duration_seconds: f64,
}

/// The arguments of codex's unified `exec_command` tool.
#[derive(Serialize)]
pub(super) struct ExecArguments<'a> {
    pub(super) cmd: &'a str,
    pub(super) workdir: &'a str,
    pub(super) yield_time_ms: u64,
    pub(super) max_output_tokens: u64,
}

#[derive(Serialize)]
pub(super) struct RateLimits {
    pub(super) primary: RateLimit,
    pub(super) secondary: RateLimit,
}

#[derive(Serialize)]
pub(super) struct RateLimit {
    pub(super) used_percent: f64,
    pub(super) window_minutes: u64,
    pub(super) resets_in_seconds: u64,
}

#[derive(Serialize)]
pub(super) struct TokenInfo {
    pub(super) total_token_usage: Usage,
    pub(super) last_token_usage: Usage,
    pub(super) model_context_window: i64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(super) struct Usage {
    pub(super) input_tokens: i64,
    pub(super) cached_input_tokens: i64,
    pub(super) output_tokens: i64,
    pub(super) reasoning_output_tokens: i64,
    pub(super) total_tokens: i64,
}

impl Usage {
    pub(super) fn add(&mut self, other: &Self) {
        self.input_tokens += other.input_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.output_tokens += other.output_tokens;
        self.reasoning_output_tokens += other.reasoning_output_tokens;
        self.total_tokens += other.total_tokens;
    }
}
