//! Claude Code transcripts shaped like real long sessions, for `report_long_sessions`.
//!
//! No real long session ships with the crate, so this writes transcripts in the line format of
//! the bundled Claude Code sample (`examples/sessions/claude-code/`, Claude Code 2.x): `user`
//! and `assistant` records linked by `uuid` / `parentUuid`, one content block per assistant
//! record (the records of one response share its `message.id` and `requestId`, the last one
//! carrying the final output count), `tool_use` and `tool_result` blocks with the
//! `toolUseResult` Claude Code keeps beside them, `progress` and `turn_duration` bookkeeping, and
//! where Claude Code compacted, its `compact_boundary` record and the `isCompactSummary` user
//! record after it.
//!
//! The shapes follow measured sessions: a request every few seconds to a minute, a few pauses
//! longer than the prompt cache's five minutes, tool results of the sizes real tools return
//! (file reads of 2,000 to 20,000 tokens, shell outputs of 500 to 5,000, greps, globs, edits,
//! todo lists), and usage as Anthropic bills it: each request reads the previous prompt from the
//! cache when the previous request is less than five minutes old (else nothing), writes the rest
//! to it, sends a few tokens uncached and generates 100 to 2,000 tokens, of which the visible
//! text and tool calls stay in the history. A session's tokens are its texts at
//! [`BYTES_PER_TOKEN`] (code tokenizes denser than the 4 bytes per token the engine estimates,
//! so the engine's estimate of what a tier removes is, as on real sessions, a little below what
//! the provider counted), plus the system prompt and tool schemas a transcript does not hold.
//!
//! Everything is drawn from a seeded linear congruential generator: the same shape writes the
//! same bytes.

use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;

use serde_json::Value;
use serde_json::json;

use self::texts::FILES;
use self::texts::Lcg;
use self::texts::TYPES;
use self::texts::WORDS;
use self::texts::file_text;
use self::texts::grep_text;
use self::texts::prose;
use self::texts::shell_text;
use self::texts::tokens_of;

mod texts;

/// Bytes of text per token as the provider counts them.
pub(super) const BYTES_PER_TOKEN: f64 = 3.6;
/// Tokens the provider counts for a content block's framing.
const BLOCK_TOKENS: u64 = 8;
/// The prompt cache's lifetime, in milliseconds.
const CACHE_TTL_MS: u64 = 5 * 60 * 1_000;
/// The Claude Code version the records name.
const VERSION: &str = "2.1.37";

/// A session to write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// The session id and the file's stem.
    pub(crate) session_id: &'static str,
    /// `message.model` of every response.
    pub(crate) model: &'static str,
    /// The working directory.
    pub(crate) cwd: &'static str,
    /// Model requests (assistant responses).
    pub(crate) requests: usize,
    /// The largest prompt a request sends, in tokens.
    pub(crate) peak_tokens: u64,
    /// Claude Code's auto-compaction: a request whose prompt would pass this many tokens is
    /// preceded by a compaction. The peak is then reached at request
    /// `peak_share × requests` and the history starts again from the summary.
    pub(crate) compact_above: Option<u64>,
    /// Where the peak is reached, as a share of the requests (1.0: at the end).
    pub(crate) peak_share: f64,
    /// Pauses between turns longer than the cache's lifetime.
    pub(crate) pauses: usize,
    /// The generator's seed.
    pub(crate) seed: u64,
    /// The first record's time, in milliseconds since the epoch.
    pub(crate) start_ms: i64,
}

/// What a written session holds, as the provider counted it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Written {
    /// The factor the varying tool results were scaled by to reach the peak (near 1: the
    /// sizes stay in their ranges).
    pub(crate) scale: f64,
    pub(crate) requests: usize,
    pub(crate) peak_tokens: u64,
    pub(crate) input_tokens: u64,
    pub(crate) compactions: usize,
    pub(crate) long_pauses: usize,
}

/// What a tool call of the plan does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Read,
    Bash,
    Grep,
    Glob,
    Edit,
    TodoWrite,
}

