//! `recall`: gets back the original text of what compaction removed from the model's context.
//!
//! It searches two places: the session's rollout, read through `agentctx-rollout` (the messages
//! and tool results recorded before the latest `compacted` line: every earlier compaction
//! replaced part of them), and the tool results micro-compaction persisted under
//! `<home>/tool-results/` for this session's calls (the call ids its rollout records). Matches
//! are ranked (the exact identifier or path first, then all query words, then some; newest
//! first), and the output is bounded: at most [`MAX_RECALL_LIMIT`] matches in
//! [`RECALL_OUTPUT_CHARS`] characters, each a few lines of context around the matching lines
//! with where it came from. A line of the rollout that cannot be read, or a persisted file that
//! is gone, is logged and skipped. See docs/design/compaction.md, "Getting back what compaction
//! removed".

use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

use agentctx_model::ToolSpec;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::LazyReadEvent;
use agentctx_rollout::RolloutReader;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use super::search_walk;

/// The tool's name.
pub(crate) const RECALL_TOOL: &str = "recall";
/// Matches shown when the model gives no limit.
pub(crate) const DEFAULT_RECALL_LIMIT: usize = 5;
/// The most matches one call shows.
pub(crate) const MAX_RECALL_LIMIT: usize = 10;
/// Characters of the whole output (about 2,000 tokens), headers included.
pub(crate) const RECALL_OUTPUT_CHARS: usize = 8_000;
/// Characters kept for the output's first and last lines (the query is cut to fit them).
const FRAME_CHARS: usize = 400;
/// The fewest characters of text a shown match gets; a match that cannot have them is left
/// out and counted as not shown.
const MIN_EXCERPT_CHARS: usize = 200;
/// Characters kept at the end of an excerpt for the line saying it was cut.
const CUT_NOTE_CHARS: usize = 48;
/// Lines shown before and after a matching line.
const CONTEXT_LINES: usize = 2;
/// Characters of one shown line before it is cut.
const MAX_LINE_CHARS: usize = 300;
/// Characters of a call's arguments shown in a match's header.
const MAX_ARGUMENT_CHARS: usize = 160;
/// Characters of the query repeated in the output.
const MAX_QUERY_SHOWN_CHARS: usize = 120;
/// The most query words looked at.
const MAX_QUERY_WORDS: usize = 16;
/// Matches kept while reading: past twice this many, the worst are dropped.
const KEPT_MATCHES: usize = 200;
/// Records read between two looks at the cancellation token.
const CANCEL_CHECK_EVERY: usize = 512;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    query: String,
    #[serde(default)]
    limit: Option<usize>,
}

/// Searches what compaction removed (read-only).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RecallTool;

#[async_trait]
impl ToolHandler for RecallTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: RECALL_TOOL.to_string(),
            description: "Returns the original text of messages and tool results that compaction summarised or cleared, best matches first, each with where it came from. Query with words, a file path or an identifier.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words, a file path or an identifier to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RECALL_LIMIT, "description": "Matches to return (default 5)"}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        }
    }

    // No class: a recall result is what the model just asked back, bounded, and clearing it
    // with the other old results would send the model to recall it again.

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args(RECALL_TOOL, arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let Some(query) = Query::parse(&args.query) else {
            return ToolOutput::error(
                "Error: recall: the query is empty; give words, a path or an identifier",
            );
        };
        let limit = args.limit.unwrap_or(DEFAULT_RECALL_LIMIT);
        if limit == 0 || limit > MAX_RECALL_LIMIT {
            return ToolOutput::error(format!(
                "Error: recall: limit is from 1 to {MAX_RECALL_LIMIT}"
            ));
        }
        let Some(rollout) = ctx.state().rollout_path.clone() else {
            return ToolOutput::error(
                "Error: recall: this run records no session file, so there is nothing to recall",
            );
        };
        let home = ctx.home.clone();
        let cancel = ctx.cancel.clone();
        search_walk::run_blocking(RECALL_TOOL, move || {
            let found = search(&rollout, &home, &query, &cancel);
            render(&query, found, limit)
        })
        .await
    }
}

