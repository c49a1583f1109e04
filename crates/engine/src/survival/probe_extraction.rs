//! The probes of a compaction point, from the history before it and what the session did after
//! it (docs/design/survival.md, "Probes").
//!
//! The files come from the recorded reads and writes (`crate::recorded_reads`, which reads the
//! tool calls and outputs of both agents), the commands, errors, user requests and todos from
//! the history digest (`agentctx_context::HistoryDigest`); paths and identifiers are the tokens
//! of the later calls and messages. "Already in the history before the point" is decided in one
//! pass over the earlier history's tokens against the set of candidates.

use std::collections::HashMap;
use std::collections::HashSet;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::HistoryDigest;
use agentctx_context::user_request_text;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TodoStatus;

use super::Check;
use super::FileFacts;
use super::Probe;
use super::ProbeKind;
use super::text_index::WORD_TRIM;
use super::text_index::argument_texts;
use super::text_index::content_words;
use super::text_index::item_texts;
use super::text_index::significant_line;
use super::text_index::token_variants;
use super::text_index::tokens;
use crate::recorded_reads::RecordedAccess;
use crate::recorded_reads::recorded_reads;

/// File extensions that make a token a path on their own (`Cargo.toml`, `report.rs`).
const PATH_EXTENSIONS: [&str; 48] = [
    "rs", "py", "md", "toml", "json", "jsonl", "yaml", "yml", "txt", "js", "mjs", "ts", "tsx",
    "jsx", "go", "c", "h", "cc", "cpp", "hpp", "java", "kt", "rb", "sh", "lock", "cfg", "ini",
    "xml", "atom", "html", "css", "scss", "snap", "csv", "sql", "proto", "tally", "conf", "mod",
    "sum", "swift", "php", "lua", "zig", "nix", "vue", "svelte", "ex",
];

/// Content words a sentence needs to be a probe: fewer say too little to be found again.
const MIN_SENTENCE_WORDS: usize = 2;

/// Content words an error message needs to be recognised when it comes up again.
const MIN_ERROR_WORDS: usize = 3;

/// Words one of which an error message holds (lowercase): the digest takes a failed command's
/// first output line when no line says what went wrong (`test result: ok. 26 passed; …` of a
/// run that failed later), and such a line is no error message.
const ERROR_WORDS: [&str; 12] = [
    "error",
    "panicked",
    "exception",
    "traceback",
    "cannot",
    "could not",
    "not found",
    "no such",
    "denied",
    "fatal",
    "undefined",
    "refused",
];

/// Words that open a sentence stating a constraint (after an optional "please", "and", "but",
/// "also", "so"), or that follow "you", "we" or "please" in one.
const CONSTRAINT_OPENINGS: [&str; 10] = [
    "never",
    "always",
    "only",
    "don't",
    "dont",
    "do not",
    "avoid",
    "make sure",
    "keep",
    "stop",
];

/// Words that make a sentence a constraint wherever they stand.
const CONSTRAINT_ANYWHERE: [&str; 4] = ["must", "mustn't", "must not", "under no circumstances"];

/// Words that may come before a constraint's opening word.
const CONSTRAINT_LEADS: [&str; 8] = ["please", "and", "but", "also", "so", "you", "we", "just"];

