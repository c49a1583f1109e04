//! A long Codex session that never compacts, generated: the history the replay's engine holds
//! grows with the file, so a step whose cost grows with the history shows in the throughput
//! (the bundled sample compacts, and its history never grows past one copy).
//!
//! The session is written in the format of the bundled sample (`fixtures/codex-sample.jsonl`,
//! codex 0.63): a `session_meta` header, the permissions and AGENTS.md messages, then turns of
//! a `turn_context`, the `user_message` event and its item, and model requests. A request is
//! a `reasoning` item (most of them), shell calls (`function_call`s of codex's `shell` tool,
//! an argv with a JSON output, and of the unified `exec_command`, whose output has a `Chunk ID`
//! header) with their `function_call_output`s, and a `token_count`; the last request of a turn
//! answers with an assistant message and its `agent_message` event. No `compacted` line.
//!
//! It is generated in units shaped like a real session of 341 KB: six turns, 39 shell calls
//! whose outputs are source listings (`sed -n`, `cat`, `nl -ba`), test runs, clippy warnings,
//! diffs, searches and listings, from a few hundred bytes to about 30 KB. Units follow one
//! another as one session: one header, turn ids and call ids running on, and each `token_count`
//! recording the input of a request over the whole history so far (`last_token_usage`), summed
//! into `total_token_usage`. The text is the same for the same seed.

#[path = "uncompacted_session/codex_records.rs"]
mod codex_records;
#[path = "uncompacted_session/command_output.rs"]
mod command_output;

use std::fmt::Write as _;

use chrono::DateTime;
use codex_records::Content;
use codex_records::Event;
use codex_records::ExecArguments;
use codex_records::Git;
use codex_records::Item;
use codex_records::Line;
use codex_records::RateLimit;
use codex_records::RateLimits;
use codex_records::SandboxPolicy;
use codex_records::SessionMeta;
use codex_records::ShellArguments;
use codex_records::ShellMetadata;
use codex_records::ShellOutput;
use codex_records::Summary;
use codex_records::Text;
use codex_records::TokenInfo;
use codex_records::TruncationPolicy;
use codex_records::TurnContext;
use codex_records::Usage;
use command_output::clippy;
use command_output::diff;
use command_output::line_range;
use command_output::listing;
use command_output::search;
use command_output::source_file;
use command_output::test_run;
use serde::Serialize;

/// Turns of one unit.
const TURNS_PER_UNIT: usize = 6;

/// Shell calls of each turn of a unit (39 in all).
const CALLS_PER_TURN: [usize; TURNS_PER_UNIT] = [5, 7, 6, 8, 6, 7];

/// The project the session works in.
const CWD: &str = "/home/mira/src/tally";

/// What codex 0.63 records as the window of `gpt-5.1-codex`.
const CONTEXT_WINDOW: i64 = 272_000;

/// The bytes of a tool output the model sees under the turns' truncation policy.
const TRUNCATION_BYTES: usize = 10_000;

/// Tokens every request carries besides the history (instructions and tools).
const OVERHEAD_TOKENS: i64 = 3_900;

/// The generated session and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct UncompactedSession {
    /// The rollout, one JSON line per record.
    pub(crate) text: String,
    /// User turns.
    pub(crate) turns: usize,
    /// Model requests (each recorded with one `token_count`).
    pub(crate) requests: usize,
    /// Shell calls, each answered.
    pub(crate) shell_calls: usize,
    /// The input the last request recorded (`last_token_usage.input_tokens`).
    pub(crate) last_input_tokens: i64,
}

/// A session of `units` units, from `seed`.
pub(crate) fn uncompacted_session(units: usize, seed: u64) -> UncompactedSession {
    let mut writer = SessionWriter::new(seed);
    writer.header();
    for _ in 0..units {
        for calls in CALLS_PER_TURN {
            writer.turn(calls);
        }
    }
    UncompactedSession {
        text: writer.out,
        turns: writer.turns,
        requests: writer.requests,
        shell_calls: writer.shell_calls,
        last_input_tokens: writer.last_usage.input_tokens,
    }
}

/// A small seeded generator (SplitMix64): the session is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low + 1) as u64;
        low + (self.next() % span) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() % words.len() as u64) as usize]
    }

    /// `length` characters of `alphabet`.
    fn word(&mut self, alphabet: &[u8], length: usize) -> String {
        (0..length)
            .map(|_| char::from(alphabet[(self.next() % alphabet.len() as u64) as usize]))
            .collect()
    }
}

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &[u8] = b"0123456789abcdef";