/// The query: its words in lowercase, and whether it is one path-like token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Query {
    /// As given, trimmed (cut to [`MAX_QUERY_SHOWN_CHARS`]), to show.
    raw: String,
    /// Lowercase, trimmed.
    lower: String,
    /// Distinct lowercase words, in order.
    words: Vec<String>,
    /// One token with a `/` or an extension (`src/lib.rs`, `parser.rs`).
    path_like: bool,
}

impl Query {
    pub(crate) fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        let lower = raw.to_lowercase();
        let mut words: Vec<String> = Vec::new();
        for word in lower.split_whitespace() {
            let word = word.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';'));
            if !word.is_empty() && !words.iter().any(|known| known == word) {
                words.push(word.to_string());
            }
        }
        words.truncate(MAX_QUERY_WORDS);
        if words.is_empty() {
            return None;
        }
        let path_like = words.len() == 1
            && (lower.contains('/')
                || lower
                    .rsplit_once('.')
                    .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty()));
        Some(Self {
            raw: cut_chars(raw, MAX_QUERY_SHOWN_CHARS),
            lower,
            words,
            path_like,
        })
    }
}

/// Where a match came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A `user` message the user typed.
    UserMessage,
    /// An assistant message.
    AssistantMessage,
    /// A tool result, with its call.
    ToolOutput {
        /// The tool.
        name: String,
        /// Its arguments, cut for display.
        arguments: String,
        /// The file micro-compaction persisted the result to, when it did.
        persisted: Option<PathBuf>,
        /// The text is the persisted file's (the result came after the latest compaction).
        from_file: bool,
    },
}

/// How well a text matches the query; the larger the better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rank {
    /// The whole query stands in the text as an identifier or phrase of its own, or names the
    /// file of the call.
    exact: bool,
    /// Every query word is present.
    all_words: bool,
    /// How many query words are present.
    words: usize,
    /// The rollout line: the newer the better.
    line: usize,
}

/// One match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Match {
    pub(crate) rank: Rank,
    /// The rollout line of the item.
    pub(crate) line: usize,
    pub(crate) origin: Origin,
    /// The original text.
    pub(crate) text: String,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Found {
    /// Best first.
    pub(crate) matches: Vec<Match>,
    /// All matches seen (more than `matches` holds when many match).
    pub(crate) total: usize,
    /// The line of the latest `compacted` record, if the session compacted.
    pub(crate) latest_compaction: Option<usize>,
    /// Compactions the rollout records.
    pub(crate) compactions: usize,
    /// Items searched: messages and results before the latest compaction, persisted results.
    pub(crate) searched: usize,
    /// Persisted results among them.
    pub(crate) persisted: usize,
    /// Rollout lines that could not be read, persisted files that could not be.
    pub(crate) skipped: usize,
    /// Why reading stopped early, if it did.
    pub(crate) stopped: Option<String>,
}

/// A call waiting for its output.
struct PendingCall {
    name: String,
    /// The raw arguments (or input), matched against the query with the output.
    arguments: String,
    /// The file the call names (`path`, `file_path`, `notebook_path`), lowercase.
    path: Option<String>,
}

/// Searches the rollout at `rollout` and this session's persisted results under `home`.
pub(crate) fn search(
    rollout: &Path,
    home: &Path,
    query: &Query,
    cancel: &CancellationToken,
) -> Found {
    let mut found = Found::default();
    match compaction_lines(rollout, cancel) {
        Ok(lines) => {
            found.compactions = lines.len();
            found.latest_compaction = lines.last().copied();
        }
        Err(reason) => {
            tracing::warn!(path = %rollout.display(), %reason, "recall: cannot read the rollout");
            found.stopped = Some(reason);
            return found;
        }
    }
    if let Err(reason) = collect_matches(rollout, home, query, cancel, &mut found) {
        tracing::warn!(path = %rollout.display(), %reason, "recall: stopped reading the rollout");
        found.stopped = Some(reason);
    }
    found
        .matches
        .sort_by_key(|found| std::cmp::Reverse(found.rank));
    found
}

