//! The first pass over a Claude Code transcript: each record's head into the conversation tree,
//! read as the second pass reads the line (so a line the second pass refuses never shapes the
//! tree), and lines read once for both passes when they run at once.

use super::conversation_tree::ConversationTree;
use super::conversation_tree::RecordHead;
use super::record_view::RecordView;

/// First pass: gives the tree the head of one line (its view, without its body). Lines the
/// import refuses or skips ([`ClaudeImporter::decode`](super::ClaudeImporter::decode): not JSON
/// objects, read members a JSON tree refuses, no string `type`) are left out, as it leaves
/// them out.
pub(crate) fn observe_head(tree: &mut ConversationTree, line: &[u8]) {
    if let Some(line) = read_line(line) {
        add_head(tree, &line);
    }
}

/// A line read once for both passes, when the two passes over the start of a transcript run at
/// once: its head goes to the tree ([`add_head`]) and its record is imported
/// ([`ClaudeImporter::import_read`](super::ClaudeImporter::import_read)).
#[derive(Debug)]
pub(crate) struct ReadLine<'a>(RecordView<'a>);

impl<'a> ReadLine<'a> {
    pub(super) fn view(&self) -> &RecordView<'a> {
        &self.0
    }
}

/// What the second pass reads of a line (its view), read once for both passes; `None` when the
/// line is not UTF-8 or not read (the import would refuse it, and the reader handles it).
pub(crate) fn read_line(line: &[u8]) -> Option<ReadLine<'_>> {
    let text = std::str::from_utf8(line).ok()?;
    let mut view = RecordView::default();
    view.read(text).then_some(ReadLine(view))
}

/// [`observe_head`] of a line already read.
pub(crate) fn add_head(tree: &mut ConversationTree, line: &ReadLine<'_>) {
    // The line is read as the second pass reads it, so a line the second pass refuses never
    // shapes the tree.
    let head = RecordHead::of_view(&line.0);
    if head.kind.is_some() {
        tree.add(&head);
    }
}
