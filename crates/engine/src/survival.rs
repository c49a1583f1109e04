//! Survival probes: what a compaction kept of what the session went on to use, measured on the
//! session's own record (docs/design/survival.md).
//!
//! At a compaction point there are three histories: the one before the point, the compacted
//! context that replaced it (summary, kept items, restored files), and what the session did
//! after the point. [`SurvivalProbes::extract`] turns the part of the history before the point
//! that the session used again after it into probes: the files it read, edited or ran again,
//! the paths, identifiers, commands and error messages of its later calls and messages that the
//! history already held, and, standing whatever came later, the user's constraints, the
//! requests still open and the todo items not completed. [`SurvivalProbes::check`] asks of each
//! whether the compacted context holds it (a file also by its content) and counts the answers
//! into a [`Survival`]: held / total, by kind, and what was lost.
//!
//! The same probes check any compacted context of the same point: the one the session recorded
//! and ours ([`compaction_point`] reads a recorded point; `agentctx compact --json` and the
//! replay report both). Everything is linear: the compacted context is indexed once
//! (`text_index`) and each probe is a few set lookups.

mod probe_extraction;
mod recorded_point;
mod replay_tracker;
mod text_index;

use std::collections::BTreeMap;
use std::path::Path;

use agentctx_protocol::ResponseItem;
use serde::Serialize;

use self::text_index::TextIndex;

pub use recorded_point::CompactionPoint;
pub use recorded_point::compaction_point;
pub(crate) use replay_tracker::SurvivalTracker;

/// Lost probes a [`Survival`] lists; the rest are counted in [`Survival::lost_omitted`].
pub const MAX_LOST_LISTED: usize = 100;

/// A probe's share of words a compacted context must hold for a sentence probe (a constraint, an
/// open ask, a todo, an error message) to count as held: 3 in 5.
const WORDS_HELD_NUMERATOR: usize = 3;
const WORDS_HELD_DENOMINATOR: usize = 5;

/// What a probe stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// A file the session read, edited or wrote after the point and had seen before it.
    File,
    /// A path named in a later call or message (not a file of [`ProbeKind::File`]).
    Path,
    /// An identifier (`snake_case`, `CamelCase`, `a::b`, a `--flag`) of a later call or
    /// message.
    Identifier,
    /// A shell command run before the point and again after it.
    Command,
    /// An error message met before the point that came up again after it.
    Error,
    /// A sentence in which the user stated a constraint.
    Constraint,
    /// A user request not answered yet at the point.
    OpenAsk,
    /// A todo item not completed at the point.
    Todo,
    /// A fact a test planted, to be found verbatim.
    Planted,
}

/// How a probe is found in a compacted context.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Check {
    /// Any of these lowercase tokens (a path is also found as the end of a longer path).
    AnyToken(Vec<String>),
    /// Every one of these lowercase tokens.
    AllTokens(Vec<String>),
    /// At least 3 in 5 of these content words.
    Words(Vec<String>),
    /// This text, verbatim (case aside).
    Verbatim(String),
}

/// What a file probe knows of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileFacts {
    /// The distinct significant lines of the content last seen before the point (empty when the
    /// history never showed it).
    lines: Vec<String>,
    /// The session read it again after the point.
    reread: bool,
}

/// One thing the compacted context should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// What it stands for.
    pub kind: ProbeKind,
    /// How it is shown: the path relative to the session's directory, the identifier, the
    /// command, the sentence.
    pub text: String,
    check: Check,
    file: Option<FileFacts>,
}

/// The answer for one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeAnswer {
    /// Held by name (for a sentence: by its words).
    pub held: bool,
    /// For a file whose content the history showed: at least half its significant lines are in
    /// the compacted context.
    pub content_held: Option<bool>,
}

impl Probe {
    /// A fact to be found verbatim (case aside).
    pub fn planted(fact: impl Into<String>) -> Self {
        let fact = fact.into();
        Self {
            kind: ProbeKind::Planted,
            text: fact.clone(),
            check: Check::Verbatim(fact),
            file: None,
        }
    }

    /// For a file probe: whether the session read it again after the point.
    pub fn reread(&self) -> bool {
        self.file.as_ref().is_some_and(|file| file.reread)
    }

    fn answer(&self, index: &TextIndex) -> ProbeAnswer {
        let held = match &self.check {
            Check::AnyToken(tokens) => tokens.iter().any(|token| index.has_token(token)),
            Check::AllTokens(tokens) => tokens.iter().all(|token| index.has_token(token)),
            Check::Words(words) => words_held(index.words_held(words), words.len()),
            Check::Verbatim(text) => index.contains(text),
        };
        let content_held = self
            .file
            .as_ref()
            .filter(|file| !file.lines.is_empty())
            .map(|file| {
                let found = file
                    .lines
                    .iter()
                    .filter(|line| index.has_line(line))
                    .count();
                found * 2 >= file.lines.len()
            });
        ProbeAnswer { held, content_held }
    }
}