/// One model request of the plan: a tool call and its result's size, or the turn's answer.
#[derive(Debug, Clone, Copy)]
struct Step {
    tool: Option<Tool>,
    /// The result's tokens (before scaling, for the sizes that scale).
    result_tokens: u64,
    /// Output tokens the response generates, and of them the visible ones.
    output_tokens: u64,
    visible_tokens: u64,
    /// Seconds the model takes to answer, and the tool to run.
    think_ms: u64,
    run_ms: u64,
}

/// A user turn of the plan.
#[derive(Debug, Clone)]
struct Turn {
    prompt_tokens: u64,
    /// Milliseconds from the previous turn's end to its prompt.
    gap_ms: u64,
    steps: Vec<Step>,
}

/// Plans `shape`'s turns: tool calls of realistic sizes, the big ones scaled so the history
/// reaches the peak where the shape wants it.
fn plan(shape: &Shape, rng: &mut Lcg, overhead: u64) -> (Vec<Turn>, f64) {
    // How much each request adds on average to reach the peak.
    let peak_request = ((shape.requests as f64 * shape.peak_share) as usize).max(1);
    let growth = shape.peak_tokens.saturating_sub(overhead) / peak_request as u64;
    // Small steps add about 400 tokens with the response; a read about 7,000, a shell output
    // or a grep about 1,800: the share of reads that reaches the growth.
    let read_percent = (growth.saturating_sub(400 + 450) * 100 / 6_600).clamp(2, 40);
    let mut turns = Vec::new();
    let mut planned = 0;
    while planned < shape.requests {
        let length = rng.low_range(3, 24) as usize;
        let length = length.min(shape.requests - planned);
        let mut steps = Vec::with_capacity(length);
        for index in 0..length {
            let last = index + 1 == length;
            let roll = rng.range(0, 99);
            let (tool, result_tokens) = if last {
                (None, 0)
            } else if roll < read_percent {
                (Some(Tool::Read), rng.low_range(2_000, 20_000))
            } else if roll < read_percent + 18 {
                (Some(Tool::Bash), rng.low_range(500, 5_000))
            } else if roll < read_percent + 28 {
                (Some(Tool::Grep), rng.low_range(300, 3_000))
            } else if roll < read_percent + 38 {
                (Some(Tool::Bash), rng.range(40, 400))
            } else if roll < read_percent + 45 {
                (Some(Tool::Glob), rng.range(80, 600))
            } else if roll < read_percent + 80 {
                (Some(Tool::Edit), rng.range(150, 700))
            } else {
                (Some(Tool::TodoWrite), rng.range(60, 160))
            };
            let output_tokens = rng.low_range(100, 2_000);
            let visible_tokens = if tool == Some(Tool::Edit) {
                (output_tokens * 3 / 4).max(80)
            } else {
                rng.range(40, 120).min(output_tokens)
            };
            steps.push(Step {
                tool,
                result_tokens,
                output_tokens,
                visible_tokens,
                think_ms: rng.low_range(2_000, 60_000),
                run_ms: rng.low_range(150, 12_000),
            });
        }
        planned += length;
        turns.push(Turn {
            prompt_tokens: rng.low_range(20, 400),
            gap_ms: rng.low_range(15_000, 240_000),
            steps,
        });
    }
    // The pauses: turns spread over the session, each after more than the cache's lifetime.
    let count = turns.len();
    for pause in 0..shape.pauses {
        let turn = (pause + 1) * count / (shape.pauses + 1);
        if let Some(turn) = turns.get_mut(turn.max(1)) {
            turn.gap_ms = rng.range(6 * 60_000, 45 * 60_000);
        }
    }
    // Scale the sizes that vary (reads, long shell outputs, greps) so the history before the
    // peak request adds what reaches the peak.
    let mut fixed = 0u64;
    let mut varying = 0u64;
    let mut seen = 0;
    'turns: for turn in &turns {
        fixed += turn.prompt_tokens + BLOCK_TOKENS;
        for step in &turn.steps {
            if seen == peak_request {
                break 'turns;
            }
            seen += 1;
            fixed += step.visible_tokens + 2 * BLOCK_TOKENS;
            match step.tool {
                Some(Tool::Read | Tool::Grep) => varying += step.result_tokens,
                Some(Tool::Bash) if step.result_tokens >= 500 => varying += step.result_tokens,
                Some(_) => fixed += step.result_tokens,
                None => {}
            }
        }
    }
    let wanted = shape.peak_tokens.saturating_sub(overhead + fixed);
    let scale = wanted as f64 / varying.max(1) as f64;
    for step in turns.iter_mut().flat_map(|turn| turn.steps.iter_mut()) {
        let varies = matches!(step.tool, Some(Tool::Read | Tool::Grep))
            || (step.tool == Some(Tool::Bash) && step.result_tokens >= 500);
        if varies {
            step.result_tokens = ((step.result_tokens as f64 * scale) as u64).max(50);
        }
    }
    (turns, scale)
}

