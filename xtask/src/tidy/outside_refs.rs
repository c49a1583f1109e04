//! Check (k): the repository stands alone. No file refers to anything outside it, and no
//! comment cites documents it does not ship.
//!
//! Over every `*.md`, `*.rs` and `*.toml` file of the repository (not `target/` or hidden
//! directories) it reports:
//!
//! - the design sources that sit beside the repository on a developer's machine (the parent
//!   directory's `shared` folder), by name;
//! - markdown links (`[text](target)`, `[label]: target`) and relative paths starting with
//!   `../` that resolve above the repository root. A markdown path resolves from the file's
//!   directory; a Rust path from the file's directory and from its package directory (paths
//!   joined to `CARGO_MANIFEST_DIR`), and fails if either leaves the root. URLs are allowed;
//! - citations of unshipped documents: a numbered section sign or one after the word "spec", and
//!   acceptance-criterion ids (`AC-` and a number) outside `docs/design/`, where the
//!   repository's own design pages define them.

use std::path::Path;

use anyhow::Context;
use anyhow::Result;

use crate::finding::Finding;
use crate::workspace::display_path;

const CHECK: &str = "outside-ref";
const CITATION: &str = "citation";

/// Names of the design sources beside the repository; spelled in pieces so this file does not
/// report itself.
const SHARED_NAMES: &[&str] = &[concat!("..", "/shared"), concat!("shared", "/spec")];

/// Where acceptance-criterion ids may be defined.
const DESIGN_DIR: &str = "docs/design/";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Markdown,
    Rust,
    Toml,
}

impl FileKind {
    pub(crate) fn of(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "md" => Some(Self::Markdown),
            "rs" => Some(Self::Rust),
            "toml" => Some(Self::Toml),
            _ => None,
        }
    }
}

/// Checks every file of the repository under `root`.
pub(crate) fn check_repository(root: &Path) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    let mut files = Vec::new();
    collect(root, &mut files)?;
    files.sort();
    for file in files {
        let Some(kind) = FileKind::of(&file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("could not read {}", file.display()))?;
        let path = display_path(root, &file);
        let file_dir = depth_of(root, file.parent().unwrap_or(root));
        let mut bases = vec![file_dir];
        if kind == FileKind::Rust {
            bases.push(depth_of(root, package_dir(root, &file)));
        }
        findings.extend(check_text(&path, &text, kind, &bases));
    }
    Ok(findings)
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let file_type = entry
            .file_type()
            .with_context(|| format!("could not stat {}", path.display()))?;
        if file_type.is_dir() {
            if !name.starts_with('.') && name != "target" {
                collect(&path, files)?;
            }
        } else if file_type.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

/// The nearest directory at or above `file`'s that holds a `Cargo.toml`, else `root`.
fn package_dir<'a>(root: &Path, file: &'a Path) -> &'a Path {
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root))
        .find(|dir| dir.join("Cargo.toml").is_file())
        .unwrap_or(file)
}

/// How many directories `dir` lies below `root`.
fn depth_of(root: &Path, dir: &Path) -> usize {
    dir.strip_prefix(root)
        .map(|relative| relative.components().count())
        .unwrap_or(0)
}

/// `path` is the file's display path; `bases` the depths below the root that relative paths
/// in it resolve from.
pub(crate) fn check_text(path: &str, text: &str, kind: FileKind, bases: &[usize]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let in_design_dir = path.starts_with(DESIGN_DIR);
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(name) = SHARED_NAMES.iter().find(|name| line.contains(**name)) {
            findings.push(
                Finding::error(
                    CHECK,
                    path,
                    format!(
                        "`{name}` is outside the repository; explain it in docs/design/ and point there"
                    ),
                )
                .at_line(number),
            );
        } else {
            let mut targets = relative_paths(line);
            if kind == FileKind::Markdown {
                targets.extend(markdown_links(line));
            }
            let mut reported = Vec::new();
            for target in targets {
                let from_root = target.starts_with('/');
                let target_bases: &[usize] = if from_root { &[0] } else { bases };
                let leaves = target_bases
                    .iter()
                    .any(|base| leaves_root(*base, target.trim_start_matches('/')));
                if leaves && !reported.contains(&target) {
                    findings.push(
                        Finding::error(
                            CHECK,
                            path,
                            format!("`{target}` resolves outside the repository"),
                        )
                        .at_line(number),
                    );
                    reported.push(target);
                }
            }
        }
        if !in_design_dir && cites_spec_section(line) {
            findings.push(
                Finding::error(
                    CITATION,
                    path,
                    "cites a section of a spec the repository does not ship; cite docs/design/<page>.md and its heading".to_owned(),
                )
                .at_line(number),
            );
        }
        if !in_design_dir && let Some(id) = acceptance_id(line) {
            findings.push(
                Finding::error(
                    CITATION,
                    path,
                    format!(
                        "`{id}` cites an acceptance criterion; name the behaviour (docs/design/ keeps the criteria)"
                    ),
                )
                .at_line(number),
            );
        }
    }
    findings
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-./~".contains(c)
}

/// Relative paths starting with `../` that are not the middle of a longer path or URL.
pub(crate) fn relative_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in line.char_indices() {
        let starts = line[at..].starts_with("../") && !previous.is_some_and(is_path_char);
        previous = Some(c);
        if !starts {
            continue;
        }
        let token: String = line[at..]
            .chars()
            .take_while(|c| is_path_char(*c))
            .collect();
        found.push(token);
    }
    found
}

/// Targets of inline links `[text](target)` and reference definitions `[label]: target`,
/// without URLs, anchors, queries or titles.
pub(crate) fn markdown_links(line: &str) -> Vec<String> {
    let mut raw = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        raw.push(&after[..end]);
        rest = &after[end..];
    }
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some((_, target)) = trimmed.split_once("]: ")
    {
        raw.push(target);
    }
    raw.into_iter()
        .filter_map(|target| {
            let target = target.trim().trim_start_matches('<');
            let target = target
                .split([' ', '>', '#', '?'])
                .next()
                .unwrap_or_default();
            let is_url = target.contains("://") || target.starts_with("mailto:");
            (!target.is_empty() && !is_url).then(|| target.to_owned())
        })
        .collect()
}

/// Whether `target`, resolved lexically from a directory `base` levels below the root, goes
/// above the root at any point.
pub(crate) fn leaves_root(base: usize, target: &str) -> bool {
    let mut depth = base;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return true,
            },
            _ => depth += 1,
        }
    }
    false
}

/// A section sign (U+00A7) followed by a section number, or within a few words after "spec":
/// the repository's own pages are cited by file and heading, never by section number.
pub(crate) fn cites_spec_section(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.match_indices('\u{a7}').any(|(at, sign)| {
        let start = lower[..at]
            .char_indices()
            .rev()
            .nth(24)
            .map_or(0, |(i, _)| i);
        let numbered = lower[at + sign.len()..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit());
        numbered || lower[start..at].contains("spec")
    })
}

/// The first `AC-<number>` in `line` that is not part of a longer word.
pub(crate) fn acceptance_id(line: &str) -> Option<String> {
    line.match_indices("AC-").find_map(|(at, _)| {
        let before = line[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let digits: String = line[at + 3..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty()).then(|| format!("AC-{digits}"))
    })
}

#[cfg(test)]
#[path = "outside_refs_tests.rs"]
mod tests;
