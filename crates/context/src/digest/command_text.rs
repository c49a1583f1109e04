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
pub(super) fn patch_paths(patch: &str) -> Vec<String> {
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
fn simple_commands(command: &str) -> Vec<String> {
    command
        .split(['\n', ';', '|', '&'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whitespace-separated words with one level of single or double quotes removed.
fn split_words(command: &str) -> Vec<String> {
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
fn looks_like_path(word: &str) -> bool {
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
        && let Ok(value) = serde_json::from_str::<Value>(trimmed)
        && let Some(code) = value
            .get("metadata")
            .and_then(|metadata| metadata.get("exit_code"))
            .and_then(Value::as_i64)
    {
        return Some(code);
    }
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
    let first_match = ERROR_WORDS
        .iter()
        .filter_map(|word| lowered.find(word))
        .min();
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

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}