/// Writes the records of one session.
struct Writer<'a> {
    shape: &'a Shape,
    rng: Lcg,
    lines: Vec<String>,
    parent: Option<String>,
    now_ms: i64,
    /// The history as the provider counts it: the system prompt and tools, and every record
    /// the model sees.
    context: u64,
    overhead: u64,
    /// The last request: when, and its prompt.
    last_request: Option<(i64, u64)>,
    written: Written,
    /// Since the last compaction the history holds only the summary: a cache read after it
    /// finds only the system prompt and tools.
    compacted: bool,
}

impl Writer<'_> {
    fn timestamp(&self) -> String {
        chrono::DateTime::from_timestamp_millis(self.now_ms)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }

    /// A record with the fields every conversation record carries, then `fields`.
    fn record(&mut self, kind: &str, fields: Value) -> String {
        let uuid = self.rng.uuid();
        let mut line = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": self.shape.cwd,
            "sessionId": self.shape.session_id,
            "version": VERSION,
            "gitBranch": "main",
            "type": kind,
        });
        for (key, value) in fields.as_object().unwrap() {
            line[key] = value.clone();
        }
        line["uuid"] = json!(uuid);
        line["timestamp"] = json!(self.timestamp());
        self.lines.push(line.to_string());
        self.parent = Some(uuid.clone());
        uuid
    }

    fn user_prompt(&mut self, tokens: u64) {
        let text = prose(&mut self.rng, tokens);
        self.context += tokens_of(&text) + BLOCK_TOKENS;
        self.record(
            "user",
            json!({
                "message": {"role": "user", "content": text},
                "permissionMode": "acceptEdits",
            }),
        );
    }

    /// The usage of a request whose prompt is the history now.
    fn usage(&mut self, output_tokens: u64) -> Value {
        let prompt = self.context;
        let uncached = self.rng.range(1, 10).min(prompt);
        let cached = match self.last_request {
            Some((at, previous)) if (self.now_ms - at) as u64 <= CACHE_TTL_MS => {
                if self.compacted {
                    self.overhead
                } else {
                    previous
                }
            }
            Some((_, _)) => {
                self.written.long_pauses += 1;
                0
            }
            None => 0,
        }
        .min(prompt - uncached);
        let write = prompt - uncached - cached;
        self.compacted = false;
        self.last_request = Some((self.now_ms, prompt));
        self.written.requests += 1;
        self.written.peak_tokens = self.written.peak_tokens.max(prompt);
        self.written.input_tokens += prompt;
        json!({
            "input_tokens": uncached,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": cached,
            "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
            "output_tokens": output_tokens,
            "service_tier": "standard",
        })
    }

    /// One response: a short text record, then the tool call (or the answer) with the final
    /// output count. Returns the tool call's id.
    fn response(&mut self, step: &Step, file: &str) -> Option<String> {
        let message_id = format!("msg_01{}", self.rng.base62(22));
        let request_id = format!("req_011C{}", self.rng.base62(18));
        let usage = self.usage(step.output_tokens);
        let record = |writer: &mut Self, block: Value, stop: Value, output: u64| {
            let mut usage = usage.clone();
            usage["output_tokens"] = json!(output);
            writer.record(
                "assistant",
                json!({
                    "message": {
                        "model": writer.shape.model,
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "content": [block],
                        "stop_reason": stop,
                        "stop_sequence": null,
                        "usage": usage,
                    },
                    "requestId": request_id,
                }),
            );
        };
        self.now_ms += step.think_ms as i64;
        let Some(tool) = step.tool else {
            let text = prose(&mut self.rng, step.visible_tokens);
            self.context += tokens_of(&text) + BLOCK_TOKENS;
            record(
                self,
                json!({"type": "text", "text": text}),
                json!("end_turn"),
                step.output_tokens,
            );
            return None;
        };
        let lead = prose(&mut self.rng, 20);
        self.context += tokens_of(&lead) + BLOCK_TOKENS;
        let early_output = self.rng.range(2, 12);
        record(
            self,
            json!({"type": "text", "text": lead}),
            Value::Null,
            early_output,
        );
        let path = format!("{}/{file}", self.shape.cwd);
        let input = match tool {
            Tool::Read => json!({"file_path": path}),
            Tool::Bash => json!({
                "command": self.rng.pick(&[
                    "cargo test --workspace 2>&1 | tail -n 400",
                    "cargo build 2>&1",
                    "git status --short && git log --oneline -20",
                    "cargo clippy --all-targets 2>&1",
                    "ledgerd report balance --period 2025",
                ]),
                "description": "Run the checks",
            }),
            Tool::Grep => json!({
                "pattern": format!("fn {}|{}", self.rng.pick(&WORDS), self.rng.pick(&TYPES)),
                "path": "src",
                "output_mode": "content",
                "-n": true,
            }),
            Tool::Glob => json!({"pattern": "**/*.rs"}),
            Tool::Edit => {
                let tokens = step.visible_tokens / 2;
                json!({
                    "file_path": path,
                    "old_string": file_text(&mut self.rng, tokens),
                    "new_string": file_text(&mut self.rng, tokens),
                })
            }
            Tool::TodoWrite => json!({"todos": [
                {"content": "Fix the import", "status": "completed", "activeForm": "Fixing the import"},
                {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
            ]}),
        };
        let name = match tool {
            Tool::Read => "Read",
            Tool::Bash => "Bash",
            Tool::Grep => "Grep",
            Tool::Glob => "Glob",
            Tool::Edit => "Edit",
            Tool::TodoWrite => "TodoWrite",
        };
        let id = format!("toolu_01{}", self.rng.base62(22));
        self.context += tokens_of(&input.to_string()) + BLOCK_TOKENS;
        self.now_ms += 400;
        record(
            self,
            json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            json!("tool_use"),
            step.output_tokens,
        );
        Some(id)
    }

    /// The tool's result, as Claude Code records it.
    fn tool_result(&mut self, step: &Step, id: &str, file: &str) {
        let Some(tool) = step.tool else {
            return;
        };
        self.now_ms += step.run_ms as i64;
        let path = format!("{}/{file}", self.shape.cwd);
        let (content, extra) = match tool {
            Tool::Read => {
                let text = file_text(&mut self.rng, step.result_tokens);
                let lines = text.lines().count();
                let extra = json!({"type": "text", "file": {
                    "filePath": path, "content": text, "numLines": lines, "startLine": 1, "totalLines": lines,
                }});
                (text, extra)
            }
            Tool::Bash => {
                let text = shell_text(&mut self.rng, step.result_tokens);
                let extra = json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false});
                (text, extra)
            }
            Tool::Grep => {
                let text = grep_text(&mut self.rng, step.result_tokens);
                let lines = text.lines().count();
                (text, json!({"mode": "content", "numFiles": 0, "filenames": [], "content": "", "numLines": lines}))
            }
            Tool::Glob => {
                let mut text = String::new();
                while tokens_of(&text) < step.result_tokens {
                    let _ = writeln!(text, "{}/{}", self.shape.cwd, self.rng.pick(&FILES));
                }
                (text, json!({"numFiles": 14, "truncated": false}))
            }
            Tool::Edit => {
                let snippet = file_text(&mut self.rng, step.result_tokens);
                (
                    format!("The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}"),
                    json!({"filePath": path, "userModified": false, "replaceAll": false}),
                )
            }
            Tool::TodoWrite => (
                "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable".to_string(),
                json!({"oldTodos": [], "newTodos": []}),
            ),
        };
        self.context += tokens_of(&content) + BLOCK_TOKENS;
        let parent = self.parent.clone();
        let progress = self.rng.uuid();
        self.lines.push(
            json!({
                "type": "progress",
                "data": {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": format!("PostToolUse:{tool:?}"), "command": "true"},
                "parentToolUseID": id,
                "toolUseID": id,
                "timestamp": self.timestamp(),
                "uuid": progress,
                "parentUuid": parent,
                "sessionId": self.shape.session_id,
            })
            .to_string(),
        );
        self.record(
            "user",
            json!({
                "message": {"role": "user", "content": [
                    {"tool_use_id": id, "type": "tool_result", "content": content},
                ]},
                "toolUseResult": extra,
            }),
        );
    }

    /// Claude Code's auto-compaction: the boundary, then the summary the history restarts from.
    fn compaction(&mut self) {
        let pre_tokens = self.last_request.map_or(self.context, |(_, prompt)| prompt);
        self.now_ms += self.rng.range(40_000, 110_000) as i64;
        let boundary = self.parent.clone();
        let boundary_uuid = self.record(
            "system",
            json!({
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens},
                "logicalParentUuid": boundary,
                "isMeta": false,
                "level": "info",
            }),
        );
        self.parent = Some(boundary_uuid);
        let summary = format!(
            "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n{}\n\nSummary:\n{}",
            prose(&mut self.rng, 800),
            prose(&mut self.rng, 3_200)
        );
        self.context = self.overhead + tokens_of(&summary) + BLOCK_TOKENS;
        self.compacted = true;
        self.written.compactions += 1;
        self.now_ms += 500;
        self.record(
            "user",
            json!({
                "message": {"role": "user", "content": summary},
                "isVisibleInTranscriptOnly": true,
                "isCompactSummary": true,
            }),
        );
    }
}

