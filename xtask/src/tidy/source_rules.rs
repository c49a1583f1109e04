//! Checks (e), (f) and (h), line by line over one source file: no printing in libraries, no
//! placeholder macros, no `std::process::Command::new` outside a process helper.
//!
//! The scan is textual: lines that are `//` comments (including `///` and `//!` docs, whose
//! examples may print) are skipped, and so is an inline `#[cfg(test)] mod tests { .. }` block
//! to the end of the file. String literals are not parsed; a macro name inside a string on a
//! code line is reported like code.

use crate::finding::Finding;

/// Which rules apply to a file; the caller decides from the package and the file's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Rules {
    /// (e) library crate code: no `println!`, `eprintln!`, `print!`, `eprint!`, `dbg!`.
    pub(crate) no_print: bool,
    /// (f) code under `src/`: no `todo!` or `unimplemented!` macro calls.
    pub(crate) no_placeholders: bool,
    /// (h) anything but a `process.rs`, xtask or tests: no `std::process::Command::new`.
    pub(crate) no_process_command: bool,
}

const PRINT_MACROS: &[&str] = &["println", "eprintln", "print", "eprint", "dbg"];
const PLACEHOLDER_MACROS: &[&str] = &["todo", "unimplemented"];

pub(crate) fn check(path: &str, text: &str, rules: Rules) -> Vec<Finding> {
    let imports_std_command = text.lines().any(imports_std_command);
    let mut findings = Vec::new();
    let mut after_cfg_test = false;
    let mut in_test_module = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let code = line.trim();
        if code.is_empty() || code.starts_with("//") {
            continue;
        }
        if code == "#[cfg(test)]" {
            after_cfg_test = true;
            continue;
        }
        if after_cfg_test && !code.starts_with("#[") {
            after_cfg_test = false;
            if is_inline_module(code) {
                in_test_module = true;
            }
        }
        if rules.no_placeholders {
            for name in PLACEHOLDER_MACROS {
                if find_macro_call(code, name, "(") {
                    findings.push(
                        Finding::error(
                            "placeholder",
                            path,
                            format!(
                                "`{name}!` left in source; finish the code or return a typed error"
                            ),
                        )
                        .at_line(number),
                    );
                }
            }
        }
        if in_test_module {
            continue;
        }
        if rules.no_print {
            for name in PRINT_MACROS {
                if find_macro_call(code, name, "([{") {
                    findings.push(
                        Finding::error(
                            "print",
                            path,
                            format!(
                                "`{name}!` in library code; libraries never print (return the data or log with `tracing`)"
                            ),
                        )
                        .at_line(number),
                    );
                }
            }
        }
        if rules.no_process_command && spawns_std_command(code, imports_std_command) {
            findings.push(
                Finding::error(
                    "process",
                    path,
                    "`std::process::Command::new` outside a `process.rs` helper; run external programs through the crate's process helper"
                        .to_owned(),
                )
                .at_line(number),
            );
        }
    }
    findings
}

/// `mod tests {` or `pub(crate) mod tests {`, as opposed to `mod tests;`.
fn is_inline_module(code: &str) -> bool {
    let without_vis = code
        .strip_prefix("pub(crate) ")
        .or_else(|| code.strip_prefix("pub(super) "))
        .or_else(|| code.strip_prefix("pub "))
        .unwrap_or(code);
    without_vis.starts_with("mod ") && code.ends_with('{')
}

fn imports_std_command(line: &str) -> bool {
    let code = line.trim();
    let Some(rest) = code
        .strip_prefix("use std::process::")
        .or_else(|| code.strip_prefix("pub(crate) use std::process::"))
    else {
        return false;
    };
    rest.starts_with("Command;")
        || rest.starts_with("Command as ")
        || (rest.starts_with('{') && contains_word(rest, "Command"))
}

fn spawns_std_command(code: &str, imports_std_command: bool) -> bool {
    if code.contains("std::process::Command::new") {
        return true;
    }
    imports_std_command
        && find_word_positions(code, "Command::new")
            .into_iter()
            .any(|start| !code[..start].ends_with("::"))
}

/// `name!` preceded by a non-identifier character and followed by one of `openers`.
fn find_macro_call(code: &str, name: &str, openers: &str) -> bool {
    let pattern = format!("{name}!");
    find_word_positions(code, &pattern)
        .into_iter()
        .any(|start| {
            code[start + pattern.len()..]
                .trim_start()
                .starts_with(|c: char| openers.contains(c))
        })
}

fn contains_word(code: &str, word: &str) -> bool {
    find_word_positions(code, word).into_iter().any(|start| {
        !code[start + word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// Byte offsets where `pattern` starts and the previous character is not part of an identifier.
fn find_word_positions(code: &str, pattern: &str) -> Vec<usize> {
    code.match_indices(pattern)
        .map(|(start, _)| start)
        .filter(|&start| {
            !code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .collect()
}

#[cfg(test)]
#[path = "source_rules_tests.rs"]
mod tests;
