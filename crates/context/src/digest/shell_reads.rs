//! Shell calls that print one file: which file, which lines, and what the output says the
//! command printed. The engine recovers the content the model saw of a file a Codex session
//! read with `cat`, `sed -n` or `nl` from these (see docs/design/engine.md, "Recorded reads").
//! The words of a command line are read as the digest reads them ([`super::command_text`]).

use std::borrow::Cow;

use serde_json::Value;

use super::command_text::command_line;
use super::command_text::exit_code;
use super::command_text::looks_like_path;
use super::command_text::simple_commands;
use super::command_text::split_words;

/// Lines `head FILE` prints when no count is given.
const HEAD_DEFAULT_LINES: usize = 10;

/// Codex's header of an output it cut (codex-rs `utils/output-truncation`, `truncate.rs`):
/// `Warning: truncated output (original token count: N)`, then `Total output lines: M`.
const TRUNCATION_WARNING: &str = "Warning: truncated output";
const TOTAL_OUTPUT_LINES: &str = "Total output lines:";
/// The markers a cut leaves in the middle of a text: codex's (and ours, `agentctx-context`'s
/// `truncate_text`) `…N tokens truncated…` / `…N chars truncated…`, and older codex's
/// `[... omitted N of M lines ...]`.
const CUT_MARKERS: [&str; 3] = [" tokens truncated…", " chars truncated…", "[... omitted "];

/// A shell call that prints one file, or a range of its lines, and does nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellFileRead {
    /// The file as the command names it (relative to [`ShellFileRead::workdir`] when not
    /// absolute).
    pub path: String,
    /// The directory the command ran in, when the call says: a leading `cd DIR &&` (itself
    /// relative to the call's `workdir`), else the `workdir` (or `working_directory`) argument.
    pub workdir: Option<String>,
    /// The first line printed (1-based); `None`: from the first.
    pub first_line: Option<usize>,
    /// The last line printed; `None`: to the end of the file.
    pub last_line: Option<usize>,
    /// Each line is printed after its number and a tab (`cat -n`, `nl -ba`).
    pub numbered: bool,
}

/// What a Codex shell output says the command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutput<'a> {
    /// The exit code, when the output reports one (`Exit code: N`, `Process exited with code
    /// N`, or the `metadata.exit_code` of an older JSON output).
    pub exit_code: Option<i64>,
    /// What the command printed: the text after the `Output:` header (the `output` field of an
    /// older JSON output), truncation headers removed.
    pub text: Cow<'a, str>,
    /// The text was cut (a truncation header or a cut marker in it): it is not all the command
    /// printed.
    pub truncated: bool,
}

/// The file a Codex shell function call prints, from its tool `name` (`shell`,
/// `shell_command`, `exec_command`, `local_shell`, `container.exec`, or `exec` with a command
/// line) and raw JSON `arguments`; `None` for any other call or command. The commands are
/// `cat FILE`, `cat -n FILE`, `nl -ba FILE`, `sed -n 'A,Bp' FILE`, `sed -n 'Ap' FILE` and
/// `head [-n] N FILE`, alone or after one `cd DIR &&`.
pub fn shell_file_read(name: &str, arguments: &str) -> Option<ShellFileRead> {
    if !matches!(
        name,
        "shell" | "shell_command" | "exec_command" | "exec" | "container.exec" | "local_shell"
    ) {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).ok()?;
    let command = command_line(args.get("command").or_else(|| args.get("cmd")))?;
    let workdir = args.get("workdir").and_then(Value::as_str);
    command_file_read(&command, workdir)
}

/// The file a Codex `local_shell_call` prints, from its `action` (`command`, an argv, and
/// `working_directory`); see [`shell_file_read`].
pub fn local_shell_file_read(action: &Value) -> Option<ShellFileRead> {
    let command = command_line(action.get("command"))?;
    let workdir = action.get("working_directory").and_then(Value::as_str);
    command_file_read(&command, workdir)
}

/// Reads a Codex shell output (codex-rs `core/src/tools/mod.rs`,
/// `format_exec_output_for_model_*`, and the unified exec's `Chunk ID` / `Process exited with
/// code` header): the exit code and what the command printed.
pub fn shell_output(output: &str) -> ShellOutput<'_> {
    let trimmed = output.trim_start();
    if trimmed.starts_with('{')
        && let Some(read) = super::json_shell_output(trimmed)
        && let Some(text) = read.output
    {
        // Read once: the exit code is the one `exit_code(trimmed)` reads (the JSON's, else the
        // header's).
        let exit_code = read
            .exit_code
            .or_else(|| super::command_text::header_exit_code(trimmed));
        let (text, truncated) = match text {
            Cow::Borrowed(text) => {
                let (text, header_cut) = strip_truncation_header(text);
                (Cow::Borrowed(text), header_cut || has_cut_marker(text))
            }
            Cow::Owned(text) => {
                let (text, header_cut) = strip_truncation_header(&text);
                let truncated = header_cut || has_cut_marker(text);
                (Cow::Owned(text.to_string()), truncated)
            }
        };
        return ShellOutput {
            exit_code,
            text,
            truncated,
        };
    }
    let code = exit_code(output);
    let body = match output.find("\nOutput:\n") {
        Some(at) => output.get(at + "\nOutput:\n".len()..).unwrap_or_default(),
        None => output.strip_prefix("Output:\n").unwrap_or(output),
    };
    let (body, header_cut) = strip_truncation_header(body);
    // A `Total output lines` line in the header (before `Output:`) marks a cut output too.
    let header = output.get(..output.len() - body.len()).unwrap_or_default();
    let truncated = header_cut
        || header.contains(TOTAL_OUTPUT_LINES)
        || header.contains(TRUNCATION_WARNING)
        || has_cut_marker(body);
    ShellOutput {
        exit_code: code,
        text: Cow::Borrowed(body),
        truncated,
    }
}