/// Writes `shape` to `dir/<session id>.jsonl`; returns the file and what it holds.
pub(crate) fn write(dir: &Path, shape: &Shape) -> (PathBuf, Written) {
    let mut rng = Lcg(shape.seed);
    // The system prompt, the tool schemas and the memory files.
    let overhead = rng.range(17_000, 21_000);
    let (turns, scale) = plan(shape, &mut rng, overhead);
    let mut writer = Writer {
        shape,
        rng,
        lines: Vec::new(),
        parent: None,
        now_ms: shape.start_ms,
        context: overhead,
        overhead,
        last_request: None,
        written: Written {
            scale,
            requests: 0,
            peak_tokens: 0,
            input_tokens: 0,
            compactions: 0,
            long_pauses: 0,
        },
        compacted: false,
    };
    for (index, turn) in turns.iter().enumerate() {
        if index > 0 {
            writer.now_ms += turn.gap_ms as i64;
        }
        let started = writer.now_ms;
        writer.user_prompt(turn.prompt_tokens);
        for step in &turn.steps {
            let file = writer.rng.pick(&FILES);
            if shape
                .compact_above
                .is_some_and(|limit| writer.context > limit)
            {
                writer.compaction();
            }
            if let Some(id) = writer.response(step, file) {
                writer.tool_result(step, &id, file);
            }
        }
        let duration = writer.now_ms - started;
        writer.now_ms += 300;
        writer.record(
            "system",
            json!({"subtype": "turn_duration", "durationMs": duration, "isMeta": false, "level": "info"}),
        );
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{}.jsonl", shape.session_id));
    std::fs::write(&path, writer.lines.join("\n") + "\n").unwrap();
    (path, writer.written)
}
