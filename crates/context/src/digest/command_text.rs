//! Reading what a tool call ran and what it answered: shell command lines (the files they read
//! and write), `*** Begin Patch` texts, exit codes and error lines. See
//! docs/design/compaction.md, "The history digest and the offline summariser".

use serde_json::Value;

use super::SCAN_LIMIT_BYTES;
use super::head;

/// Words in a line of tool output that mark it as the error line (lowercase).
const ERROR_WORDS: [&str; 8] = [
    "error",
    "failed",
    "fatal",
    "panicked",
    "traceback",
    "exception",
    "not found",
    "denied",
];

/// Programs whose file arguments are read.
const READ_PROGRAMS: [&str; 10] = [
    "cat", "bat", "less", "more", "head", "tail", "nl", "sed", "rg", "grep",
];

/// Programs whose first operand is a pattern or script, not a file.
const PATTERN_FIRST_PROGRAMS: [&str; 3] = ["sed", "rg", "grep"];

/// The command line of a `command` argument: a string, or an argv array (`["bash", "-lc",
/// "…"]` gives the script).
pub(super) fn command_line(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(command) => Some(command.clone()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script] if is_shell(shell) && flag.starts_with('-') => {
                    Some((*script).to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "bash" | "sh" | "zsh" | "dash")
}

/// The files a `*** Begin Patch` text adds, updates, deletes or moves to.
pub fn patch_paths(patch: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let mut paths = Vec::new();
    for line in patch.lines() {
        let line = line.trim_start();
        if let Some(path) = MARKERS.iter().find_map(|marker| line.strip_prefix(marker)) {
            let path = path.trim().to_string();
            if !path.is_empty() && !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

#[derive(Default)]
pub(super) struct ShellFiles {
    pub(super) read: Vec<String>,
    pub(super) modified: Vec<String>,
}

/// The files a shell command line reads (`cat`, `sed -n`, `head`, `rg PATTERN FILE`, …) and
/// writes (`sed -i`, `tee`, `>` redirections). Only operands that look like file paths count.
pub(super) fn shell_files(command: &str) -> ShellFiles {
    let mut files = ShellFiles::default();
    for simple in simple_commands(head(command, SCAN_LIMIT_BYTES)) {
        let words = split_words(&simple);
        let mut operands = Vec::new();
        let mut redirect_next = false;
        for word in words.iter().skip(1) {
            if redirect_next {
                redirect_next = false;
                if looks_like_path(word) {
                    push_unique(&mut files.modified, word.clone());
                }
                continue;
            }
            if let Some(target) = word.strip_prefix(">>").or_else(|| word.strip_prefix('>')) {
                if target.is_empty() {
                    redirect_next = true;
                } else if looks_like_path(target) {
                    push_unique(&mut files.modified, target.to_string());
                }
                continue;
            }
            if word.contains('>') || word.starts_with('<') || word.starts_with('-') {
                continue;
            }
            operands.push(word.clone());
        }
        let Some(program) = words.first() else {
            continue;
        };
        let in_place = words
            .iter()
            .any(|word| word == "-i" || word.starts_with("-i."));
        let program = program.rsplit('/').next().unwrap_or(program);
        let skip = usize::from(PATTERN_FIRST_PROGRAMS.contains(&program));
        let file_operands = operands
            .into_iter()
            .skip(skip)
            .filter(|w| looks_like_path(w));
        if program == "tee" {
            file_operands.for_each(|path| push_unique(&mut files.modified, path));
        } else if program == "sed" && in_place {
            file_operands.for_each(|path| push_unique(&mut files.modified, path));
        } else if READ_PROGRAMS.contains(&program) {
            file_operands.for_each(|path| push_unique(&mut files.read, path));
        }
    }
    files
}

/// The simple commands of a command line, split at `&&`, `||`, `;`, `|` and newlines (quotes
/// are not tracked: a separator inside a quoted pattern only splits a pattern we ignore).
pub(super) fn simple_commands(command: &str) -> Vec<String> {
    command
        .split(['\n', ';', '|', '&'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whitespace-separated words with one level of single or double quotes removed.
pub(super) fn split_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for ch in command.chars() {
        match quote {
            Some(open) if ch == open => quote = None,
            Some(_) => current.push(ch),
            None if ch == '\'' || ch == '"' => {
                quote = Some(ch);
                in_word = true;
            }
            None if ch.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(ch);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// A word names a file when it has a `/` or an extension and none of the characters of
/// patterns, globs, variables or line ranges.
pub(super) fn looks_like_path(word: &str) -> bool {
    const NOT_IN_PATHS: [char; 16] = [
        '*', '?', '$', '(', ')', '[', ']', '{', '}', '|', '\\', '^', ',', '=', '`', '&',
    ];
    if word.is_empty() || word.len() > 512 || word == "/dev/null" || word.starts_with("&") {
        return false;
    }
    if word.contains(NOT_IN_PATHS) || word.chars().any(char::is_whitespace) {
        return false;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    let has_extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && ext.chars().all(char::is_alphanumeric)
    });
    word.contains('/') || has_extension || is_known_file_name(name)
}

fn is_known_file_name(name: &str) -> bool {
    matches!(
        name,
        "Makefile" | "Dockerfile" | "Justfile" | "LICENSE" | "README" | "Gemfile" | "Rakefile"
    )
}

/// The exit code an output reports: Codex's `Exit code: N` header, unified exec's `Process
/// exited with code N`, or the `metadata.exit_code` of older Codex JSON outputs.
pub(super) fn exit_code(output: &str) -> Option<i64> {
    let trimmed = output.trim_start();
    if trimmed.starts_with('{')
        && let Some(code) = super::json_exit_code(trimmed).flatten()
    {
        return Some(code);
    }
    header_exit_code(trimmed)
}

/// The exit code in the first lines of `trimmed` (an output without its leading whitespace):
/// Codex's `Exit code: N` header or unified exec's `Process exited with code N`.
pub(super) fn header_exit_code(trimmed: &str) -> Option<i64> {
    for line in trimmed.lines().take(4) {
        let lowered = line.trim().to_ascii_lowercase();
        let rest = lowered
            .strip_prefix("exit code")
            .or_else(|| lowered.strip_prefix("process exited with code"));
        if let Some(rest) = rest {
            let digits: String = rest
                .trim_start_matches([':', ' '])
                .chars()
                .take_while(|ch| ch.is_ascii_digit() || *ch == '-')
                .collect();
            if let Ok(code) = digits.parse() {
                return Some(code);
            }
        }
    }
    None
}

/// The line of an output that tells what went wrong: the first line (after Codex's `Output:`
/// header) naming an error, else its first non-empty line, else a fixed text.
pub(super) fn error_line(output: &str) -> String {
    let body = match output.find("\nOutput:\n") {
        Some(at) => output.get(at + "\nOutput:\n".len()..).unwrap_or(output),
        None => output,
    };
    // One lowercase copy, searched once per word: ASCII lowercasing keeps every byte offset, so
    // a match position is a position in `body` too.
    let lowered = body.to_ascii_lowercase();
    // Each word looked for only where it would start before the earliest match so far (the
    // words are ASCII: a match ends on a character boundary).
    let mut first_match: Option<usize> = None;
    for word in ERROR_WORDS {
        let searched = match first_match {
            Some(at) => lowered.get(..lowered.floor_char_boundary(at + word.len() - 1)),
            None => Some(lowered.as_str()),
        };
        if let Some(found) = searched.and_then(|text| text.find(word)) {
            first_match = Some(found);
        }
    }
    let error = first_match.and_then(|at| {
        let start = body.get(..at)?.rfind('\n').map_or(0, |newline| newline + 1);
        let end = body
            .get(at..)?
            .find('\n')
            .map_or(body.len(), |newline| at + newline);
        body.get(start..end).map(str::trim)
    });
    error
        .or_else(|| body.lines().map(str::trim).find(|line| !line.is_empty()))
        .map_or_else(|| "(no output)".to_string(), str::to_string)
}

/// The first-line pragma a Codex code-mode `exec` input may start with (codex-rs
/// `code-mode/src/description.rs`, `CODE_MODE_PRAGMA_PREFIX` and `parse_exec_source`).
const EXEC_PRAGMA_PREFIX: &str = "// @exec:";

/// The JavaScript of a code-mode `exec` input: the input without its `// @exec: {…}` pragma
/// line, when it has one.
pub(super) fn strip_exec_pragma(input: &str) -> &str {
    let (first, rest) = input.split_once('\n').unwrap_or((input, ""));
    if first.trim_start().starts_with(EXEC_PRAGMA_PREFIX) {
        rest
    } else {
        input
    }
}

/// How a code-mode script ended, from the status line its output starts with (codex-rs
/// `core/src/tools/code_mode/mod.rs`, `format_script_status`): `Script completed` is a success,
/// `Script failed` a failure; a script still running (`Script running with cell ID N`) or
/// terminated says neither.
pub(super) fn script_status(output: &str) -> Option<bool> {
    match output.lines().next()?.trim() {
        "Script completed" => Some(true),
        "Script failed" => Some(false),
        _ => None,
    }
}

/// The shell command lines a code-mode cell hands to nested tools: the string literal after
/// each `cmd` or `command` key (`tools.exec_command({cmd: "cargo test"})`,
/// `{"command": 'ls src'}`, a template literal), simple escapes undone, in source order. Only
/// the head of the source is scanned; a literal that does not end is left out.
pub(super) fn nested_commands(source: &str) -> Vec<String> {
    let source = head(source, SCAN_LIMIT_BYTES);
    let mut commands = Vec::new();
    let mut from = 0;
    while let Some(at) = source.get(from..).and_then(|rest| rest.find('c')) {
        let at = from + at;
        let (before, text) = source.split_at(at);
        let after_key = if before.ends_with(is_identifier_char) {
            None
        } else {
            ["cmd", "command"]
                .iter()
                .find_map(|key| key_value_start(text, key))
        };
        match after_key.and_then(string_literal) {
            Some((command, after)) => {
                if !command.trim().is_empty() {
                    commands.push(command);
                }
                from = source.len() - after.len();
            }
            None => from = at + 1,
        }
    }
    commands
}

fn is_identifier_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_' || ch == '$'
}

/// What follows `key` (quoted or not) and its `:` in `text`, which starts with the key.
fn key_value_start<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let after = text.strip_prefix(key)?;
    if after.starts_with(is_identifier_char) {
        return None;
    }
    let after = after.strip_prefix(['"', '\'']).unwrap_or(after);
    after.trim_start().strip_prefix(':').map(str::trim_start)
}

/// The JavaScript string literal `text` starts with (`"…"`, `'…'` or a template literal),
/// its `\n`, `\t` and quote escapes undone, and what follows it.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let quote = text
        .chars()
        .next()
        .filter(|ch| matches!(ch, '"' | '\'' | '`'))?;
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, ch)) = chars.next() {
        if ch == quote {
            return Some((value, text.get(at + ch.len_utf8()..).unwrap_or_default()));
        }
        if ch == '\\' {
            let (_, escaped) = chars.next()?;
            value.push(match escaped {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
        } else {
            value.push(ch);
        }
    }
    None
}

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}
