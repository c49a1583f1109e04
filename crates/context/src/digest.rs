//! The facts of a history, extracted without a model: what the user asked and the preferences
//! they stated, what the assistant decided, which files were read and modified, which commands ran and how they ended, the
//! errors met, the latest todo list and the last thing the assistant said.
//!
//! Compaction's offline summariser and the memory crate's offline extraction both build on it.
//! It reads the tool calls of Codex (`shell`, `shell_command`, `exec_command`, local shell calls,
//! code-mode `exec` cells, `apply_patch`, `read_file` / `write_file` / `edit_file`,
//! `update_plan`) and of Claude Code (`Read`, `Write`, `Edit`, `MultiEdit`, `NotebookEdit`,
//! `Bash`, `TodoWrite`) as our rollout importer records them. The work is bounded (every list is
//! capped, only the head of a long text is scanned) and odd input is skipped, never a panic. The
//! rules are described in docs/design/compaction.md, "The history digest and the offline
//! summariser".

use std::collections::BTreeMap;

use agentctx_protocol::COMPACTION_SUMMARY_PREFIXES;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
/// True for a `user` text the harness wrote (defined in `agentctx-protocol`, with the rule of
/// a user turn's start that it is part of).
pub use agentctx_protocol::is_harness_user_text;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

mod command_text;
mod json_shell_output;
mod shell_reads;

use command_text::command_line;
use command_text::error_line;
use command_text::exit_code;
use command_text::nested_commands;
use command_text::script_status;
use command_text::shell_files;
use command_text::strip_exec_pragma;

pub use command_text::patch_paths;
pub use json_shell_output::JsonShellOutput;
pub use json_shell_output::json_exit_code;
pub use json_shell_output::json_shell_output;
pub use shell_reads::ShellFileRead;
pub use shell_reads::ShellOutput;
pub use shell_reads::first_cut_marker;
pub use shell_reads::has_cut_marker;
pub use shell_reads::local_shell_file_read;
pub use shell_reads::shell_file_read;
pub use shell_reads::shell_output;

/// Only this many bytes of a tool output or an assistant message are scanned.
const SCAN_LIMIT_BYTES: usize = 64 * 1024;
/// Caps on the lists; the newest entries are kept.
const MAX_COMMANDS: usize = 200;
const MAX_ERRORS: usize = 50;
const MAX_DECISIONS: usize = 50;
const MAX_FILES: usize = 500;
const MAX_CONCEPTS: usize = 30;
const MAX_PRIOR_SUMMARIES: usize = 4;
const MAX_TODOS: usize = 100;
const MAX_PREFERENCES: usize = 30;
/// Calls waiting for their output beyond this many are settled as if they had none.
const MAX_PENDING_CALLS: usize = 4_096;
/// Longest command, error line, decision and concept kept, in characters.
const MAX_COMMAND_CHARS: usize = 300;
const MAX_ERROR_CHARS: usize = 300;
const MAX_DECISION_CHARS: usize = 300;
const MAX_PREFERENCE_CHARS: usize = 300;
const MAX_CONCEPT_CHARS: usize = 60;

/// How a sentence of the assistant that states a decision starts (lowercase, after list
/// markers). See docs/design/compaction.md for why these.
const DECISION_OPENINGS: [&str; 12] = [
    "i'll ",
    "i will ",
    "i'm going to ",
    "i am going to ",
    "i decided ",
    "i chose ",
    "let's ",
    "we'll ",
    "we will ",
    "we should ",
    "decision:",
    "the plan is ",
];
/// How a sentence of the user that states a standing preference starts (lowercase). See
/// docs/design/compaction.md, "The history digest and the offline summariser".
const PREFERENCE_OPENINGS: [&str; 14] = [
    "always ",
    "never ",
    "don't ",
    "do not ",
    "please always ",
    "please never ",
    "please don't ",
    "please do not ",
    "please use ",
    "prefer ",
    "make sure to ",
    "from now on",
    "stop ",
    "avoid ",
];
/// Phrases that make a user sentence a preference wherever they stand (lowercase).
const PREFERENCE_PHRASES: [&str; 8] = [
    "i prefer ",
    "i'd prefer ",
    "i would prefer ",
    "i'd rather ",
    "i would rather ",
    "i like to ",
    "i don't like ",
    " from now on",
];
/// Phrases that make a sentence a decision wherever they stand (lowercase).
const DECISION_PHRASES: [&str; 4] = [
    " instead of ",
    " rather than ",
    "decided to ",
    " going with ",
];

