//! The conversation tree of a Claude Code transcript, and which records lie on abandoned branches.
//!
//! Claude Code links records by `uuid` / `parentUuid` (a compact boundary, whose `parentUuid` may
//! be null, points back through `logicalParentUuid`). When the user rewinds and edits an earlier
//! prompt, or a response is regenerated, the new branch forks from an earlier record and the old
//! branch stays in the file. The conversation the model saw last is the path from the newest
//! conversation record (the leaf) back to the root.
//!
//! Real transcripts also hang records beside that path that are not abandoned: `progress` and
//! `system` records, the tool results of parallel tool calls, and the parts of one assistant
//! message split over several records. So a record off the path is dropped only when the branch
//! joining it to the path holds a record that starts another conversation — a typed user prompt
//! (not a tool result, not `isMeta`) or an assistant response whose `message.id` is not on the
//! path. Records whose ancestry never reaches the path (their parent is not in the file) are kept:
//! nothing proves them abandoned. Sidechain records of a main transcript are kept whole; in a
//! sub-agent transcript (every record a sidechain) the sidechain records are the conversation.
//!
//! The tree is built from [`RecordHead`]s, the few fields of a record it needs, taken from the
//! record's view (the members the import reads, without the record's body), and it holds
//! numbers, not strings: a uuid is interned once (as 16 bytes when it is a canonical UUID) and a
//! node is a few bytes. Its memory grows with the
//! number of records (about 150 to 200 bytes each at its largest, hash-table growth included),
//! never with their size; once resolved it keeps only the abandoned uuids. That is what lets the
//! two-pass import read a transcript of any size in bounded memory (see
//! docs/design/rollout-formats.md, "Two passes over a Claude Code transcript").

use std::borrow::Cow;

use foldhash::HashMap;
use foldhash::HashMapExt;
use foldhash::HashSet;

use super::record_view::RecordView;
use super::record_view::as_bool;
use super::record_view::as_str;

/// What the tree needs of one record.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct RecordHead<'a> {
    /// `type`, when it is a string.
    pub(crate) kind: Option<Cow<'a, str>>,
    uuid: Option<Cow<'a, str>>,
    parent_uuid: Option<Cow<'a, str>>,
    logical_parent_uuid: Option<Cow<'a, str>>,
    is_sidechain: bool,
    is_meta: bool,
    is_compact_summary: bool,
    /// `message.id`, when `message` is an object and the id a string.
    message_id: Option<Cow<'a, str>>,
    /// `message.content` is a non-empty array of `tool_result` blocks and nothing else.
    only_tool_results: bool,
}

impl<'a> RecordHead<'a> {
    /// The head of a record read as a view (the tree reads a record as the import reads it).
    pub(crate) fn of_view(view: &RecordView<'a>) -> Self {
        let is_true = |member: Option<&str>| member.and_then(as_bool) == Some(true);
        let message = view.message.as_ref();
        Self {
            kind: view.kind.and_then(as_str),
            uuid: view.uuid.and_then(as_str),
            parent_uuid: view.parent_uuid.and_then(as_str),
            logical_parent_uuid: view.logical_parent_uuid.and_then(as_str),
            is_sidechain: is_true(view.is_sidechain),
            is_meta: is_true(view.is_meta),
            is_compact_summary: is_true(view.is_compact_summary),
            message_id: message.and_then(|message| message.id).and_then(as_str),
            only_tool_results: view.content_is_only_tool_results(),
        }
    }

    /// The record's `uuid`, when it is a string.
    pub(crate) fn uuid(&self) -> Option<&str> {
        self.uuid.as_deref()
    }

    fn role(&self) -> Role {
        match self.kind.as_deref() {
            Some("assistant") => Role::Assistant(None),
            Some("user") if self.is_meta || self.is_compact_summary || self.only_tool_results => {
                Role::Attached
            }
            Some("user") => Role::Prompt,
            _ => Role::Other,
        }
    }
}

/// A uuid as a key: 16 bytes for a canonical (lower-case, hyphenated) UUID, the text otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Uuid(u128),
    Text(Box<str>),
}

impl Key {
    fn of(text: &str) -> Self {
        match canonical_uuid(text.as_bytes()) {
            Some(uuid) => Self::Uuid(uuid),
            None => Self::Text(text.into()),
        }
    }
}