/// The probes of the point between `before` and `after`.
pub(crate) fn extract(before: &[ResponseItem], after: &[ResponseItem], cwd: &Path) -> Vec<Probe> {
    let earlier = Earlier::of(before, cwd);
    let mut wanted = Wanted::default();
    // The errors met before the point, and the words each comes up again by.
    let errors = earlier_errors(&earlier.digest);
    let mut error_words = Wanted::default();
    for (_, words) in &errors {
        for word in words {
            error_words.want(word);
        }
    }

    // The files the session touched after the point, in order of first use.
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    let mut file_at: HashMap<PathBuf, usize> = HashMap::new();
    for access in recorded_reads(after, cwd) {
        let reread = matches!(access.access, RecordedAccess::Read { .. });
        match file_at.get(&access.path) {
            Some(&at) => {
                if let Some((_, seen)) = files.get_mut(at) {
                    *seen |= reread;
                }
            }
            None => {
                file_at.insert(access.path.clone(), files.len());
                wanted.want(&relative_name(&access.path, cwd).to_lowercase());
                wanted.want(&access.path.to_string_lossy().to_lowercase());
                files.push((access.path, reread));
            }
        }
    }

    // The paths and identifiers of the later calls and messages.
    let mut mentioned: Vec<(ProbeKind, String, String)> = Vec::new();
    let mut mentioned_keys: HashSet<String> = HashSet::new();
    let mut lower = String::new();
    for item in after {
        used_texts(item, |text| {
            for token in tokens(text) {
                error_words.mark(token.trim_matches(WORD_TRIM), &mut lower);
                for (kind, shown) in candidates(token) {
                    let key = shown.to_lowercase();
                    if mentioned_keys.insert(key.clone()) {
                        wanted.want(&key);
                        mentioned.push((kind, shown.to_string(), key));
                    }
                }
            }
        });
    }
    wanted.scan(before);

    let mut probes = Vec::new();
    let mut file_names: Vec<String> = Vec::new();
    for (path, reread) in files {
        let name = relative_name(&path, cwd);
        let absolute = path.to_string_lossy().to_lowercase();
        let seen = earlier.paths.contains(&path)
            || wanted.found(&name.to_lowercase())
            || wanted.found(&absolute);
        if !seen {
            continue;
        }
        let lines = earlier
            .content
            .get(&path)
            .map(|content| distinct_lines(content))
            .unwrap_or_default();
        file_names.push(absolute.clone());
        probes.push(Probe {
            kind: ProbeKind::File,
            text: name.clone(),
            check: Check::AnyToken(vec![name.to_lowercase(), absolute]),
            file: Some(FileFacts { lines, reread }),
        });
    }
    let cwd_name = cwd.to_string_lossy().to_lowercase();
    for (kind, shown, key) in mentioned {
        // The session's directory (a call's `workdir`) and its parents say nothing.
        let is_cwd = kind == ProbeKind::Path && cwd_name.starts_with(key.trim_end_matches('/'));
        if !wanted.found(&key) || is_cwd {
            continue;
        }
        let is_file = kind == ProbeKind::Path
            && file_names
                .iter()
                .any(|file| file == &key || file.ends_with(&format!("/{key}")));
        if is_file {
            continue;
        }
        probes.push(Probe {
            kind,
            text: shown,
            check: Check::AnyToken(vec![key]),
            file: None,
        });
    }

    let later = HistoryDigest::from_items(after);
    command_probes(&earlier.digest, &later, &mut probes);
    // An error comes up again in a later failure or in a later call or message.
    for error in &later.errors {
        for token in tokens(&error.message) {
            error_words.mark(token.trim_matches(WORD_TRIM), &mut lower);
        }
    }
    error_probes(errors, &error_words, &mut probes);
    constraint_probes(&earlier.digest, &mut probes);
    for ask in open_asks(before) {
        sentence_probe(ProbeKind::OpenAsk, &ask, &mut probes);
    }
    for todo in &earlier.digest.todos {
        if todo.status != TodoStatus::Completed {
            sentence_probe(ProbeKind::Todo, &todo.content, &mut probes);
        }
    }
    probes
}

/// What the history before the point shows.
struct Earlier {
    /// Every file it read or wrote.
    paths: HashSet<PathBuf>,
    /// The content of each file as last seen, where it showed one.
    content: HashMap<PathBuf, String>,
    digest: HistoryDigest,
}

impl Earlier {
    fn of(before: &[ResponseItem], cwd: &Path) -> Self {
        let mut paths = HashSet::new();
        let mut content = HashMap::new();
        for read in recorded_reads(before, cwd) {
            if let Some(text) = read.content {
                content.insert(read.path.clone(), text);
            }
            paths.insert(read.path);
        }
        Self {
            paths,
            content,
            digest: HistoryDigest::from_items(before),
        }
    }
}