/// The facts of a history. Lists are oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryDigest {
    /// What the user typed, verbatim, without harness-written messages and earlier summaries.
    pub user_requests: Vec<String>,
    /// Sentences in which the user stated a standing preference ("always …", "never …",
    /// "I prefer …"), oldest first, without repeats.
    #[serde(default)]
    pub preferences: Vec<String>,
    /// Summaries earlier compactions left in the history (the newest few).
    pub prior_summaries: Vec<String>,
    /// Sentences in which the assistant stated a decision (the newest ones).
    pub decisions: Vec<String>,
    /// `code spans` the user and the assistant used most, most frequent first.
    pub concepts: Vec<String>,
    /// Files read successfully, ordered by their last read.
    pub files_read: Vec<String>,
    /// Files written, edited, patched or deleted, ordered by their last change.
    pub files_modified: Vec<String>,
    /// Shell commands run (the newest ones).
    pub commands: Vec<CommandRun>,
    /// Errors met (the newest ones).
    pub errors: Vec<ErrorNote>,
    /// The todo list as last written (`TodoWrite` or `update_plan`).
    pub todos: Vec<TodoItem>,
    /// The text of the last assistant message.
    pub last_assistant_message: Option<String>,
    /// True when an assistant message came after the latest user request.
    pub latest_request_answered: bool,
    /// Tool calls seen, output or not.
    pub tool_calls: usize,
}

/// A shell command and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRun {
    /// The command line (clipped).
    pub command: String,
    /// The exit code, when the output tells it.
    pub exit_code: Option<i64>,
    /// True when the command failed (a non-zero exit code, or the harness said so).
    pub failed: bool,
}

/// An error met during the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorNote {
    /// What failed: the command line, or the tool name and its file.
    pub source: String,
    /// The line of the output that tells what went wrong (clipped).
    pub message: String,
    /// True when a later call succeeded at the same thing: the same command (its first two
    /// words), any tool on the same file, or the same tool.
    pub resolved: bool,
}

impl HistoryDigest {
    /// The digest of `items`, oldest first.
    pub fn from_items(items: &[ResponseItem]) -> Self {
        let mut builder = Builder::default();
        for item in items {
            builder.observe(item);
        }
        builder.finish()
    }

    /// The newest user request, if any.
    pub fn latest_user_request(&self) -> Option<&str> {
        self.user_requests.last().map(String::as_str)
    }
}

/// True when `text` is a summary an earlier compaction left in the history.
pub fn is_summary_message_text(text: &str) -> bool {
    let trimmed = text.trim_start();
    COMPACTION_SUMMARY_PREFIXES
        .iter()
        .any(|prefix| trimmed.starts_with(prefix))
}

/// The user's own text of `item`, verbatim: the text parts of a `user` message that is not
/// injected, harness-written parts left out, joined by a newline. `None` for other items, for a
/// message with nothing left, and for a summary an earlier compaction left. Harness text is
/// [`is_harness_user_text`], the rule of a user turn's start (`agentctx_protocol::is_user_turn_start`),
/// but applied part by part: a message that holds a reminder beside the user's words starts no
/// turn, yet its words are the user's.
pub fn user_request_text(item: &ResponseItem) -> Option<String> {
    let text = user_text_parts(item)?;
    (!is_summary_message_text(&text)).then_some(text)
}

/// The non-harness text of a non-injected `user` message, summaries included.
fn user_text_parts(item: &ResponseItem) -> Option<String> {
    let ResponseItem::Message { role, content, .. } = item else {
        return None;
    };
    if role != "user" || item.is_injected() {
        return None;
    }
    // The parts joined by newlines, written into one string as they are found.
    let mut joined: Option<String> = None;
    for text in content
        .iter()
        .filter_map(ContentItem::as_text)
        .filter(|text| !is_harness_user_text(text))
    {
        match &mut joined {
            Some(joined) => {
                joined.push('\n');
                joined.push_str(text);
            }
            None => joined = Some(text.to_string()),
        }
    }
    joined
}

