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
    /// The import is `None` when a line needs the reader's own handling. Without a helper (none
    /// could be started, or it failed), both passes run here, one after the other.
    pub(super) fn run(&self, tree: ConversationTree) -> (ConversationTree, Option<AheadImport>) {
        std::thread::scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::channel::<ReadBatch<'a>>();
            let helper = std::thread::Builder::new()
                .name("agentctx-rollout-import".to_string())
                .spawn_scoped(scope, move || Self::heads_and_import(tree, &receiver));
            let helper = match helper {
                Ok(helper) => helper,
                Err(err) => {
                    tracing::debug!(%err, "no helper thread for the two passes");
                    return self.one_after_the_other();
                }
            };
            self.read_and_send(&sender);
            // The helper's work ends with the last batch.
            drop(sender);
            match helper.join() {
                Ok(both) => both,
                Err(_) => {
                    tracing::debug!("the helper thread of the two passes failed; read here");
                    self.one_after_the_other()
                }
            }
        })
    }

    /// Both passes, on this thread.
    pub(super) fn one_after_the_other(&self) -> (ConversationTree, Option<AheadImport>) {
        (self.heads_here(ConversationTree::default()), self.import())
    }

    /// Reads each line for both passes and sends it to the helper in batches (until no one
    /// receives).
    fn read_and_send(&self, sender: &std::sync::mpsc::Sender<ReadBatch<'a>>) {
        let mut batch = Vec::with_capacity(READ_BATCH_LINES);
        for (index, line) in lines_of(self.bytes).enumerate() {
            let line_number = self.first_line + index;
            let read = if line.len() > self.max_line_bytes {
                None
            } else {
                let text = line.trim_ascii();
                if text.is_empty() {
                    continue;
                }
                claude_import::read_line(text)
            };
            batch.push((line_number, read));
            if batch.len() == READ_BATCH_LINES {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(READ_BATCH_LINES));
                if sender.send(full).is_err() {
                    // The helper failed: it is joined, and both passes run here.
                    return;
                }
            }
        }
        if !batch.is_empty() {
            // Should the helper have failed, both passes run here after it is joined.
            let _ = sender.send(batch);
        }
    }

    /// The helper's work: each line's head into the tree (every line, as the first pass), and
    /// the records imported, their events held (until the first line the reader handles
    /// itself: the import is then `None`).
    fn heads_and_import(
        mut tree: ConversationTree,
        receiver: &std::sync::mpsc::Receiver<ReadBatch<'a>>,
    ) -> (ConversationTree, Option<AheadImport>) {
        let mut imported = Some((ClaudeImporter::ahead_of_first_pass(), BTreeMap::new()));
        for batch in receiver {
            for (line_number, read) in batch {
                match &read {
                    Some(read) => claude_import::add_head(&mut tree, read),
                    None => imported = None,
                }
                if let (Some((importer, ignored)), Some(read)) = (&mut imported, &read) {
                    importer.import_read(line_number, read, ignored);
                }
            }
        }
        (tree, imported)
    }

    /// The first pass over the lines, on this thread.
    pub(super) fn heads_here(&self, mut tree: ConversationTree) -> ConversationTree {
        for line in lines_of(self.bytes) {
            if line.len() <= self.max_line_bytes {
                claude_import::observe_head(&mut tree, line.trim_ascii());
            }
        }
        tree
    }

    /// The second pass over the lines, on this thread, its events held; `None` when a line is
    /// not UTF-8, not a JSON object, or too long (the reader's own handling, in order, is
    /// needed).
    fn import(&self) -> Option<AheadImport> {
        let mut importer = ClaudeImporter::ahead_of_first_pass();
        let mut ignored = BTreeMap::new();
        for (index, line) in lines_of(self.bytes).enumerate() {
            let line_number = self.first_line + index;
            if line.len() > self.max_line_bytes {
                return None;
            }
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let text = std::str::from_utf8(text).ok()?;
            if !importer.decode(line_number, text, &mut ignored) {
                return None;
            }
        }
        Some((importer, ignored))
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