/// The value of a canonical UUID: the hyphenated form (36 bytes) in lower case. The `uuid`
/// crate reads the digits; of the forms it accepts, only the hyphenated one is 36 bytes long,
/// and upper-case digits are refused here, so one UUID has one key.
fn canonical_uuid(text: &[u8]) -> Option<u128> {
    if text.len() != uuid::fmt::Hyphenated::LENGTH || text.iter().any(u8::is_ascii_uppercase) {
        return None;
    }
    uuid::Uuid::try_parse_ascii(text)
        .ok()
        .map(|parsed| parsed.as_u128())
}

/// What a record contributes to the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A user record typed by the user (not only tool results, not `isMeta`).
    Prompt,
    /// A user record that carries only tool results, or injected (`isMeta`) context.
    Attached,
    /// An assistant record with its interned `message.id`.
    Assistant(Option<u32>),
    /// Not conversation (`progress`, `system`, …).
    Other,
}

#[derive(Debug, Clone, Copy)]
#[cfg_attr(test, derive(PartialEq))]
struct Node {
    parent: Option<u32>,
    role: Role,
    sidechain: bool,
}

/// The uuid links of one transcript, collected record by record, then resolved once.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub(crate) struct ConversationTree {
    /// Every canonical uuid seen (of a record or as a parent) and its number.
    uuid_ids: HashMap<u128, u32>,
    /// Every other uuid seen and its number.
    text_ids: HashMap<Box<str>, u32>,
    /// The record of each number, `None` for a uuid seen only as a parent.
    nodes: Vec<Option<Node>>,
    /// Interned `message.id`s.
    messages: HashMap<Box<str>, u32>,
    /// Conversation records (user or assistant), in file order.
    conversation: Vec<u32>,
    /// After [`ConversationTree::resolve`], which frees everything above: the uuids of the
    /// records on abandoned branches.
    abandoned: HashSet<Key>,
}

impl ConversationTree {
    /// Adds a record; returns its number when it has a uuid.
    pub(crate) fn add(&mut self, head: &RecordHead<'_>) -> Option<u32> {
        let uuid = head.uuid.as_deref()?;
        let id = self.intern(uuid);
        let parent = head
            .parent_uuid
            .as_deref()
            .or(head.logical_parent_uuid.as_deref())
            .map(|parent| self.intern(parent));
        let role = match head.role() {
            Role::Assistant(_) => Role::Assistant(head.message_id.as_deref().map(|message| {
                // The id is copied only the first time (a response spans several records).
                if let Some(number) = self.messages.get(message) {
                    return *number;
                }
                let next = u32::try_from(self.messages.len()).unwrap_or(u32::MAX);
                self.messages.insert(message.into(), next);
                next
            })),
            other => other,
        };
        if role != Role::Other {
            self.conversation.push(id);
        }
        if let Some(slot) = usize::try_from(id)
            .ok()
            .and_then(|index| self.nodes.get_mut(index))
        {
            *slot = Some(Node {
                parent,
                role,
                sidechain: head.is_sidechain,
            });
        }
        Some(id)
    }

    fn intern(&mut self, uuid: &str) -> u32 {
        let next = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        let id = match Key::of(uuid) {
            Key::Uuid(uuid) => *self.uuid_ids.entry(uuid).or_insert(next),
            Key::Text(text) => *self.text_ids.entry(text).or_insert(next),
        };
        if id == next {
            self.nodes.push(None);
        }
        id
    }

    fn node(&self, id: u32) -> Option<&Node> {
        self.nodes
            .get(usize::try_from(id).ok()?)
            .and_then(Option::as_ref)
    }

    /// True when the record with this uuid is on an abandoned branch (known once the tree is
    /// resolved).
    pub(crate) fn is_abandoned(&self, uuid: &str) -> bool {
        !self.abandoned.is_empty() && self.abandoned.contains(&Key::of(uuid))
    }

    /// Decides, once every record is in, which records lie on abandoned branches, keeps their
    /// uuids and frees the tree.
    pub(crate) fn resolve(&mut self) {
        let abandoned = self.abandoned_numbers();
        let is_abandoned = |id: &u32| {
            usize::try_from(*id)
                .ok()
                .and_then(|index| abandoned.get(index))
                .copied()
                .unwrap_or(false)
        };
        let uuid_ids = std::mem::take(&mut self.uuid_ids);
        let text_ids = std::mem::take(&mut self.text_ids);
        self.abandoned = uuid_ids
            .into_iter()
            .filter(|(_, id)| is_abandoned(id))
            .map(|(uuid, _)| Key::Uuid(uuid))
            .chain(
                text_ids
                    .into_iter()
                    .filter(|(_, id)| is_abandoned(id))
                    .map(|(text, _)| Key::Text(text)),
            )
            .collect();
        self.nodes = Vec::new();
        self.messages = HashMap::new();
        self.conversation = Vec::new();
    }