/// What a tool call does, as far as the digest cares.
#[derive(Debug, Clone)]
enum CallKind {
    /// A shell command line.
    Shell(String),
    /// A Codex code-mode cell: the JavaScript an `exec` call ran (its pragma line left out),
    /// which runs shell commands through nested tools. Read as a shell command.
    CodeCell(String),
    /// A patch in the `*** Begin Patch` format.
    Patch(String),
    /// A tool that reads a file.
    Read { tool: String, path: String },
    /// A tool that writes or edits a file.
    Modify { tool: String, path: String },
    /// Any other tool.
    Other(String),
}

#[derive(Default)]
struct Builder {
    digest: HistoryDigest,
    /// Calls waiting for their output, by call id, with their arrival order.
    pending: BTreeMap<String, (u64, CallKind)>,
    next_call: u64,
    /// How often each code span was used, and where it was first seen.
    concept_counts: BTreeMap<String, (usize, u64)>,
    next_concept: u64,
    /// Errors with the key a later success must have to resolve them.
    errors: Vec<(String, ErrorNote)>,
}

impl Builder {
    fn observe(&mut self, item: &ResponseItem) {
        match item {
            ResponseItem::Message { role, .. } if role == "user" => self.user_message(item),
            ResponseItem::Message { role, .. } if role == "assistant" => {
                if let Some(text) = item.message_text() {
                    self.assistant_message(&text);
                }
            }
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
                if let Some(todos) = written_todos(name, &args) {
                    self.digest.todos = todos;
                }
                self.call(call_id, function_call_kind(name, &args, arguments));
            }
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } => {
                let kind = match name.as_str() {
                    "apply_patch" => CallKind::Patch(input.clone()),
                    CODE_MODE_EXEC => CallKind::CodeCell(strip_exec_pragma(input).to_string()),
                    _ => CallKind::Other(name.clone()),
                };
                self.call(call_id, kind);
            }
            ResponseItem::LocalShellCall {
                call_id, action, ..
            } => {
                let command = command_line(action.get("command")).unwrap_or_default();
                let kind = CallKind::Shell(command);
                match call_id {
                    Some(call_id) => self.call(call_id, kind),
                    None => {
                        self.digest.tool_calls += 1;
                        self.settle(kind, None, "");
                    }
                }
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                if let Some((_, kind)) = self.pending.remove(call_id) {
                    let text = output.text_content();
                    self.settle(kind, output.success, head(&text, SCAN_LIMIT_BYTES));
                }
            }
            _ => {}
        }
    }

    fn user_message(&mut self, item: &ResponseItem) {
        let Some(text) = user_text_parts(item) else {
            return;
        };
        if is_summary_message_text(&text) {
            push_capped(&mut self.digest.prior_summaries, text, MAX_PRIOR_SUMMARIES);
            return;
        }
        self.count_concepts(&text);
        for sentence in sentences(head(&text, SCAN_LIMIT_BYTES)) {
            if is_preference(sentence) {
                let preference = clip_one_line(sentence, MAX_PREFERENCE_CHARS);
                if !self.digest.preferences.contains(&preference) {
                    push_capped(&mut self.digest.preferences, preference, MAX_PREFERENCES);
                }
            }
        }
        self.digest.user_requests.push(text);
        self.digest.latest_request_answered = false;
    }

    fn assistant_message(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let scanned = head(text, SCAN_LIMIT_BYTES);
        self.count_concepts(scanned);
        for sentence in sentences(scanned) {
            if is_decision(sentence) {
                let decision = clip_one_line(sentence, MAX_DECISION_CHARS);
                self.digest.decisions.retain(|known| *known != decision);
                push_capped(&mut self.digest.decisions, decision, MAX_DECISIONS);
            }
        }
        self.digest.last_assistant_message = Some(text.to_string());
        self.digest.latest_request_answered = true;
    }

    fn call(&mut self, call_id: &str, kind: CallKind) {
        self.digest.tool_calls += 1;
        if self.pending.len() >= MAX_PENDING_CALLS {
            self.settle_oldest_pending();
        }
        self.pending
            .insert(call_id.to_string(), (self.next_call, kind));
        self.next_call += 1;
    }

    fn settle_oldest_pending(&mut self) {
        let oldest = self
            .pending
            .iter()
            .min_by_key(|(_, (order, _))| *order)
            .map(|(id, _)| id.clone());
        if let Some((_, kind)) = oldest.and_then(|id| self.pending.remove(&id)) {
            self.settle(kind, None, "");
        }
    }

    /// Records what a call did now that its output (possibly none) is known.
    fn settle(&mut self, kind: CallKind, success: Option<bool>, output: &str) {
        match kind {
            CallKind::Shell(command) => self.shell_result(&command, success, output),
            CallKind::CodeCell(source) => self.code_cell_result(&source, success, output),
            CallKind::Patch(patch) => {
                let failed = success == Some(false) || exit_code(output).is_some_and(|c| c != 0);
                let paths = patch_paths(&patch);
                if failed {
                    let source = format!("apply_patch {}", paths.join(" "));
                    for path in &paths {
                        self.error(path_key(path), source.trim_end().to_string(), output);
                    }
                    if paths.is_empty() {
                        self.error("tool:apply_patch".to_string(), source, output);
                    }
                } else {
                    for path in paths {
                        self.file_success(path, true);
                    }
                }
            }
            CallKind::Read { tool, path } | CallKind::Modify { tool, path }
                if success == Some(false) =>
            {
                self.error(path_key(&path), format!("{tool} {path}"), output);
            }
            CallKind::Read { path, .. } => self.file_success(path, false),
            CallKind::Modify { path, .. } => self.file_success(path, true),
            CallKind::Other(tool) => {
                let key = format!("tool:{tool}");
                if success == Some(false) {
                    self.error(key, tool, output);
                } else {
                    self.succeeded(&key);
                }
            }
        }
    }

    fn shell_result(&mut self, command: &str, success: Option<bool>, output: &str) {
        self.command_result(command, command_key(command), &[command], success, output);
    }

    /// A code-mode cell is a command: its source is the command line shown, it failed when its
    /// output says `Script failed` (a rollout keeps no success flag) or the harness said so,
    /// and its files are those of the shell commands it passed to nested tools. Its errors are
    /// resolved by a later run of the same source (the first two words of a script, `const r`,
    /// say nothing of what it does).
    fn code_cell_result(&mut self, source: &str, success: Option<bool>, output: &str) {
        let success = success.or_else(|| script_status(output));
        let nested = nested_commands(source);
        let scripts: Vec<&str> = nested.iter().map(String::as_str).collect();
        let key = format!("exec:{}", clip_one_line(source, MAX_COMMAND_CHARS));
        self.command_result(source, key, &scripts, success, output);
    }

    /// Records a command that ran: `command` as shown, `key` for its errors, `scripts` the
    /// shell command lines whose files it read and modified.
    fn command_result(
        &mut self,
        command: &str,
        key: String,
        scripts: &[&str],
        success: Option<bool>,
        output: &str,
    ) {
        let code = exit_code(output);
        let failed = success == Some(false) || code.is_some_and(|c| c != 0);
        let clipped = clip_one_line(command, MAX_COMMAND_CHARS);
        if failed {
            self.error(key, clipped.clone(), output);
        } else {
            self.succeeded(&key);
            if command.contains("*** Begin Patch") {
                for path in patch_paths(command) {
                    self.file_success(path, true);
                }
            }
            for script in scripts {
                let files = shell_files(script);
                for path in files.read {
                    self.file_success(path, false);
                }
                for path in files.modified {
                    self.file_success(path, true);
                }
            }
        }
        push_capped(
            &mut self.digest.commands,
            CommandRun {
                command: clipped,
                exit_code: code,
                failed,
            },
            MAX_COMMANDS,
        );
    }

    fn error(&mut self, key: String, source: String, output: &str) {
        let message = clip_one_line(&error_line(output), MAX_ERROR_CHARS);
        let note = ErrorNote {
            source,
            message,
            resolved: false,
        };
        push_capped(&mut self.errors, (key, note), MAX_ERRORS);
    }

    /// A success resolves the earlier errors with the same key.
    fn succeeded(&mut self, key: &str) {
        for (error_key, note) in &mut self.errors {
            if error_key == key {
                note.resolved = true;
            }
        }
    }

    fn file_success(&mut self, path: String, modified: bool) {
        self.succeeded(&path_key(&path));
        let list = if modified {
            &mut self.digest.files_modified
        } else {
            &mut self.digest.files_read
        };
        touch(list, path);
    }

    fn count_concepts(&mut self, text: &str) {
        for span in code_spans(text) {
            let next = self.next_concept;
            let entry = self.concept_counts.entry(span).or_insert((0, next));
            entry.0 += 1;
            self.next_concept += 1;
        }
    }

    fn finish(mut self) -> HistoryDigest {
        let mut rest: Vec<(u64, CallKind)> =
            std::mem::take(&mut self.pending).into_values().collect();
        rest.sort_by_key(|(order, _)| *order);
        for (_, kind) in rest {
            self.settle(kind, None, "");
        }
        let mut concepts: Vec<(String, (usize, u64))> = self.concept_counts.into_iter().collect();
        concepts.sort_by(|(_, (count_a, first_a)), (_, (count_b, first_b))| {
            count_b.cmp(count_a).then(first_a.cmp(first_b))
        });
        self.digest.concepts = concepts
            .into_iter()
            .take(MAX_CONCEPTS)
            .map(|(span, _)| span)
            .collect();
        self.digest.errors = self.errors.into_iter().map(|(_, note)| note).collect();
        self.digest
    }
}

