//! A hand-written reading of a Claude Code line into its [`RecordView`], without serde_json.
//!
//! Both passes over a transcript read every line, and serde_json's checking scan of each line
//! was most of their time. This scan checks the line as it goes (the grammar of JSON, string
//! escapes, control characters, numbers) and delimits the members the import reads in the same
//! walk. It gives up, returning `None`, on anything it does not read as serde_json certainly
//! would: a member name with an escape, a `\u` escape of a surrogate, a number with an
//! exponent or of more than a few dozen characters, nesting deeper than
//! [`MAX_NESTING`], a `message` that is not an object, a `content` that is not a string, an
//! array or `null`, a content block that is not an object, and any line that is not valid
//! JSON. The caller then reads the line with serde_json (`RecordView::parse_with_serde_json`),
//! which decides and names what is wrong with it. So a view it gives is the view serde_json
//! gives (test `the_scan_reads_as_serde_json_does`), and a line it gives a view for is one
//! a JSON tree accepts.

use std::borrow::Cow;

use super::record_view::Block;
use super::record_view::Content;
use super::record_view::MessageView;
use super::record_view::RecordView;
use super::record_view::as_str;

/// Nesting of arrays and objects the scan reads, the line's own object included; deeper lines
/// are left to serde_json (whose tree parse allows 127 levels).
const MAX_NESTING: usize = 64;

/// Longest number the scan reads; longer ones are left to serde_json, which knows which are in
/// range.
const MAX_NUMBER_BYTES: usize = 40;

/// The view of a line, `None` when the scan gives up (see the module documentation).
#[cfg(test)]
pub(crate) fn scan(text: &str) -> Option<RecordView<'_>> {
    let mut view = RecordView::default();
    scan_into(text, &mut view)?;
    Some(view)
}

/// Reads the view of a line into `view`, which must be empty (the view is large: it is filled
/// in place rather than moved); `None` when the scan gives up (see the module documentation),
/// and `view` is then partly filled.
pub(crate) fn scan_into<'a>(text: &'a str, view: &mut RecordView<'a>) -> Option<()> {
    let mut scan = Scan {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    scan.skip_whitespace();
    if scan.peek()? != b'{' {
        return None;
    }
    scan.members(MAX_NESTING, |scan, name, depth| {
        let field = match name {
            "type" => &mut view.kind,
            "subtype" => &mut view.subtype,
            "uuid" => &mut view.uuid,
            "parentUuid" => &mut view.parent_uuid,
            "logicalParentUuid" => &mut view.logical_parent_uuid,
            "sessionId" => &mut view.session_id,
            "cwd" => &mut view.cwd,
            "version" => &mut view.version,
            "gitBranch" => &mut view.git_branch,
            "timestamp" => &mut view.timestamp,
            "requestId" => &mut view.request_id,
            "isMeta" => &mut view.is_meta,
            "isSidechain" => &mut view.is_sidechain,
            "isCompactSummary" => &mut view.is_compact_summary,
            "permissionMode" => &mut view.permission_mode,
            "compactMetadata" => &mut view.compact_metadata,
            "attachment" => &mut view.attachment,
            "rendered" => &mut view.rendered,
            "message" => {
                view.message = Some(scan.message(depth)?);
                return Some(());
            }
            _ => return scan.value(depth),
        };
        *field = Some(scan.raw_value(depth)?);
        Some(())
    })?;
    scan.skip_whitespace();
    (scan.at == scan.bytes.len()).then_some(())
}

/// The JSON text of the last member `name` of an object, given as valid JSON text: `Some(None)`
/// when the object has no such member, `None` when the scan gives up (see the module
/// documentation) and the caller reads the object with serde_json.
pub(crate) fn member<'a>(object: &'a str, name: &str) -> Option<Option<&'a str>> {
    members(object, [name]).map(|[found]| found)
}

/// [`member`] for several names at once.
pub(crate) fn members<'a, const N: usize>(
    object: &'a str,
    names: [&str; N],
) -> Option<[Option<&'a str>; N]> {
    let mut scan = Scan {
        text: object,
        bytes: object.as_bytes(),
        at: 0,
    };
    let mut found = [None; N];
    scan.members(MAX_NESTING, |scan, member, depth| {
        match names.iter().position(|name| *name == member) {
            Some(index) => {
                let value = scan.raw_value(depth)?;
                if let Some(slot) = found.get_mut(index) {
                    *slot = Some(value);
                }
                Some(())
            }
            None => scan.value(depth),
        }
    })?;
    scan.skip_whitespace();
    (scan.at == scan.bytes.len()).then_some(found)
}

