//! How the session memory names one item of the history. Response items often carry no id
//! (user messages and tool outputs never do), so an item is named by its position and a hash
//! of its content: `"<index>:<16 hex digits>"`. See docs/design/compaction.md, "Session
//! memory", for why both are needed.

use std::fmt;
use std::str::FromStr;

use agentctx_protocol::ResponseItem;

/// The name of one history item: its index when it was named and a hash of its JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryItemId {
    /// The item's index in the history it was named in.
    pub index: usize,
    /// FNV-1a (64 bit) of the item's JSON, without the fields agentctx keeps for itself.
    pub hash: u64,
}

impl HistoryItemId {
    /// The name of `items[index]`, `None` when there is no such item.
    pub fn of(items: &[ResponseItem], index: usize) -> Option<Self> {
        items.get(index).map(|item| Self {
            index,
            hash: item_hash(item),
        })
    }

    /// Where the named item is in `items` now. The item at the recorded index when its hash
    /// matches (the history only grew); otherwise the one item with that hash (the history was
    /// shortened in front, e.g. by a compaction). `None` when no item matches, or when several
    /// do and none is at the recorded index: guessing could drop an item the summary does not
    /// cover.
    pub fn locate(&self, items: &[ResponseItem]) -> Option<usize> {
        if items
            .get(self.index)
            .is_some_and(|item| item_hash(item) == self.hash)
        {
            return Some(self.index);
        }
        let mut matches = items
            .iter()
            .enumerate()
            .filter(|(_, item)| item_hash(item) == self.hash)
            .map(|(index, _)| index);
        let first = matches.next()?;
        match matches.next() {
            None => Some(first),
            Some(_) => None,
        }
    }
}

impl fmt::Display for HistoryItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:016x}", self.index, self.hash)
    }
}

/// A string that is not `"<index>:<16 hex digits>"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a history item id: {0:?}")]
pub struct InvalidItemId(pub String);

impl FromStr for HistoryItemId {
    type Err = InvalidItemId;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidItemId(text.to_string());
        let (index, hash) = text.split_once(':').ok_or_else(invalid)?;
        if hash.len() != 16 {
            return Err(invalid());
        }
        Ok(Self {
            index: index.parse().map_err(|_| invalid())?,
            hash: u64::from_str_radix(hash, 16).map_err(|_| invalid())?,
        })
    }
}

/// FNV-1a over the item's JSON. The JSON of an item is stable (fields in declaration order,
/// unknown fields sorted), so an item read back from a session file hashes the same.
fn item_hash(item: &ResponseItem) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    // Serialising a ResponseItem cannot fail (string keys, no non-finite floats); an empty
    // body would still hash, and only make two such items look alike.
    let bytes = serde_json::to_vec(&item.without_harness_fields()).unwrap_or_default();
    bytes.iter().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
    })
}

#[cfg(test)]
#[path = "item_id_tests.rs"]
mod tests;