const MODULES: [&str; 16] = [
    "ledger",
    "report",
    "cli",
    "dates",
    "money",
    "import",
    "export",
    "budget",
    "accounts",
    "rules",
    "recurring",
    "query",
    "format",
    "store",
    "config",
    "tags",
];
const TYPES: [&str; 16] = [
    "Entry", "Ledger", "Report", "Cents", "Account", "Budget", "Rule", "Query", "Period", "Totals",
    "Importer", "Record", "Tag", "Schedule", "Store", "Options",
];
const FIELDS: [&str; 16] = [
    "date", "amount", "account", "category", "payee", "note", "tags", "period", "limit", "balance",
    "entries", "since", "until", "currency", "id", "source",
];
const VERBS: [&str; 12] = [
    "parse", "build", "apply", "total", "group", "filter", "load", "save", "merge", "check",
    "render", "split",
];
const TASKS: [&str; 12] = [
    "Add a `--until <DATE>` option to `tally report`, next to `--since`.",
    "The CSV import drops rows whose payee has a comma in quotes. Can you fix it?",
    "`tally budget` should warn when a category goes over its monthly limit.",
    "Recurring entries created on the 31st skip short months. Make them land on the last day.",
    "Can you add a `--json` flag to `tally balance`? I want to pipe it into jq.",
    "The tests are slow since the store moved to one file per month; find out why.",
    "Rename `Options` to `ReportOptions` everywhere and keep the CLI unchanged.",
    "Tags should be case-insensitive when filtering (`--tag Food` matches `food`).",
    "Add `tally rules test <FILE>` that shows which rule matches each imported line.",
    "The export to ledger-cli format writes amounts with a comma in some locales. Fix it.",
    "Clippy complains after the toolchain bump; clean it up without changing behaviour.",
    "Split src/report.rs: it is over 1,000 lines now. Keep the public API the same.",
];

/// One shell call of a request: the tool, its arguments, and its output as recorded.
struct ShellCall {
    call_id: String,
    name: &'static str,
    arguments: String,
    output: String,
}

/// Writes the session line by line and keeps its counts.
struct SessionWriter {
    rng: Rng,
    out: String,
    /// Milliseconds since the epoch of the next record.
    clock_ms: i64,
    /// The tokens of the history the next request sends.
    history_tokens: i64,
    /// Generated source files, by index of `MODULES`, read again as the session goes on.
    files: Vec<String>,
    turns: usize,
    requests: usize,
    shell_calls: usize,
    total_usage: Usage,
    last_usage: Usage,
}