/// Lowercase tokens looked for in the earlier history, and whether each was found.
///
/// The scan meets every token of the earlier history, most of them wanted by no probe: a token
/// is hashed only when a wanted token has its length and its first byte (case aside).
#[derive(Default)]
struct Wanted {
    tokens: HashMap<String, bool>,
    /// Bit `n` (`n` < 63): a wanted token is `n` bytes long; bit 63: one is 63 bytes or longer.
    lengths: u64,
    /// Bit `b`: a wanted token starts with byte `b` (lowercase ASCII as is, other bytes too).
    first_bytes: [u64; 4],
}

fn length_bit(length: usize) -> u64 {
    1 << length.min(63)
}

fn first_byte_bit(first_bytes: &[u64; 4], byte: u8) -> bool {
    let byte = byte.to_ascii_lowercase();
    first_bytes
        .get(usize::from(byte / 64))
        .is_some_and(|word| word & (1 << (byte % 64)) != 0)
}

impl Wanted {
    fn want(&mut self, token: &str) {
        let Some(&first) = token.as_bytes().first() else {
            return;
        };
        self.tokens.entry(token.to_string()).or_insert(false);
        self.lengths |= length_bit(token.len());
        if let Some(word) = self.first_bytes.get_mut(usize::from(first / 64)) {
            *word |= 1 << (first % 64);
        }
    }

    /// One pass over every text of `history`: each token (and each form of it a lookup may name
    /// it by) marks the wanted token it is.
    fn scan(&mut self, history: &[ResponseItem]) {
        if self.tokens.is_empty() {
            return;
        }
        let mut lower = String::new();
        for item in history {
            item_texts(item, |text| {
                for token in tokens(text) {
                    token_variants(token, |variant| self.mark(variant, &mut lower));
                }
            });
        }
    }

    /// Marks `token` found when it is wanted, case aside.
    fn mark(&mut self, token: &str, lower: &mut String) {
        let passes = self.lengths & length_bit(token.len()) != 0
            && token
                .as_bytes()
                .first()
                .is_some_and(|byte| first_byte_bit(&self.first_bytes, *byte));
        if !passes {
            return;
        }
        lower.clear();
        if token.is_ascii() {
            lower.push_str(token);
            lower.make_ascii_lowercase();
        } else {
            lower.push_str(&token.to_lowercase());
        }
        if let Some(found) = self.tokens.get_mut(lower.as_str()) {
            *found = true;
        }
    }

    fn found(&self, token: &str) -> bool {
        self.tokens.get(token).copied().unwrap_or(false)
    }
}

/// The texts of `item` that say what the session used: a call's arguments or input, the user's
/// own words (harness text left out) and the assistant's messages. Tool outputs are what the
/// world answered, not what the session used, and are left out.
fn used_texts(item: &ResponseItem, mut visit: impl FnMut(&str)) {
    match item {
        ResponseItem::FunctionCall { arguments, .. } => argument_texts(arguments, &mut visit),
        ResponseItem::CustomToolCall { input, .. } => visit(input),
        ResponseItem::LocalShellCall { .. } => item_texts(item, visit),
        ResponseItem::Message { role, .. } if role == "assistant" => item_texts(item, visit),
        ResponseItem::Message { .. } => {
            if let Some(text) = user_request_text(item) {
                visit(&text);
            }
        }
        _ => {}
    }
}

/// The probes a token of a later call or message may be: a path, or identifiers (a dotted name
/// gives one per identifier part).
fn candidates(token: &str) -> Vec<(ProbeKind, &str)> {
    let token = token.trim_start_matches("./").trim_end_matches("()");
    if is_path(token) {
        return vec![(ProbeKind::Path, token)];
    }
    if is_flag(token) {
        return vec![(ProbeKind::Identifier, token)];
    }
    token
        .split('.')
        .map(|part| part.trim_end_matches("()"))
        .filter(|part| is_identifier(part))
        .map(|part| (ProbeKind::Identifier, part))
        .collect()
}

