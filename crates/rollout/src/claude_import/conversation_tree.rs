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

use std::collections::HashMap;
use std::collections::HashSet;

use serde_json::Value;

/// What a record contributes to the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// A user record typed by the user (not only tool results, not `isMeta`).
    Prompt,
    /// A user record that carries only tool results, or injected (`isMeta`) context.
    Attached,
    /// An assistant record with its `message.id`.
    Assistant(Option<String>),
    /// Not conversation (`progress`, `system`, …).
    Other,
}

#[derive(Debug)]
struct Node {
    parent: Option<String>,
    role: Role,
    sidechain: bool,
}

/// The uuid links of one transcript, collected record by record.
#[derive(Debug, Default)]
pub(crate) struct ConversationTree {
    nodes: HashMap<String, Node>,
    /// Conversation records (user or assistant), in file order.
    conversation: Vec<String>,
}

impl ConversationTree {
    /// Adds a record; returns its uuid when it has one.
    pub(crate) fn add(&mut self, record: &Value) -> Option<String> {
        let uuid = record.get("uuid").and_then(Value::as_str)?.to_string();
        let link = |name: &str| record.get(name).and_then(Value::as_str).map(str::to_string);
        let parent = link("parentUuid").or_else(|| link("logicalParentUuid"));
        let role = role_of(record);
        if role != Role::Other {
            self.conversation.push(uuid.clone());
        }
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true);
        self.nodes.insert(
            uuid.clone(),
            Node {
                parent,
                role,
                sidechain,
            },
        );
        Some(uuid)
    }

    /// The uuids of records on abandoned branches.
    pub(crate) fn abandoned(&self) -> HashSet<String> {
        let leaf = self
            .conversation
            .iter()
            .rev()
            .find(|uuid| self.nodes.get(*uuid).is_some_and(|node| !node.sidechain))
            .or_else(|| self.conversation.last());
        let Some(leaf) = leaf else {
            return HashSet::new();
        };
        let main_is_sidechain = self.nodes.get(leaf).is_some_and(|node| node.sidechain);
        let path = self.ancestry(leaf);
        let path_messages: HashSet<&str> = path
            .iter()
            .filter_map(|uuid| match &self.nodes.get(*uuid)?.role {
                Role::Assistant(Some(id)) => Some(id.as_str()),
                Role::Assistant(None) | Role::Prompt | Role::Attached | Role::Other => None,
            })
            .collect();
        let starts_branch = |node: &Node| match &node.role {
            Role::Prompt => true,
            Role::Assistant(Some(id)) => !path_messages.contains(id.as_str()),
            Role::Assistant(None) => true,
            Role::Attached | Role::Other => false,
        };
        // For every node off the path: does its branch reach the path, and is it abandoned?
        let mut verdicts: HashMap<&str, Verdict> = HashMap::new();
        for uuid in &self.conversation {
            let Some(node) = self.nodes.get(uuid) else {
                continue;
            };
            if node.sidechain != main_is_sidechain || path.contains(uuid.as_str()) {
                continue;
            }
            // Walk up to the path, a known verdict or the end of the ancestry.
            let mut chain: Vec<&str> = Vec::new();
            let mut seen: HashSet<&str> = HashSet::new();
            let mut current = uuid.as_str();
            let base = loop {
                if path.contains(current) {
                    break Verdict::Kept;
                }
                if let Some(verdict) = verdicts.get(current) {
                    break *verdict;
                }
                if !seen.insert(current) {
                    break Verdict::Disconnected;
                }
                let Some(node) = self.nodes.get(current) else {
                    break Verdict::Disconnected;
                };
                chain.push(current);
                match node.parent.as_deref() {
                    Some(parent) => current = parent,
                    None => break Verdict::Disconnected,
                }
            };
            // Fill the chain from the top down: a branch start abandons everything below it.
            let mut verdict = base;
            for id in chain.iter().rev() {
                if verdict == Verdict::Kept && self.nodes.get(*id).is_some_and(&starts_branch) {
                    verdict = Verdict::Abandoned;
                }
                verdicts.insert(id, verdict);
            }
        }
        verdicts
            .into_iter()
            .filter(|(_, verdict)| *verdict == Verdict::Abandoned)
            .map(|(uuid, _)| uuid.to_string())
            .collect()
    }

    /// `uuid` and its ancestors.
    fn ancestry<'a>(&'a self, uuid: &'a str) -> HashSet<&'a str> {
        let mut path = HashSet::new();
        let mut current = Some(uuid);
        while let Some(id) = current {
            if !path.insert(id) {
                break;
            }
            current = self.nodes.get(id).and_then(|node| node.parent.as_deref());
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

fn role_of(record: &Value) -> Role {
    match record.get("type").and_then(Value::as_str) {
        Some("assistant") => Role::Assistant(
            record
                .pointer("/message/id")
                .and_then(Value::as_str)
                .map(str::to_string),
        ),
        Some("user") => {
            let injected = record.get("isMeta").and_then(Value::as_bool) == Some(true)
                || record.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
            let only_tool_results = match record.pointer("/message/content") {
                Some(Value::Array(blocks)) => {
                    !blocks.is_empty()
                        && blocks.iter().all(|block| {
                            block.get("type").and_then(Value::as_str) == Some("tool_result")
                        })
                }
                _ => false,
            };
            if injected || only_tool_results {
                Role::Attached
            } else {
                Role::Prompt
            }
        }
        _ => Role::Other,
    }
}

#[cfg(test)]
#[path = "conversation_tree_tests.rs"]
mod tests;