impl SessionWriter {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let files = MODULES
            .iter()
            .map(|module| {
                let lines = rng.between(80, 500);
                source_file(&mut rng, module, lines)
            })
            .collect();
        Self {
            rng,
            out: String::new(),
            clock_ms: 1_764_000_000_000,
            history_tokens: OVERHEAD_TOKENS,
            files,
            turns: 0,
            requests: 0,
            shell_calls: 0,
            total_usage: Usage::default(),
            last_usage: Usage::default(),
        }
    }

    fn timestamp(&mut self, advance_ms: usize) -> String {
        self.clock_ms += advance_ms as i64;
        DateTime::from_timestamp_millis(self.clock_ms)
            .unwrap_or_default()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }

    fn line<P: Serialize>(&mut self, advance_ms: usize, kind: &str, payload: P) {
        let timestamp = self.timestamp(advance_ms);
        let line = Line {
            timestamp: &timestamp,
            kind,
            payload,
        };
        let json = serde_json::to_string(&line).unwrap();
        self.out.push_str(&json);
        self.out.push('\n');
    }

    /// An item the model sees from now on: its tokens (a quarter of its bytes, an output's cut
    /// as the turns' truncation policy cuts it) join the history's.
    fn item(&mut self, advance_ms: usize, item: Item<'_>) {
        let output = matches!(item, Item::FunctionCallOutput { .. });
        let start = self.out.len();
        self.line(advance_ms, "response_item", item);
        let mut bytes = self.out.len() - start;
        if output {
            bytes = bytes.min(TRUNCATION_BYTES + 200);
        }
        self.history_tokens += (bytes / 4) as i64;
    }

    fn header(&mut self) {
        let id = format!(
            "019ab{}-{}-7{}-8{}-{}",
            self.rng.word(HEX, 3),
            self.rng.word(HEX, 4),
            self.rng.word(HEX, 3),
            self.rng.word(HEX, 3),
            self.rng.word(HEX, 12)
        );
        let timestamp = self.timestamp(0);
        let commit_hash = self.rng.word(HEX, 40);
        let meta = SessionMeta {
            id: &id,
            timestamp: &timestamp,
            cwd: CWD,
            originator: "codex_cli_rs",
            cli_version: "0.63.0",
            instructions: None,
            source: "cli",
            model_provider: "openai",
            base_instructions: Text { text: INSTRUCTIONS },
            git: Git {
                commit_hash: &commit_hash,
                branch: "main",
                repository_url: "git@github.com:mira/tally.git",
            },
        };
        self.line(0, "session_meta", meta);
        self.item(
            0,
            Item::Message {
                role: "developer",
                content: vec![Content::InputText { text: PERMISSIONS }],
            },
        );
        self.item(
            0,
            Item::Message {
                role: "user",
                content: vec![
                    Content::InputText { text: AGENTS_MD },
                    Content::InputText {
                        text: ENVIRONMENT_CONTEXT,
                    },
                ],
            },
        );
    }

    /// One user turn with `calls` shell calls, in requests of one to three calls, then the
    /// answer.
    fn turn(&mut self, calls: usize) {
        let turn_id = self.turns.to_string();
        self.turns += 1;
        let context = TurnContext {
            turn_id: &turn_id,
            cwd: CWD,
            approval_policy: "on-request",
            sandbox_policy: SandboxPolicy {
                network_access: false,
                exclude_tmpdir_env_var: false,
                exclude_slash_tmp: false,
            },
            model: "gpt-5.1-codex",
            effort: "medium",
            summary: "auto",
            truncation_policy: TruncationPolicy {
                mode: "bytes",
                limit: TRUNCATION_BYTES,
            },
        };
        let pause = self.rng.between(20_000, 240_000);
        self.line(pause, "turn_context", context);
        let task = self.rng.pick(&TASKS);
        self.line(
            0,
            "event_msg",
            Event::UserMessage {
                message: task,
                images: [],
                kind: "plain",
            },
        );
        self.item(
            0,
            Item::Message {
                role: "user",
                content: vec![Content::InputText { text: task }],
            },
        );
        let mut left = calls;
        while left > 0 {
            let batch = self.rng.between(1, 3).min(left);
            left -= batch;
            self.request(batch);
        }
        self.answer();
    }

    /// A request that runs `calls` shell calls.
    fn request(&mut self, calls: usize) {
        let input = self.history_tokens;
        let mut output_tokens = 0;
        let mut reasoning_tokens = 0;
        if self.rng.chance(80) {
            reasoning_tokens = self.reasoning();
            output_tokens += reasoning_tokens;
        }
        let calls: Vec<ShellCall> = (0..calls).map(|_| self.shell_call()).collect();
        for call in &calls {
            output_tokens += (call.arguments.len() / 3) as i64 + 12;
            let advance = self.rng.between(5, 60);
            self.item(
                advance,
                Item::FunctionCall {
                    name: call.name,
                    arguments: &call.arguments,
                    call_id: &call.call_id,
                },
            );
        }
        for call in &calls {
            let advance = self.rng.between(100, 4_000);
            self.item(
                advance,
                Item::FunctionCallOutput {
                    call_id: &call.call_id,
                    output: &call.output,
                },
            );
        }
        self.shell_calls += calls.len();
        self.token_count(input, output_tokens, reasoning_tokens);
    }

    /// The turn's last request: the model's answer.
    fn answer(&mut self) {
        let input = self.history_tokens;
        let mut output_tokens = 0;
        let mut reasoning_tokens = 0;
        if self.rng.chance(50) {
            reasoning_tokens = self.reasoning();
            output_tokens += reasoning_tokens;
        }
        let mut text = format!(
            "Done. `{}::{}_{}` now checks the `{}` before it calls `{}_{}`.\n\n",
            self.rng.pick(&TYPES),
            self.rng.pick(&VERBS),
            self.rng.pick(&FIELDS),
            self.rng.pick(&FIELDS),
            self.rng.pick(&VERBS),
            self.rng.pick(&FIELDS),
        );
        for _ in 0..self.rng.between(2, 5) {
            let module = self.rng.pick(&MODULES);
            let _ = writeln!(
                text,
                "- `src/{module}.rs`: `{}_{}` handles an empty `{}` and keeps `{}` as it was.",
                self.rng.pick(&VERBS),
                self.rng.pick(&FIELDS),
                self.rng.pick(&FIELDS),
                self.rng.pick(&TYPES),
            );
        }
        let _ = write!(
            text,
            "\n`cargo test` passes ({} unit, {} CLI tests); `cargo clippy --all-targets` is clean.",
            self.rng.between(40, 300),
            self.rng.between(8, 40)
        );
        output_tokens += (text.len() / 4) as i64;
        let advance = self.rng.between(2_000, 9_000);
        self.item(
            advance,
            Item::Message {
                role: "assistant",
                content: vec![Content::OutputText { text: &text }],
            },
        );
        self.line(0, "event_msg", Event::AgentMessage { message: &text });
        self.token_count(input, output_tokens, reasoning_tokens);
    }

    /// A reasoning item; returns the tokens it took to generate.
    fn reasoning(&mut self) -> i64 {
        let summary = format!(
            "**Looking at the {} {}**\n\n\
            I'll read how `{}` uses `{}_{}` in src/{}.rs before changing it.",
            self.rng.pick(&FIELDS),
            self.rng.pick(&["code", "tests", "callers", "errors"]),
            self.rng.pick(&TYPES),
            self.rng.pick(&VERBS),
            self.rng.pick(&FIELDS),
            self.rng.pick(&MODULES),
        );
        let length = self.rng.between(150, 600) * 4;
        let encrypted = format!("gAAAAAB{}", self.rng.word(BASE64, length));
        let advance = self.rng.between(1_500, 8_000);
        self.item(
            advance,
            Item::Reasoning {
                summary: vec![Summary::SummaryText { text: &summary }],
                encrypted_content: &encrypted,
            },
        );
        (length / 6) as i64
    }

    /// The `token_count` of a request that sent `input` tokens.
    fn token_count(&mut self, input: i64, output: i64, reasoning: i64) {
        self.requests += 1;
        // Everything the previous request sent was cached, to the provider's 128-token blocks.
        let cached = (self.last_usage.input_tokens.min(input) / 128) * 128;
        let last = Usage {
            input_tokens: input,
            cached_input_tokens: cached,
            output_tokens: output,
            reasoning_output_tokens: reasoning,
            total_tokens: input + output,
        };
        self.total_usage.add(&last);
        self.last_usage = last;
        let info = TokenInfo {
            total_token_usage: self.total_usage,
            last_token_usage: last,
            model_context_window: CONTEXT_WINDOW,
        };
        let rate_limits = RateLimits {
            primary: RateLimit {
                used_percent: (30 + self.requests / 10).min(990) as f64 / 10.0,
                window_minutes: 300,
                resets_in_seconds: 13_909,
            },
            secondary: RateLimit {
                used_percent: 11.0,
                window_minutes: 10_080,
                resets_in_seconds: 402_000,
            },
        };
        self.line(0, "event_msg", Event::TokenCount { info, rate_limits });
        // The model's output joins the history the next request sends.
        self.history_tokens += output;
    }

    /// A shell call and what it printed: a file read, a test run, clippy, a diff, a search or
    /// a listing; `shell` for the quick ones, `exec_command` for cargo.
    fn shell_call(&mut self) -> ShellCall {
        let call_id = format!("call_{}", self.rng.word(ALPHANUMERIC, 24));
        let module_index = self.rng.between(0, MODULES.len() - 1);
        let module = MODULES[module_index];
        let roll = self.rng.between(0, 99);
        let (command, exit_code, printed) = match roll {
            0..=34 => {
                let file = &self.files[module_index];
                let lines = file.lines().count();
                let from = if self.rng.chance(50) {
                    1
                } else {
                    self.rng.between(1, lines / 2)
                };
                let to = (from + self.rng.between(60, 250)).min(lines);
                let (command, text) = match self.rng.between(0, 2) {
                    0 => (
                        format!("sed -n {from},{to}p src/{module}.rs"),
                        line_range(file, from, to, false),
                    ),
                    1 => (
                        format!("nl -ba src/{module}.rs | sed -n {from},{to}p"),
                        line_range(file, from, to, true),
                    ),
                    _ => (format!("cat src/{module}.rs"), file.clone()),
                };
                (command, 0, text)
            }
            35..=54 => {
                let pattern = format!("{}_{}", self.rng.pick(&VERBS), self.rng.pick(&FIELDS));
                let text = search(&mut self.rng, &self.files, &pattern);
                let code = if text.is_empty() { 1 } else { 0 };
                (format!("rg -n \"{pattern}\" src tests"), code, text)
            }
            55..=71 => {
                let (text, failed) = test_run(&mut self.rng);
                let filter = if self.rng.chance(40) {
                    format!(" {module}")
                } else {
                    String::new()
                };
                (
                    format!("cargo test{filter}"),
                    if failed { 101 } else { 0 },
                    text,
                )
            }
            72..=79 => (
                "cargo clippy --all-targets -- -D warnings".to_string(),
                101,
                clippy(&mut self.rng),
            ),
            80..=89 => ("git diff".to_string(), 0, diff(&mut self.rng, &self.files)),
            _ => (
                "git status --short && ls src".to_string(),
                0,
                listing(&mut self.rng),
            ),
        };
        let seconds = self.rng.between(1, 4_000) as f64 / 1_000.0;
        let (name, arguments, output) = if command.starts_with("cargo") {
            let arguments = ExecArguments {
                cmd: &command,
                workdir: CWD,
                yield_time_ms: 10_000,
                max_output_tokens: 10_000,
            };
            let output = format!(
                "Chunk ID: {}\nWall time: {seconds:.4} seconds\n\
                Process exited with code {exit_code}\nOriginal token count: {}\nOutput:\n\
                {printed}",
                self.rng.word(HEX, 6),
                printed.len() / 4,
            );
            ("exec_command", serde_json::to_string(&arguments), output)
        } else {
            let arguments = ShellArguments {
                command: ["bash", "-lc", &command],
                workdir: CWD,
                timeout_ms: 10_000,
            };
            let output = ShellOutput {
                output: &printed,
                metadata: ShellMetadata {
                    exit_code,
                    duration_seconds: seconds,
                },
            };
            (
                "shell",
                serde_json::to_string(&arguments),
                serde_json::to_string(&output).unwrap(),
            )
        };
        ShellCall {
            call_id,
            name,
            arguments: arguments.unwrap(),
            output,
        }
    }
}

