//! Where keys are in a TOML document: the dotted key of an error's position, and the line of
//! every key, from the spans of `toml`'s document parser.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::de::DeTable;
use toml::de::DeValue;

/// One key of the document: its dotted path and the spans of the key and its value.
struct KeySpan {
    path: String,
    key: Range<usize>,
    value: Range<usize>,
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let column = before
        .get(line_start..)
        .map_or(0, |part| part.chars().count())
        + 1;
    (line, column)
}

/// The dotted key whose key or value holds byte `offset` (the innermost), if any.
pub(crate) fn key_at(text: &str, offset: usize) -> Option<String> {
    key_spans(text)
        .into_iter()
        .filter(|span| span.key.contains(&offset) || span.value.contains(&offset))
        .min_by_key(|span| span.value.len())
        .map(|span| span.path)
}

/// The 1-based line of every key of the document, by dotted path.
pub(crate) fn key_lines(text: &str) -> BTreeMap<String, usize> {
    key_spans(text)
        .into_iter()
        .map(|span| (span.path, line_column(text, span.key.start).0))
        .collect()
}

/// Appends a key segment to a dotted path, quoted when it is not a bare TOML key
/// (`models."gpt-5.1"`).
pub(crate) fn push_segment(path: &str, segment: &str) -> String {
    let bare = !segment.is_empty()
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let segment = if bare {
        segment.to_string()
    } else {
        format!("{segment:?}")
    };
    if path.is_empty() {
        segment
    } else {
        format!("{path}.{segment}")
    }
}

fn key_spans(text: &str) -> Vec<KeySpan> {
    let mut out = Vec::new();
    // A document that does not parse has no keys to name; its error carries the position.
    if let Ok(document) = DeTable::parse(text) {
        walk(document.get_ref(), "", &mut out);
    }
    out
}

fn walk(table: &DeTable<'_>, prefix: &str, out: &mut Vec<KeySpan>) {
    for (key, value) in table {
        let path = push_segment(prefix, key.get_ref());
        out.push(KeySpan {
            path: path.clone(),
            key: key.span(),
            value: value.span(),
        });
        match value.get_ref() {
            DeValue::Table(inner) => walk(inner, &path, out),
            DeValue::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if let DeValue::Table(inner) = item.get_ref() {
                        walk(inner, &format!("{path}[{index}]"), out);
                    }
                }
            }
            DeValue::String(_)
            | DeValue::Integer(_)
            | DeValue::Float(_)
            | DeValue::Boolean(_)
            | DeValue::Datetime(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "toml_spans_tests.rs"]
mod tests;