/// The todo list a `TodoWrite` (`{"todos":[{content,status,activeForm}]}`) or an
/// `update_plan` (`{"plan":[{step,status}]}`) call writes; `None` for other calls and for
/// arguments that do not parse. Items past the cap are left out.
fn written_todos(name: &str, args: &Value) -> Option<Vec<TodoItem>> {
    #[derive(Deserialize)]
    struct PlanStep {
        step: String,
        status: TodoStatus,
    }
    let items: Vec<TodoItem> = match name {
        "TodoWrite" => serde_json::from_value(args.get("todos")?.clone()).ok()?,
        "update_plan" => {
            let steps: Vec<PlanStep> = serde_json::from_value(args.get("plan")?.clone()).ok()?;
            steps
                .into_iter()
                .map(|step| TodoItem {
                    active_form: step.step.clone(),
                    content: step.step,
                    status: step.status,
                })
                .collect()
        }
        _ => return None,
    };
    Some(items.into_iter().take(MAX_TODOS).collect())
}

/// The key that ties an error on a file to a later success on it.
fn path_key(path: &str) -> String {
    format!("path:{path}")
}

/// The first two words of a command line: `cargo test -q foo` and `cargo test` are the same
/// check.
fn command_key(command: &str) -> String {
    command
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The name of Codex's code-mode tool (0.12x+): a freeform tool whose input is JavaScript that
/// calls the other tools (`await tools.exec_command({cmd: "…"})`), recorded as a
/// `custom_tool_call` named `exec` and answered by a `custom_tool_call_output` that starts with
/// `Script completed` or `Script failed`. codex-rs `code-mode/src/lib.rs` (`PUBLIC_TOOL_NAME`),
/// `core/src/tools/code_mode/execute_spec.rs` (the freeform grammar: an optional
/// `// @exec: {…}` pragma line, then the source) and `core/src/tools/code_mode/mod.rs`
/// (`prepend_script_status`).
const CODE_MODE_EXEC: &str = "exec";

fn function_call_kind(name: &str, args: &Value, raw_arguments: &str) -> CallKind {
    match name {
        // An `exec` function call with a command line is a shell command; any other is a
        // code-mode cell whose arguments are its source.
        CODE_MODE_EXEC => match command_line(args.get("command").or_else(|| args.get("cmd"))) {
            Some(command) => CallKind::Shell(command),
            None => CallKind::CodeCell(strip_exec_pragma(raw_arguments).to_string()),
        },
        "shell" | "shell_command" | "exec_command" | "container.exec" | "local_shell" | "Bash" => {
            let command =
                command_line(args.get("command").or_else(|| args.get("cmd"))).unwrap_or_default();
            CallKind::Shell(command)
        }
        "apply_patch" => {
            let patch = args
                .get("input")
                .and_then(Value::as_str)
                .map_or_else(|| raw_arguments.to_string(), str::to_string);
            CallKind::Patch(patch)
        }
        "TodoWrite" | "update_plan" => CallKind::Other(name.to_string()),
        _ => {
            let path = path_argument(args);
            match (file_tool_role(name, args), path) {
                (Some(FileRole::Read), Some(path)) => CallKind::Read {
                    tool: name.to_string(),
                    path,
                },
                (Some(FileRole::Modify), Some(path)) => CallKind::Modify {
                    tool: name.to_string(),
                    path,
                },
                _ => CallKind::Other(name.to_string()),
            }
        }
    }
}

enum FileRole {
    Read,
    Modify,
}

fn file_tool_role(name: &str, args: &Value) -> Option<FileRole> {
    match name {
        "Read" | "read_file" | "NotebookRead" | "view_image" => Some(FileRole::Read),
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "write_file" | "edit_file"
        | "create_file" => Some(FileRole::Modify),
        // The editor tool of Anthropic's API: `view` reads, the other commands write.
        "str_replace_based_edit_tool" | "str_replace_editor" => {
            match args.get("command").and_then(Value::as_str) {
                Some("view") => Some(FileRole::Read),
                Some(_) => Some(FileRole::Modify),
                None => None,
            }
        }
        _ => None,
    }
}

fn path_argument(args: &Value) -> Option<String> {
    ["file_path", "path", "notebook_path"]
        .iter()
        .find_map(|key| args.get(key).and_then(Value::as_str))
        .filter(|path| !path.is_empty())
        .map(str::to_string)
}

/// Sentences of a text: split at line ends and at `. `, `! `, `? `; list markers and
/// headings removed.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', '#', '>', ' '])
            .trim_start_matches(|ch: char| ch.is_ascii_digit())
            .trim_start_matches(['.', ')', ' ']);
        let mut start = 0;
        let bytes = line.as_bytes();
        for (at, pair) in bytes.windows(2).enumerate() {
            if matches!(pair, [b'.' | b'!' | b'?', b' ']) {
                if let Some(sentence) = line.get(start..=at) {
                    push_sentence(&mut out, sentence);
                }
                start = at + 2;
            }
        }
        if let Some(rest) = line.get(start..) {
            push_sentence(&mut out, rest);
        }
    }
    out
}