const INSTRUCTIONS: &str = "You are Codex, a coding agent running in the user's terminal. \
    You and the user share one workspace; you read files, run commands and edit code to finish \
    the user's task.\n\n\
    ## How you work\n\
    - Read before you write: look at the code that will change and at its tests.\n\
    - Prefer small, reviewable changes. Keep the existing style of the project.\n\
    - Use `rg` to search and `sed -n` to read ranges of files. Avoid printing whole large files.\n\
    - Run the project's formatter and tests before you say you are done; report what you ran.\n\
    - If a command fails, read the error and fix the cause rather than retrying blindly.\n";

const PERMISSIONS: &str = "<permissions instructions>\n\
    Filesystem sandboxing defines which files can be read or written. `sandbox_mode` is \
    `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and \
    `writable_roots`. Editing files in other directories requires approval. Network access is \
    restricted.\n\
    </permissions instructions>";

const AGENTS_MD: &str = "# AGENTS.md instructions for /home/mira/src/tally\n\n\
    <INSTRUCTIONS>\n# tally\n\n\
    - Rust 2024. `cargo fmt` and `cargo clippy --all-targets -- -D warnings` must pass.\n\
    - Money is `Cents(i64)`; never use floats for amounts.\n\
    - Tests: unit tests next to the code, CLI tests in tests/cli.rs with assert_cmd.\n\
    </INSTRUCTIONS>";

const ENVIRONMENT_CONTEXT: &str = "<environment_context>\n  <cwd>/home/mira/src/tally</cwd>\n  \
    <approval_policy>on-request</approval_policy>\n  \
    <sandbox_mode>workspace-write</sandbox_mode>\n  \
    <network_access>restricted</network_access>\n  <shell>bash</shell>\n\
    </environment_context>";
