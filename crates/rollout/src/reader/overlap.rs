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
    pub(super) fn run(&self) -> (ConversationTree, Option<AheadImport>) {
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
            self.read_and_send(&sender);
            // The helper's work ends with the last batch.
            drop(sender);
            match helper.join() {
                Ok(both) => both,
                Err(_) => {
                    tracing::debug!("the helper thread of the two passes failed; read here");
                    self.run_here()
                }
            }
        })
    }

    /// Both passes over the lines at once, on this thread: each line is read once, its head
    /// given to the tree and its record imported.
    pub(super) fn run_here(&self) -> (ConversationTree, Option<AheadImport>) {
        let mut both = BothPasses::new();
        for (line_number, read) in self.lines() {
            both.take(line_number, read.as_ref());
        }
        both.end()
    }

    /// Reads each line for both passes and sends it to the helper in batches (until no one
    /// receives).
    fn read_and_send(&self, sender: &std::sync::mpsc::Sender<ReadBatch<'a>>) {
        let mut batch = Vec::with_capacity(READ_BATCH_LINES);
        for line in self.lines() {
            batch.push(line);
            if batch.len() == READ_BATCH_LINES {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(READ_BATCH_LINES));
                if sender.send(full).is_err() {
                    // The helper failed: it is joined, and the lines are read here.
                    return;
                }
            }
        }
        if !batch.is_empty() {
            // Should the helper have failed, the lines are read here after it is joined.
            let _ = sender.send(batch);
        }
    }

    /// Each line that is not blank, numbered, as read for both passes (`None`: too long, not
    /// UTF-8 or not read, for the reader's own handling).
    fn lines(&self) -> impl Iterator<Item = (usize, Option<ReadLine<'a>>)> {
        let max_line_bytes = self.max_line_bytes;
        let first_line = self.first_line;
        lines_of(self.bytes)
            .enumerate()
            .filter_map(move |(index, line)| {
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
pub(super) fn lines_of(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
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