/// Whether `found` of `total` content words is enough for a sentence probe.
fn words_held(found: usize, total: usize) -> bool {
    total > 0 && found * WORDS_HELD_DENOMINATOR >= total * WORDS_HELD_NUMERATOR
}

/// The probes of one compaction point.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SurvivalProbes {
    probes: Vec<Probe>,
}

impl SurvivalProbes {
    /// The probes of the point between `before` (the history the compaction replaced) and
    /// `after` (what the session recorded after it, to its next compaction or its end); relative
    /// paths resolve against `cwd`.
    pub fn extract(before: &[ResponseItem], after: &[ResponseItem], cwd: &Path) -> Self {
        Self {
            probes: probe_extraction::extract(before, after, cwd),
        }
    }

    /// Adds a probe (a planted fact).
    pub fn push(&mut self, probe: Probe) {
        self.probes.push(probe);
    }

    /// The probes, files first, in the order the session used them.
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// Each probe with its answer for `compacted`.
    pub fn answers(&self, compacted: &[ResponseItem]) -> Vec<(&Probe, ProbeAnswer)> {
        let index = TextIndex::of_items(compacted, true);
        self.probes
            .iter()
            .map(|probe| (probe, probe.answer(&index)))
            .collect()
    }

    /// What `compacted`, the context that replaced the history at the point, holds of the
    /// probes.
    pub fn check(&self, compacted: &[ResponseItem]) -> Survival {
        let mut survival = Survival::default();
        for (probe, answer) in self.answers(compacted) {
            survival.count(probe, answer);
        }
        survival.finish();
        survival
    }
}

/// Counts of one probe kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct KindFigures {
    /// Probes of the kind.
    pub probes: usize,
    /// Those the compacted context holds.
    pub held: usize,
}

/// Files whose content was checked, and those whose content the compacted context holds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ContentFigures {
    /// Files checked.
    pub files: usize,
    /// Files with at least half their significant lines in the compacted context.
    pub held: usize,
    /// `held / files` in percent, one decimal (`None` without files).
    pub percent: Option<f64>,
}

/// A probe the compacted context does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostProbe {
    /// Its kind.
    pub kind: ProbeKind,
    /// Its text.
    pub text: String,
}

/// What a compacted context holds of a point's probes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Survival {
    /// Probes checked.
    pub probes: usize,
    /// Probes held.
    pub held: usize,
    /// `held / probes` in percent, one decimal (`None` without probes).
    pub percent: Option<f64>,
    /// The counts by kind.
    pub kinds: BTreeMap<ProbeKind, KindFigures>,
    /// The file probes whose content the history showed before the point: how many the
    /// compacted context holds the content of.
    pub file_content: ContentFigures,
    /// Of those, the files the session read again after the point: a re-read whose content was
    /// held was a read the compacted context made unnecessary.
    pub reread: ContentFigures,
    /// The probes lost, in probe order, at most [`MAX_LOST_LISTED`].
    pub lost: Vec<LostProbe>,
    /// Lost probes beyond the list.
    pub lost_omitted: usize,
    /// Files whose name was held but whose content was not.
    pub content_lost: Vec<String>,
}

impl Survival {
    fn count(&mut self, probe: &Probe, answer: ProbeAnswer) {
        self.probes += 1;
        let kind = self.kinds.entry(probe.kind).or_default();
        kind.probes += 1;
        if answer.held {
            self.held += 1;
            kind.held += 1;
        } else if self.lost.len() < MAX_LOST_LISTED {
            self.lost.push(LostProbe {
                kind: probe.kind,
                text: probe.text.clone(),
            });
        } else {
            self.lost_omitted += 1;
        }
        if let Some(content_held) = answer.content_held {
            self.file_content.files += 1;
            self.file_content.held += usize::from(content_held);
            if probe.reread() {
                self.reread.files += 1;
                self.reread.held += usize::from(content_held);
            }
            if answer.held && !content_held {
                self.content_lost.push(probe.text.clone());
            }
        }
    }

    fn finish(&mut self) {
        self.percent = percent(self.held, self.probes);
        self.file_content.percent = percent(self.file_content.held, self.file_content.files);
        self.reread.percent = percent(self.reread.held, self.reread.files);
    }
}

/// `part / whole` in percent, rounded to one decimal.
fn percent(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| {
        let ratio = part as f64 / whole as f64;
        (ratio * 1000.0).round() / 10.0
    })
}

/// Where a compaction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionSource {
    /// The session recorded it.
    Recorded,
    /// Our policy took it in the replay.
    Ours,
}

/// The survival figures of one compaction of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactionSurvival {
    /// Whose compaction.
    pub source: CompactionSource,
    /// Its number among the compactions of its source (1-based).
    pub number: usize,
    /// The turn it happened in (`None`: before the first turn).
    pub turn: Option<usize>,
    /// The model requests of the main thread before it.
    pub after_request: usize,
    /// What its compacted context held.
    pub survival: Survival,
}

#[cfg(test)]
#[path = "survival_tests.rs"]
mod tests;