    /// Per number: the record is on an abandoned branch.
    fn abandoned_numbers(&self) -> Vec<bool> {
        let mut abandoned = vec![false; self.nodes.len()];
        let leaf = self
            .conversation
            .iter()
            .rev()
            .find(|id| self.node(**id).is_some_and(|node| !node.sidechain))
            .or_else(|| self.conversation.last())
            .copied();
        let Some(leaf) = leaf else {
            return abandoned;
        };
        let main_is_sidechain = self.node(leaf).is_some_and(|node| node.sidechain);
        let on_path = self.ancestry(leaf);
        let is_on_path = |id: u32| {
            usize::try_from(id)
                .ok()
                .and_then(|index| on_path.get(index))
                .copied()
                .unwrap_or(false)
        };
        let path_messages: HashSet<u32> = (0..self.nodes.len())
            .filter_map(|index| u32::try_from(index).ok())
            .filter(|id| is_on_path(*id))
            .filter_map(|id| match self.node(id)?.role {
                Role::Assistant(Some(message)) => Some(message),
                Role::Assistant(None) | Role::Prompt | Role::Attached | Role::Other => None,
            })
            .collect();
        let starts_branch = |node: &Node| match node.role {
            Role::Prompt => true,
            Role::Assistant(Some(message)) => !path_messages.contains(&message),
            Role::Assistant(None) => true,
            Role::Attached | Role::Other => false,
        };
        // For every node off the path: does its branch reach the path, and is it abandoned?
        let mut verdicts: Vec<Option<Verdict>> = vec![None; self.nodes.len()];
        // The walk in which a node was last seen (1-based), so a cycle ends a walk.
        let mut seen_in_walk: Vec<u32> = vec![0; self.nodes.len()];
        let mut chain: Vec<u32> = Vec::new();
        for (walk, id) in self.conversation.iter().enumerate() {
            let walk = u32::try_from(walk + 1).unwrap_or(u32::MAX);
            let Some(node) = self.node(*id) else {
                continue;
            };
            if node.sidechain != main_is_sidechain || is_on_path(*id) {
                continue;
            }
            // Walk up to the path, a known verdict or the end of the ancestry.
            chain.clear();
            let mut current = *id;
            let base = loop {
                if is_on_path(current) {
                    break Verdict::Kept;
                }
                let index = usize::try_from(current).unwrap_or(usize::MAX);
                if let Some(Some(verdict)) = verdicts.get(index) {
                    break *verdict;
                }
                match seen_in_walk.get_mut(index) {
                    Some(seen) if *seen == walk => break Verdict::Disconnected,
                    Some(seen) => *seen = walk,
                    None => break Verdict::Disconnected,
                }
                let Some(node) = self.node(current) else {
                    break Verdict::Disconnected;
                };
                chain.push(current);
                match node.parent {
                    Some(parent) => current = parent,
                    None => break Verdict::Disconnected,
                }
            };
            // Fill the chain from the top down: a branch start abandons everything below it.
            let mut verdict = base;
            for id in chain.iter().rev() {
                if verdict == Verdict::Kept && self.node(*id).is_some_and(&starts_branch) {
                    verdict = Verdict::Abandoned;
                }
                if let Some(slot) = usize::try_from(*id)
                    .ok()
                    .and_then(|index| verdicts.get_mut(index))
                {
                    *slot = Some(verdict);
                }
            }
        }
        for (abandoned, verdict) in abandoned.iter_mut().zip(verdicts) {
            *abandoned = verdict == Some(Verdict::Abandoned);
        }
        abandoned
    }

    /// Per number: `leaf` or one of its ancestors.
    fn ancestry(&self, leaf: u32) -> Vec<bool> {
        let mut path = vec![false; self.nodes.len()];
        let mut current = Some(leaf);
        while let Some(id) = current {
            match usize::try_from(id)
                .ok()
                .and_then(|index| path.get_mut(index))
            {
                Some(slot) if !*slot => *slot = true,
                Some(_) | None => break,
            }
            current = self.node(id).and_then(|node| node.parent);
        }
        path
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// On the path, or joined to it by records that start no other conversation.
    Kept,
    /// Below a record that started another conversation.
    Abandoned,
    /// Never reaches the path.
    Disconnected,
}

#[cfg(test)]
#[path = "conversation_tree_tests.rs"]
mod tests;