/// The lines of the rollout's `compacted` records, in order (payloads are not typed).
fn compaction_lines(rollout: &Path, cancel: &CancellationToken) -> Result<Vec<usize>, String> {
    let mut reader = RolloutReader::open(rollout).map_err(|error| error.to_string())?;
    let mut lines = Vec::new();
    for (count, event) in reader.lazy().enumerate() {
        if count % CANCEL_CHECK_EVERY == 0 && cancel.is_cancelled() {
            return Err("cancelled".to_string());
        }
        match event {
            Ok(LazyReadEvent::Record(record)) if record.kind() == "compacted" => {
                lines.push(record.line_number);
            }
            Ok(_) => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Ok(lines)
}

/// Reads the rollout again and ranks every searchable item: messages and tool results before
/// the latest compaction, and the persisted results of later calls.
fn collect_matches(
    rollout: &Path,
    home: &Path,
    query: &Query,
    cancel: &CancellationToken,
    found: &mut Found,
) -> Result<(), String> {
    let mut reader = RolloutReader::open(rollout).map_err(|error| error.to_string())?;
    let mut calls: HashMap<String, PendingCall> = HashMap::new();
    for (count, event) in reader.lazy().enumerate() {
        if count % CANCEL_CHECK_EVERY == 0 && cancel.is_cancelled() {
            return Err("cancelled".to_string());
        }
        let record = match event {
            Ok(LazyReadEvent::Record(record)) => record,
            Ok(LazyReadEvent::Skipped(skipped)) => {
                tracing::warn!(line = skipped.line_number, reason = %skipped.reason, "recall: skipped a rollout line");
                found.skipped += 1;
                continue;
            }
            Err(error) => return Err(error.to_string()),
        };
        if record.kind() != "response_item" {
            continue;
        }
        let line = record.line_number;
        let removed = found.latest_compaction.is_some_and(|latest| line < latest);
        let agentctx_protocol::RolloutItem::ResponseItem(item) = record.item().into_owned() else {
            continue;
        };
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                let path = call_path(&arguments);
                calls.insert(
                    call_id,
                    PendingCall {
                        name,
                        arguments,
                        path,
                    },
                );
            }
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } => {
                calls.insert(
                    call_id,
                    PendingCall {
                        name,
                        arguments: input,
                        path: None,
                    },
                );
            }
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                action,
                ..
            } => {
                calls.insert(
                    call_id,
                    PendingCall {
                        name: "local_shell".to_string(),
                        arguments: action.to_string(),
                        path: None,
                    },
                );
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                let call = calls.remove(&call_id);
                if call.as_ref().is_some_and(|call| call.name == RECALL_TOOL) {
                    // What an earlier recall showed is in the places it came from.
                    continue;
                }
                let persisted = agentctx_compact::persisted_output_path(home, &call_id);
                let persisted = persisted.is_file().then_some(persisted);
                let (text, from_file) = if removed {
                    (output.text_content(), false)
                } else if let Some(path) = &persisted {
                    match std::fs::read(path) {
                        Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), true),
                        Err(error) => {
                            tracing::warn!(path = %path.display(), %error, "recall: skipped a persisted result");
                            found.skipped += 1;
                            continue;
                        }
                    }
                } else {
                    continue;
                };
                if from_file {
                    found.persisted += 1;
                }
                let (name, arguments, path) = call.map_or_else(
                    || ("unknown tool".to_string(), String::new(), None),
                    |call| (call.name, call.arguments, call.path),
                );
                let meta = format!("{name} {arguments}").to_lowercase();
                let origin = Origin::ToolOutput {
                    name,
                    arguments: cut_chars(&arguments, MAX_ARGUMENT_CHARS),
                    persisted,
                    from_file,
                };
                consider(found, query, line, origin, text, &meta, path.as_deref());
            }
            ResponseItem::Message { .. } if removed => {
                let (origin, text) = match item.role() {
                    Some("user") => (
                        Origin::UserMessage,
                        agentctx_context::user_request_text(&item),
                    ),
                    Some("assistant") => (Origin::AssistantMessage, item.message_text()),
                    _ => continue,
                };
                let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
                    continue;
                };
                consider(found, query, line, origin, text, "", None);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Ranks one item and keeps it when it matches.