fn push_sentence<'a>(out: &mut Vec<&'a str>, sentence: &'a str) {
    let sentence = sentence.trim();
    if !sentence.is_empty() {
        out.push(sentence);
    }
}

/// The decision rule: a sentence that opens with a statement of intent ("I'll", "Let's", "We
/// should", …) or that weighs options ("instead of", "rather than", "decided to", "going
/// with"). Questions are not decisions.
fn is_decision(sentence: &str) -> bool {
    if sentence.ends_with('?') || sentence.chars().count() < 12 {
        return false;
    }
    let lowered = lowered_with_plain_apostrophes(sentence);
    DECISION_OPENINGS
        .iter()
        .any(|opening| lowered.starts_with(opening))
        || DECISION_PHRASES
            .iter()
            .any(|phrase| lowered.contains(phrase))
}

/// The preference rule: a user sentence that opens with a standing instruction ("always",
/// "never", "don't", "please use", "from now on", …) or that states a liking ("I prefer", "I'd
/// rather", …). Questions are not preferences.
fn is_preference(sentence: &str) -> bool {
    if sentence.ends_with('?') || sentence.chars().count() < 10 {
        return false;
    }
    let lowered = lowered_with_plain_apostrophes(sentence);
    PREFERENCE_OPENINGS
        .iter()
        .any(|opening| lowered.starts_with(opening))
        || PREFERENCE_PHRASES
            .iter()
            .any(|phrase| lowered.contains(phrase))
}