/// A path: a name with a known extension, or an absolute (or `~/`) path of two parts or more.
fn is_path(token: &str) -> bool {
    if !token.contains(['/', '.'])
        || (token.contains(':') && token.contains("://"))
        || token.starts_with("//")
        || !token.chars().any(char::is_alphabetic)
    {
        return false;
    }
    let last = token.rsplit('/').next().unwrap_or(token);
    let known_extension = last.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && PATH_EXTENSIONS
                .iter()
                .any(|known| extension.eq_ignore_ascii_case(known))
    });
    let rooted = token.starts_with('/') || token.starts_with("~/");
    known_extension
        || (rooted
            && token
                .split('/')
                .filter(|part| !part.is_empty() && *part != "~")
                .count()
                >= 2)
}

/// A command-line option: `--` and four or more letters, digits or dashes.
fn is_flag(token: &str) -> bool {
    token.strip_prefix("--").is_some_and(|name| {
        name.len() >= 4
            && name.starts_with(|ch: char| ch.is_ascii_alphabetic())
            && name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '-')
    })
}

/// An identifier of code: four characters or more of letters, digits, `_` and `::`, starting
/// with a letter or `_`, and shaped like code, not a word: an inner `_`, a `::`, or a lowercase
/// letter followed by an uppercase one (`camelCase`, `CamelCase`).
fn is_identifier(token: &str) -> bool {
    if token.len() < 4
        || !token.starts_with(|ch: char| ch.is_alphabetic() || ch == '_')
        || !token
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == ':')
    {
        return false;
    }
    let inner_underscore = token.trim_matches('_').contains('_');
    let path_separator = token.contains(':')
        && token.contains("::")
        && !token.starts_with(':')
        && !token.ends_with(':');
    let hump = token
        .chars()
        .zip(token.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    (inner_underscore || path_separator || hump) && !(path_separator && token.contains(":::"))
}

/// `path` relative to `cwd` when it is under it, else as it stands.
fn relative_name(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd)
        .ok()
        .filter(|relative| !relative.as_os_str().is_empty())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The distinct significant lines of a file's content.
fn distinct_lines(content: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    content
        .lines()
        .filter_map(significant_line)
        .filter(|line| seen.insert(*line))
        .map(str::to_string)
        .collect()
}

/// A command's core: its words before the first pipe, list operator or redirection, lowercase,
/// one-character words left out. `cargo test -q 2>&1 | tail -30` is `cargo test -q`.
pub(crate) fn command_core(command: &str) -> Vec<String> {
    let lower = command.to_lowercase();
    let cut = ["|", "&&", ";", " >", " 2>", "\n"]
        .iter()
        .filter_map(|separator| lower.find(separator))
        .min()
        .unwrap_or(lower.len());
    tokens(lower.get(..cut).unwrap_or_default())
        .filter(|word| word.chars().count() >= 2)
        .map(str::to_string)
        .collect()
}

/// A probe per command core the session ran both before and after the point.
fn command_probes(earlier: &HistoryDigest, later: &HistoryDigest, probes: &mut Vec<Probe>) {
    let before: HashSet<Vec<String>> = earlier
        .commands
        .iter()
        .map(|run| command_core(&run.command))
        .collect();
    let mut added = HashSet::new();
    for run in &later.commands {
        let core = command_core(&run.command);
        if core.is_empty() || !before.contains(&core) || !added.insert(core.clone()) {
            continue;
        }
        probes.push(Probe {
            kind: ProbeKind::Command,
            text: core.join(" "),
            check: Check::AllTokens(core),
            file: None,
        });
    }
}

/// The error messages the digest met before the point that hold an error word, with their
/// content words (those with enough of them, each message once).
fn earlier_errors(digest: &HistoryDigest) -> Vec<(String, Vec<String>)> {
    let mut seen = HashSet::new();
    let mut errors = Vec::new();
    for error in &digest.errors {
        let lower = error.message.to_lowercase();
        if !ERROR_WORDS.iter().any(|word| lower.contains(word)) || !seen.insert(lower) {
            continue;
        }
        let words = content_words(&error.message);
        if words.len() >= MIN_ERROR_WORDS {
            errors.push((error.message.clone(), words));
        }
    }
    errors
}

/// A probe per earlier error whose words all came up again (`later` marked them).
fn error_probes(errors: Vec<(String, Vec<String>)>, later: &Wanted, probes: &mut Vec<Probe>) {
    for (message, words) in errors {
        if words.iter().all(|word| later.found(word)) {
            probes.push(Probe {
                kind: ProbeKind::Error,
                text: message,
                check: Check::Words(words),
                file: None,
            });
        }
    }
}