/// A walk over one line.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The next byte to read.
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// The text from `start` to the current position.
    fn since(&self, start: usize) -> Option<&'a str> {
        self.text.get(start..self.at)
    }

    /// Any value, checked and skipped. `depth` is the nesting still allowed.
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.members(depth, |scan, _, depth| scan.value(depth)),
            b'[' => self.elements(depth, Self::value),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// Any value, checked, as its text.
    fn raw_value(&mut self, depth: usize) -> Option<&'a str> {
        let start = self.at;
        self.value(depth)?;
        self.since(start)
    }

    fn literal(&mut self, literal: &[u8]) -> Option<()> {
        let end = self.at.checked_add(literal.len())?;
        (self.bytes.get(self.at..end)? == literal).then(|| self.at = end)
    }

    /// A number, by JSON's grammar, without an exponent and at most [`MAX_NUMBER_BYTES`] long.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            let fraction = self.at;
            self.digits();
            if self.at == fraction {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            return None;
        }
        (self.at - start <= MAX_NUMBER_BYTES).then_some(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    /// A string, from its opening quote: its text (quotes included), and whether it holds an
    /// escape.
    fn string(&mut self) -> Option<(&'a str, bool)> {
        let start = self.at;
        self.expect(b'"')?;
        let mut escaped = false;
        loop {
            self.at += plain_prefix(self.bytes.get(self.at..)?);
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some((self.since(start)?, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                // A control character, which JSON strings may not hold.
                _ => return None,
            }
        }
    }

    /// An escape, from its backslash. A `\u` escape of a surrogate is left to serde_json.
    fn escape(&mut self) -> Option<()> {
        self.at += 1;
        let escaped = self.peek()?;
        self.at += 1;
        match escaped {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(()),
            b'u' => {
                let end = self.at.checked_add(4)?;
                let mut code = 0u32;
                for digit in self.bytes.get(self.at..end)? {
                    code = code * 16 + char::from(*digit).to_digit(16)?;
                }
                self.at = end;
                (!(0xD800..=0xDFFF).contains(&code)).then_some(())
            }
            _ => None,
        }
    }

    /// The members of an object, from its opening brace, each handed to `member` with its name
    /// and the nesting still allowed inside it; `member` reads the value. A name with an escape
    /// is left to serde_json.
    fn members(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, &'a str, usize) -> Option<()>,
    ) -> Option<()> {
        let depth = depth.checked_sub(1)?;
        self.expect(b'{')?;
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.skip_whitespace();
            let (name, escaped) = self.string()?;
            if escaped {
                return None;
            }
            let name = name.get(1..name.len() - 1)?;
            self.skip_whitespace();
            self.expect(b':')?;
            self.skip_whitespace();
            member(self, name, depth)?;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The elements of an array, from its opening bracket, each handed to `element` with the
    /// nesting still allowed inside it; `element` reads the value.
    fn elements(
        &mut self,
        depth: usize,
        mut element: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        let depth = depth.checked_sub(1)?;
        self.expect(b'[')?;
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.skip_whitespace();
            element(self, depth)?;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `message`, which must be an object here.
    fn message(&mut self, depth: usize) -> Option<MessageView<'a>> {
        if self.peek()? != b'{' {
            return None;
        }
        let mut message = MessageView::default();
        self.members(depth, |scan, name, depth| {
            match name {
                "id" => message.id = Some(scan.raw_value(depth)?),
                "usage" => message.usage = Some(scan.raw_value(depth)?),
                "model" => message.model = Some(scan.raw_value(depth)?),
                "content" => message.content = Some(scan.content(depth)?),
                _ => scan.value(depth)?,
            }
            Some(())
        })?;
        Some(message)
    }

    /// `message.content`: a string, `null`, or an array of objects here.
    fn content(&mut self, depth: usize) -> Option<Content<'a>> {
        match self.peek()? {
            b'"' => {
                let (text, escaped) = self.string()?;
                let text = if escaped {
                    Cow::Owned(serde_json::from_str::<String>(text).ok()?)
                } else {
                    Cow::Borrowed(text.get(1..text.len() - 1)?)
                };
                Some(Content::Text(text))
            }
            b'n' => self.literal(b"null").map(|()| Content::Null),
            b'[' => {
                let mut blocks = Vec::new();
                self.elements(depth, |scan, depth| {
                    blocks.push(scan.block(depth)?);
                    Some(())
                })?;
                Some(Content::Blocks(blocks))
            }
            _ => None,
        }
    }

    /// A content block, which must be an object here, with its `type`.
    fn block(&mut self, depth: usize) -> Option<Block<'a>> {
        if self.peek()? != b'{' {
            return None;
        }
        let start = self.at;
        let mut kind = None;
        self.members(depth, |scan, name, depth| {
            if name == "type" {
                kind = Some(scan.raw_value(depth)?);
                Some(())
            } else {
                scan.value(depth)
            }
        })?;
        Some(Block {
            raw: self.since(start)?,
            kind: kind.and_then(as_str),
        })
    }
}

/// How many bytes at the start of `bytes` may stand in a string as they are: neither a quote,
/// a backslash nor a control character. Eight bytes are tested at a time.
fn plain_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in chunks.by_ref() {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(word);
        // A byte of `x` is zero where the high bit of `(x - 1) & !x` is set, first in the
        // lowest such byte (a borrow only marks bytes above a zero one); the same test against
        // spaces marks the bytes below 0x20.
        let quotes = word ^ QUOTES;
        let backslashes = word ^ BACKSLASHES;
        let special = (quotes.wrapping_sub(ONES) & !quotes)
            | (backslashes.wrapping_sub(ONES) & !backslashes)
            | (word.wrapping_sub(SPACES) & !word);
        let special = special & HIGH_BITS;
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + chunks
        .remainder()
        .iter()
        .position(|byte| matches!(byte, b'"' | b'\\' | 0..0x20))
        .unwrap_or(chunks.remainder().len())
}

#[cfg(test)]
#[path = "record_scan_tests.rs"]
mod tests;