/// `text` without codex's truncation header, and whether it had one.
fn strip_truncation_header(text: &str) -> (&str, bool) {
    let mut rest = text;
    let mut cut = false;
    for header in [TRUNCATION_WARNING, TOTAL_OUTPUT_LINES] {
        if rest.starts_with(header) {
            cut = true;
            rest = rest.split_once('\n').map_or("", |(_, after)| after);
        }
    }
    if cut {
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    (rest, cut)
}

/// Whether `text` holds a truncation marker: codex's (and `truncate_text`'s) `…N tokens
/// truncated…` / `…N chars truncated…`, or older codex's `[... omitted N of M lines ...]`.
pub fn has_cut_marker(text: &str) -> bool {
    CUT_MARKERS.iter().any(|marker| text.contains(marker))
}

/// Where the first truncation marker of `text` starts ([`has_cut_marker`]'s markers, none of
/// which spans lines), if it holds one.
pub fn first_cut_marker(text: &str) -> Option<usize> {
    // Each marker looked for only where it would start before the earliest found so far.
    let mut first: Option<usize> = None;
    for marker in CUT_MARKERS {
        let searched = match first {
            Some(at) => text.get(..text.floor_char_boundary(at + marker.len() - 1)),
            None => Some(text),
        };
        if let Some(found) = searched.and_then(|head| head.find(marker)) {
            first = Some(found);
        }
    }
    first
}

/// The file `command` prints, run in `workdir`.
fn command_file_read(command: &str, workdir: Option<&str>) -> Option<ShellFileRead> {
    let commands = simple_commands(command);
    let (cd, rest) = match commands.as_slice() {
        [only] => (None, only),
        [first, second] => {
            let words = split_words(first);
            match words.as_slice() {
                [cd, dir] if cd == "cd" && !dir.starts_with('-') => (Some(dir.clone()), second),
                _ => return None,
            }
        }
        _ => return None,
    };
    // `cd a && cat b` splits at each `&`: an `&&` leaves an empty part, which simple_commands
    // drops; a lone `&` (a background job) cannot be told from it, but `cd DIR &` does nothing.
    let workdir = match (cd, workdir) {
        (Some(dir), Some(base)) if !dir.starts_with('/') => {
            Some(format!("{}/{dir}", base.trim_end_matches('/')))
        }
        (Some(dir), _) => Some(dir),
        (None, base) => base.map(str::to_string),
    };
    let words = split_words(rest);
    let (program, operands) = words.split_first()?;
    let program = program.rsplit('/').next().unwrap_or(program);
    let read = match program {
        "cat" => cat(operands),
        "nl" => nl(operands),
        "sed" => sed(operands),
        "head" => head_lines(operands),
        _ => None,
    }?;
    if !looks_like_path(&read.path) {
        return None;
    }
    Some(ShellFileRead { workdir, ..read })
}

fn whole(path: &str, numbered: bool) -> ShellFileRead {
    ShellFileRead {
        path: path.to_string(),
        workdir: None,
        first_line: None,
        last_line: None,
        numbered,
    }
}

/// `cat FILE`, `cat -n FILE`.
fn cat(operands: &[String]) -> Option<ShellFileRead> {
    match operands {
        [path] if !path.starts_with('-') => Some(whole(path, false)),
        [flag, path] if flag == "-n" && !path.starts_with('-') => Some(whole(path, true)),
        _ => None,
    }
}

/// `nl -ba FILE`, `nl -b a FILE`: every line numbered (plain `nl` skips blank lines).
fn nl(operands: &[String]) -> Option<ShellFileRead> {
    match operands {
        [flag, path] if flag == "-ba" && !path.starts_with('-') => Some(whole(path, true)),
        [flag, style, path] if flag == "-b" && style == "a" && !path.starts_with('-') => {
            Some(whole(path, true))
        }
        _ => None,
    }
}

/// `sed -n 'A,Bp' FILE`, `sed -n 'Ap' FILE`.
fn sed(operands: &[String]) -> Option<ShellFileRead> {
    let [flag, script, path] = operands else {
        return None;
    };
    if flag != "-n" || path.starts_with('-') {
        return None;
    }
    let range = script.strip_suffix('p')?;
    let (first, last) = match range.split_once(',') {
        Some((first, last)) => (first, last),
        None => (range, range),
    };
    let first: usize = first.parse().ok()?;
    let last = match last {
        "$" => None,
        last => Some(last.parse::<usize>().ok()?),
    };
    if first == 0 || last.is_some_and(|last| last < first) {
        return None;
    }
    Some(ShellFileRead {
        first_line: Some(first),
        last_line: last,
        ..whole(path, false)
    })
}

/// `head FILE`, `head -n N FILE`, `head -N FILE`.
fn head_lines(operands: &[String]) -> Option<ShellFileRead> {
    let (count, path) = match operands {
        [path] => (HEAD_DEFAULT_LINES, path),
        [flag, count, path] if flag == "-n" => (count.parse().ok()?, path),
        [flag, path] => (flag.strip_prefix('-')?.parse().ok()?, path),
        _ => return None,
    };
    if path.starts_with('-') || count == 0 {
        return None;
    }
    Some(ShellFileRead {
        first_line: Some(1),
        last_line: Some(count),
        ..whole(path, false)
    })
}

#[cfg(test)]
#[path = "shell_reads_tests.rs"]
mod tests;