/// A probe per sentence of the user's requests that states a constraint (and per preference the
/// digest found, which its own rule decides).
fn constraint_probes(digest: &HistoryDigest, probes: &mut Vec<Probe>) {
    let mut seen = HashSet::new();
    let stated = digest
        .user_requests
        .iter()
        .flat_map(|request| sentences(request))
        .filter(|sentence| is_constraint(sentence))
        .chain(digest.preferences.iter().map(String::as_str));
    for sentence in stated {
        if seen.insert(sentence.to_lowercase()) {
            sentence_probe(ProbeKind::Constraint, sentence, probes);
        }
    }
}

/// A probe found by the content words of `text`, when it has enough of them.
fn sentence_probe(kind: ProbeKind, text: &str, probes: &mut Vec<Probe>) {
    let words = content_words(text);
    if words.len() < MIN_SENTENCE_WORDS {
        return;
    }
    probes.push(Probe {
        kind,
        text: agentctx_context::clip_one_line(text, 300),
        check: Check::Words(words),
        file: None,
    });
}

/// The sentences of `text`: its lines, split after `.`, `!` or `?` followed by a space.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        for (at, pair) in line.as_bytes().windows(2).enumerate() {
            if matches!(pair, [b'.' | b'!' | b'?', b' ']) {
                if let Some(sentence) = line.get(start..=at) {
                    out.push(sentence.trim());
                }
                start = at + 2;
            }
        }
        if let Some(rest) = line.get(start..) {
            out.push(rest.trim());
        }
    }
    out.retain(|sentence| !sentence.is_empty());
    out
}

/// The constraint rule: not a question, and either a word of [`CONSTRAINT_ANYWHERE`] anywhere,
/// or a word of [`CONSTRAINT_OPENINGS`] opening the sentence, after at most two of
/// [`CONSTRAINT_LEADS`] ("please never …", "you must …", "and don't …").
pub(crate) fn is_constraint(sentence: &str) -> bool {
    let lower = sentence
        .trim()
        .trim_start_matches(['-', '*', '>', ' '])
        .to_lowercase();
    if lower.ends_with('?') {
        return false;
    }
    let words: Vec<&str> = lower
        .split(|ch: char| ch.is_whitespace() || matches!(ch, ',' | ':'))
        .filter(|word| !word.is_empty())
        .collect();
    let has = |phrase: &str| {
        let parts: Vec<&str> = phrase.split(' ').collect();
        words.windows(parts.len()).any(|window| window == parts)
    };
    if CONSTRAINT_ANYWHERE.iter().any(|phrase| has(phrase)) {
        return true;
    }
    let leads = words
        .iter()
        .take(2)
        .take_while(|word| CONSTRAINT_LEADS.contains(word))
        .count();
    let rest = words.get(leads..).unwrap_or_default();
    CONSTRAINT_OPENINGS.iter().any(|phrase| {
        let parts: Vec<&str> = phrase.split(' ').collect();
        rest.starts_with(&parts)
    })
}

/// The user requests open at the end of `history`: those since the last final answer (an
/// assistant message no tool call followed), when the history does not end with one.
pub(crate) fn open_asks(history: &[ResponseItem]) -> Vec<String> {
    let mut open = Vec::new();
    let mut answered = false;
    for item in history {
        match item {
            ResponseItem::Message { role, .. }
                if role == "assistant"
                    && item
                        .message_text()
                        .is_some_and(|text| !text.trim().is_empty()) =>
            {
                answered = true;
            }
            ResponseItem::Message { role, .. } if role == "assistant" => {}
            ResponseItem::Message { .. } => {
                if let Some(text) = user_request_text(item) {
                    if answered {
                        open.clear();
                        answered = false;
                    }
                    open.push(text);
                }
            }
            other if other.is_tool_call() => answered = false,
            _ => {}
        }
    }
    if answered {
        open.clear();
    }
    open
}

#[cfg(test)]
#[path = "probe_extraction_tests.rs"]
mod tests;