/// `sentence` lowercased, its typographic apostrophes (`’`) made plain: copied once more only
/// when it has one.
fn lowered_with_plain_apostrophes(sentence: &str) -> String {
    let lowered = sentence.to_lowercase();
    if lowered.contains('\u{2019}') {
        lowered.replace('\u{2019}', "'")
    } else {
        lowered
    }
}

/// The `code spans` of a text (single backticks, on one line, 2 to 60 characters).
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            let inside = inside.trim();
            let length = inside.chars().count();
            if (2..=MAX_CONCEPT_CHARS).contains(&length) {
                spans.push(inside.to_string());
            }
        }
    }
    spans
}

/// Moves `path` to the end of `list` (its latest use), dropping the oldest past the cap.
fn touch(list: &mut Vec<String>, path: String) {
    list.retain(|known| *known != path);
    push_capped(list, path, MAX_FILES);
}

fn push_capped<T>(list: &mut Vec<T>, value: T, cap: usize) {
    list.push(value);
    if list.len() > cap {
        let excess = list.len() - cap;
        list.drain(..excess);
    }
}

/// The first `max_bytes` of `text`, cut on a char boundary.
fn head(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// `text` on one line (whitespace runs become one space), at most `max_chars` characters, `…`
/// marking a cut. The digest's way of quoting a fact; offline memory quotes the same way.
pub fn clip_one_line(text: &str, max_chars: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max_chars {
        return one_line;
    }
    let mut clipped: String = one_line.chars().take(max_chars.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