fn consider(
    found: &mut Found,
    query: &Query,
    line: usize,
    origin: Origin,
    text: String,
    meta: &str,
    call_path: Option<&str>,
) {
    found.searched += 1;
    let Some(rank) = rank(query, &text.to_lowercase(), meta, call_path, line) else {
        return;
    };
    found.total += 1;
    found.matches.push(Match {
        rank,
        line,
        origin,
        text,
    });
    if found.matches.len() > 2 * KEPT_MATCHES {
        found
            .matches
            .sort_by_key(|found| std::cmp::Reverse(found.rank));
        found.matches.truncate(KEPT_MATCHES);
    }
}

/// How `text` (lowercase) and `meta` (the call's name and arguments, lowercase) match the
/// query; `None` when no word is present.
pub(crate) fn rank(
    query: &Query,
    text: &str,
    meta: &str,
    call_path: Option<&str>,
    line: usize,
) -> Option<Rank> {
    let words = query
        .words
        .iter()
        .filter(|word| text.contains(word.as_str()) || meta.contains(word.as_str()))
        .count();
    let path_hit = query.path_like && call_path.is_some_and(|path| same_file(path, &query.lower));
    let exact =
        path_hit || contains_as_word(text, &query.lower) || contains_as_word(meta, &query.lower);
    (words > 0 || exact).then_some(Rank {
        exact,
        all_words: words == query.words.len(),
        words,
        line,
    })
}

/// Whether `needle` stands in `haystack` not as part of a longer identifier or file name
/// (`parse` is not in `parser`, `lib.rs` not in `lib.rs.bak`; a sentence's full stop ends it).
fn contains_as_word(haystack: &str, needle: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    haystack.match_indices(needle).any(|(start, _)| {
        let before = haystack[..start].chars().next_back();
        let mut after = haystack[start + needle.len()..].chars();
        let ends = match after.next() {
            None => true,
            Some('.') => after.next().is_none_or(|c| !is_ident(c)),
            Some(c) => !is_ident(c),
        };
        before.is_none_or(|c| !is_ident(c)) && ends
    })
}

/// Whether the call's file `path` and the query's `wanted` name the same file: equal, or one
/// the other's tail at a `/` (`src/lib.rs` and `/repo/src/lib.rs`).
fn same_file(path: &str, wanted: &str) -> bool {
    let path = path.trim_start_matches("./");
    let wanted = wanted.trim_start_matches("./");
    path == wanted || path.ends_with(&format!("/{wanted}")) || wanted.ends_with(&format!("/{path}"))
}

/// The file a call's JSON arguments name, lowercase.
fn call_path(arguments: &str) -> Option<String> {
    let value: Value = serde_json::from_str(arguments).ok()?;
    ["path", "file_path", "notebook_path"]
        .iter()
        .find_map(|key| value.get(key).and_then(Value::as_str))
        .map(str::to_lowercase)
}

/// `text` cut to `max` characters, with `…` when cut.
fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// The lines of `text` around those that hold a query word, within `budget` characters: runs
/// of lines [`CONTEXT_LINES`] either side of each matching line, `…` between runs that are not
/// adjacent. A text that matched only through its call (a read of the file asked for) shows its
/// first lines.
pub(crate) fn excerpt(text: &str, query: &Query, budget: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.to_lowercase();
            query.words.iter().any(|word| line.contains(word.as_str()))
        })
        .map(|(index, _)| index)
        .collect();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &hit in &hits {
        let start = hit.saturating_sub(CONTEXT_LINES);
        let end = (hit + CONTEXT_LINES).min(lines.len().saturating_sub(1));
        match runs.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => runs.push((start, end)),
        }
    }
    if runs.is_empty() && !lines.is_empty() {
        runs.push((0, lines.len() - 1));
    }
    let mut out = String::new();
    let mut shown_hits = 0;
    for (index, (start, end)) in runs.iter().enumerate() {
        if index > 0 {
            out.push_str("…\n");
        }
        let run = lines.iter().enumerate().skip(*start).take(end + 1 - start);
        for (line_index, text) in run {
            let line = format!("{}\n", cut_chars(text, MAX_LINE_CHARS));
            if out.len() + line.len() > budget.saturating_sub(CUT_NOTE_CHARS) {
                let left = hits.len().saturating_sub(shown_hits);
                out.push_str(&if left > 0 {
                    format!("… (cut here; {left} more matching lines)\n")
                } else {
                    "… (cut here)\n".to_string()
                });
                return out;
            }
            if hits.binary_search(&line_index).is_ok() {
                shown_hits += 1;
            }
            out.push_str(&line);
        }
    }
    out
}

