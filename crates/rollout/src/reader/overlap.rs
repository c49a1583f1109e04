//! The start of a Claude Code transcript read once for both passes of the reader, the work
//! shared with a helper thread (see [`Overlap`]).

use std::collections::BTreeMap;

use crate::claude_import;
use crate::claude_import::ClaudeImporter;
use crate::claude_import::ConversationTree;
use crate::claude_import::ReadLine;

/// The start of a Claude Code transcript, in memory, read once for both passes: this thread
/// reads each line as the second pass reads it and sends what it read to a helper thread,
/// which gives the line's head to the conversation tree (the first pass) and imports its
/// record, holding the events until the tree is complete. A scoped thread: it ends before
/// [`Overlap::run`] returns.
pub(super) struct Overlap<'a> {
    pub(super) bytes: &'a [u8],
    /// The number of its first line.
    pub(super) first_line: usize,
    pub(super) max_line_bytes: usize,
}

/// What the second pass made of the start of a transcript: the importer, its events held, and
/// the records it ignored.
pub(super) type AheadImport = (ClaudeImporter, BTreeMap<String, usize>);

/// What both passes made of the lines of the start.
pub(super) struct ReadOnce {
    /// The first pass's tree, from these lines.
    pub(super) tree: ConversationTree,
    /// `None` when a line needs the reader's own handling.
    pub(super) imported: Option<AheadImport>,
    /// How many lines the start has (blank ones included).
    pub(super) lines: usize,
}

/// Lines read for both passes, sent to the helper thread in batches: each line's number and
/// what was read of it (`None`: the reader's own handling is needed).
type ReadBatch<'a> = Vec<(usize, Option<ReadLine<'a>>)>;

/// Lines in a [`ReadBatch`]: a batch is sent for this many, not for each line.
const READ_BATCH_LINES: usize = 256;

impl<'a> Overlap<'a> {
    /// Both passes over the lines at once: this thread reads each line once and sends what it
    /// read to a helper thread, which gives the tree the line's head and imports its record.
    /// The import is `None` when a line needs the reader's own handling. The tree starts with
    /// these lines (the first pass starts here). Without a helper (none could be started, or it
    /// failed), the lines are read here ([`Overlap::run_here`]).
    pub(super) fn run(&self) -> ReadOnce {
        std::thread::scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::channel::<ReadBatch<'a>>();
            let helper = std::thread::Builder::new()
                .name("agentctx-rollout-import".to_string())
                .spawn_scoped(scope, move || {
                    let mut both = BothPasses::new();
                    for batch in &receiver {
                        for (line_number, read) in batch {
                            both.take(line_number, read.as_ref());
                        }
                    }
                    both.end()
                });
            let helper = match helper {
                Ok(helper) => helper,
                Err(err) => {
                    tracing::debug!(%err, "no helper thread for the two passes");
                    return self.run_here();
                }
            };
            let lines = self.read_and_send(&sender);
            // The helper's work ends with the last batch.
            drop(sender);
            match (helper.join(), lines) {
                (Ok((tree, imported)), Some(lines)) => ReadOnce {
                    tree,
                    imported,
                    lines,
                },
                (Err(_), _) | (Ok(_), None) => {
                    tracing::debug!("the helper thread of the two passes failed; read here");
                    self.run_here()
                }
            }
        })
    }

    /// Both passes over the lines at once, on this thread: each line is read once, its head
    /// given to the tree and its record imported.
    pub(super) fn run_here(&self) -> ReadOnce {
        let mut both = BothPasses::new();
        let mut lines = 0;
        for (line_number, read) in self.lines(&mut lines) {
            both.take(line_number, read.as_ref());
        }
        let (tree, imported) = both.end();
        ReadOnce {
            tree,
            imported,
            lines,
        }
    }

    /// Reads each line for both passes and sends it to the helper in batches; the number of
    /// lines, `None` when the helper stopped receiving.
    fn read_and_send(&self, sender: &std::sync::mpsc::Sender<ReadBatch<'a>>) -> Option<usize> {
        let mut batch = Vec::with_capacity(READ_BATCH_LINES);
        let mut lines = 0;
        for line in self.lines(&mut lines) {
            batch.push(line);
            if batch.len() == READ_BATCH_LINES {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(READ_BATCH_LINES));
                // The helper failed: it is joined, and the lines are read here.
                sender.send(full).ok()?;
            }
        }
        if !batch.is_empty() {
            sender.send(batch).ok()?;
        }
        Some(lines)
    }

    /// Each line that is not blank, numbered, as read for both passes (`None`: too long, not
    /// UTF-8 or not read, for the reader's own handling); `count` follows the lines walked,
    /// blank ones included.
    fn lines<'c>(
        &self,
        count: &'c mut usize,
    ) -> impl Iterator<Item = (usize, Option<ReadLine<'a>>)> + use<'a, 'c> {
        let max_line_bytes = self.max_line_bytes;
        let first_line = self.first_line;
        lines_of(self.bytes)
            .enumerate()
            .filter_map(move |(index, line)| {
                *count = index + 1;
                let line_number = first_line + index;
                if line.len() > max_line_bytes {
                    return Some((line_number, None));
                }
                let text = line.trim_ascii();
                (!text.is_empty()).then(|| (line_number, claude_import::read_line(text)))
            })
    }
}

/// Both passes over lines read once: each line's head into the tree (every line, as the first
/// pass), and its record imported, the events held, until the first line the reader handles
/// itself (the import is then dropped).
struct BothPasses {
    tree: ConversationTree,
    imported: Option<AheadImport>,
}

impl BothPasses {
    fn new() -> Self {
        Self {
            tree: ConversationTree::default(),
            imported: Some((ClaudeImporter::ahead_of_first_pass(), BTreeMap::new())),
        }
    }

    fn take(&mut self, line_number: usize, read: Option<&ReadLine<'_>>) {
        let Some(read) = read else {
            self.imported = None;
            return;
        };
        claude_import::add_head(&mut self.tree, read);
        if let Some((importer, ignored)) = &mut self.imported {
            importer.import_read(line_number, read, ignored);
        }
    }

    fn end(self) -> (ConversationTree, Option<AheadImport>) {
        (self.tree, self.imported)
    }
}

/// The lines of `bytes`, each with its newline (the last may have none).
fn lines_of(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |newline| newline + 1);
        let (line, after) = rest.split_at_checked(end)?;
        rest = after;
        Some(line)
    })
}