/// Where a match came from, in one line.
fn describe(found_match: &Match, latest_compaction: Option<usize>) -> String {
    let line = found_match.line;
    let when = match latest_compaction {
        Some(latest) if line < latest => "before the compaction",
        _ => "after the latest compaction",
    };
    match &found_match.origin {
        Origin::UserMessage => format!("user message, rollout line {line} ({when})"),
        Origin::AssistantMessage => format!("assistant message, rollout line {line} ({when})"),
        Origin::ToolOutput {
            name,
            arguments,
            persisted,
            from_file,
        } => {
            let call = if arguments.is_empty() {
                name.clone()
            } else {
                format!("{name} {arguments}")
            };
            match persisted {
                Some(path) if *from_file => format!(
                    "result of {call}, cleared and saved to {} (rollout line {line})",
                    path.display()
                ),
                Some(path) => format!(
                    "result of {call}, rollout line {line} ({when}; whole in {})",
                    path.display()
                ),
                None => format!("result of {call}, rollout line {line} ({when})"),
            }
        }
    }
}

/// The tool's output for what `found` holds, at most `limit` matches within
/// [`RECALL_OUTPUT_CHARS`].
pub(crate) fn render(query: &Query, found: Found, limit: usize) -> ToolOutput {
    if let Some(reason) = found.stopped.as_deref()
        && found.matches.is_empty()
    {
        return ToolOutput::error(format!(
            "Error: recall: cannot read this session's record: {reason}"
        ));
    }
    let mut notes = String::new();
    if found.skipped > 0 {
        notes.push_str(&format!(
            "({} unreadable lines or files were skipped.)\n",
            found.skipped
        ));
    }
    if let Some(reason) = found.stopped.as_deref() {
        notes.push_str(&format!("(Reading stopped early: {reason}.)\n"));
    }
    if found.latest_compaction.is_none() && found.persisted == 0 && found.searched == 0 {
        return ToolOutput::ok(format!(
            "Nothing has been removed from your context in this session yet: no compaction ran and no cleared tool result was saved, so what you saw is still in your context.\n{notes}"
        ));
    }
    if found.matches.is_empty() {
        return ToolOutput::ok(format!(
            "No match for \"{}\" in what compaction removed ({} searched). The current context may still hold it; to search the files themselves, use grep.\n{notes}",
            query.raw,
            if found.searched == 1 {
                "1 message or tool result".to_string()
            } else {
                format!("{} messages and tool results", found.searched)
            }
        ));
    }
    let wanted = found.matches.len().min(limit);
    let mut body = String::new();
    let mut left = RECALL_OUTPUT_CHARS
        .saturating_sub(notes.len())
        .saturating_sub(FRAME_CHARS);
    let mut shown = 0;
    for (index, found_match) in found.matches.iter().take(wanted).enumerate() {
        let header = format!(
            "\n[{}] {}\n",
            index + 1,
            describe(found_match, found.latest_compaction)
        );
        if header.len() + MIN_EXCERPT_CHARS > left {
            break;
        }
        // An even share of what is left, so what one match does not use goes to the next.
        let budget = (left / (wanted - index))
            .max(header.len() + MIN_EXCERPT_CHARS)
            .min(left);
        let text = excerpt(&found_match.text, query, budget - header.len());
        left = left.saturating_sub(header.len() + text.len());
        body.push_str(&header);
        body.push_str(&text);
        shown += 1;
    }
    let mut out = format!(
        "{shown} of {} matches for \"{}\" in what compaction removed, best first:\n",
        found.total, query.raw
    );
    out.push_str(&body);
    out.push('\n');
    if found.total > shown {
        out.push_str(&format!(
            "{} more matches not shown; add words to the query, or raise limit (at most {MAX_RECALL_LIMIT}).\n",
            found.total - shown
        ));
    }
    out.push_str(&notes);
    ToolOutput::ok(out)
}

#[cfg(test)]
#[path = "recall_tests.rs"]
mod tests;
