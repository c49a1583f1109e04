use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::member;
use super::plain_prefix;
use super::scan;
use crate::claude_import::record_view::RecordView;

/// Transcripts as Claude Code writes them.
const FIXTURES: [&str; 3] = [
    include_str!("../../tests/fixtures/claude_1x.jsonl"),
    include_str!("../../tests/fixtures/claude_2x.jsonl"),
    include_str!("../../tests/fixtures/claude_rewind.jsonl"),
];

/// A transcript with lines that are not JSON, not objects, or odd records.
const ODD_LINES: &str = include_str!("../../tests/fixtures/claude_odd_lines.jsonl");

/// What the scan gives, when it gives anything, is what serde_json gives, and the line is one a
/// JSON tree accepts.
fn assert_scans_as_serde_json(line: &str) {
    if let Some(view) = scan(line) {
        assert_eq!(
            Some(view),
            RecordView::parse_with_serde_json(line),
            "{line}"
        );
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "{line}"
        );
    }
}

#[test]
fn the_records_of_the_fixtures_are_scanned() {
    for line in FIXTURES.iter().flat_map(|fixture| fixture.lines()) {
        let view = scan(line);
        assert!(view.is_some(), "{line}");
        assert_eq!(view, RecordView::parse_with_serde_json(line), "{line}");
    }
    for line in ODD_LINES.lines() {
        assert_scans_as_serde_json(line);
    }
}

/// Each line is valid JSON that serde_json reads (or refuses) in a way the scan does not
/// reproduce: the scan leaves it to serde_json.
#[test]
fn the_scan_leaves_the_unusual_to_serde_json() {
    let lines = [
        r#"{"typ\u0065":"user"}"#,
        r#"{"type":"\ud83d\ude00"}"#,
        r#"{"type":"\ud800"}"#,
        r#"{"n":1e5}"#,
        r#"{"n":1E400}"#,
        r#"{"n":12345678901234567890123456789012345678901234567890}"#,
        r#"{"message":"text"}"#,
        r#"{"message":[1]}"#,
        r#"{"message":{"content":{"a":1}}}"#,
        r#"{"message":{"content":1}}"#,
        r#"{"message":{"content":["text"]}}"#,
        r#"[1]"#,
        r#""text""#,
    ];
    for line in lines {
        assert_eq!(scan(line), None, "{line}");
        assert_scans_as_serde_json(line);
    }
    let deep = format!(
        r#"{{"toolUseResult":{}1{}}}"#,
        "[".repeat(70),
        "]".repeat(70)
    );
    assert_eq!(scan(&deep), None);
    let shallow = format!(
        r#"{{"toolUseResult":{}1{}}}"#,
        "[".repeat(40),
        "]".repeat(40)
    );
    assert!(scan(&shallow).is_some());
}

#[test]
fn lines_that_are_not_json_are_not_scanned() {
    let lines = [
        "",
        "{",
        "{}}",
        "{} x",
        r#"{"a":1,}"#,
        r#"{"a":[1,]}"#,
        r#"{"a" 1}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":-}"#,
        r#"{"a":.5}"#,
        r#"{"a":tru}"#,
        r#"{"a":nul}"#,
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{a:1}"#,
        r#"{"a":1 "b":2}"#,
        r#"{"a":'x'}"#,
    ];
    for line in lines {
        assert_eq!(scan(line), None, "{line}");
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_err(),
            "{line}"
        );
    }
}

/// A member is read as a JSON tree reads it (the last duplicate wins), or left to serde_json.
#[test]
fn members_of_a_block_are_read_from_its_text() {
    let block = r#"{"type":"text","text":"a","x":{"text":"inner"},"text":"b\n"}"#;
    assert_eq!(member(block, "text"), Some(Some(r#""b\n""#)));
    assert_eq!(member(block, "type"), Some(Some(r#""text""#)));
    assert_eq!(member(block, "thinking"), Some(None));
    assert_eq!(member(r#"{"t\u0065xt":"a"}"#, "text"), None);
    assert_eq!(member(r#"{"text":1e5}"#, "text"), None);
    assert_eq!(member("[1]", "text"), None);
}

#[test]
fn plain_prefixes_stop_at_quotes_backslashes_and_control_characters() {
    assert_eq!(plain_prefix(b""), 0);
    assert_eq!(plain_prefix(b"abc"), 3);
    for length in 0..20 {
        for stop in [b'"', b'\\', 0, 0x1f, b'\n'] {
            let mut bytes = vec![b'a'; length];
            bytes.push(stop);
            bytes.extend_from_slice(b"x\"y");
            assert_eq!(plain_prefix(&bytes), length, "{length} {stop}");
        }
        let mut bytes = "é ~\u{7f}".repeat(length).into_bytes();
        let plain = bytes.len();
        bytes.push(b'"');
        assert_eq!(plain_prefix(&bytes), plain, "{length}");
    }
}

/// JSON-ish text: mostly valid, with the near misses a scanner gets wrong.
fn json_ish(depth: u32) -> BoxedStrategy<String> {
    json_text(depth, 1)
}

/// Valid JSON text, escapes and odd spacing included, without what the scan leaves to
/// serde_json (escaped member names, surrogate escapes).
fn valid_json(depth: u32) -> BoxedStrategy<String> {
    json_text(depth, 0)
}

/// JSON text with near misses, escaped member names and surrogate escapes weighted `odd` (0:
/// none).
fn json_text(depth: u32, odd: u32) -> BoxedStrategy<String> {
    let plain_name = prop::sample::select(vec![
        "type",
        "uuid",
        "parentUuid",
        "message",
        "content",
        "id",
        "usage",
        "isMeta",
        "isSidechain",
        "text",
        "toolUseResult",
        "model",
        "attachment",
        "rendered",
        "",
    ]);
    let escaped_name = prop::sample::select(vec!["typ\\u0065", "a\\\"b"]);
    let name =
        prop_oneof![12 => plain_name, odd => escaped_name].prop_map(|name| format!("\"{name}\""));
    let plain_part = prop::sample::select(vec![
        "a",
        "é",
        " ",
        "tool_result",
        "user",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\u00e9",
        "\\u0041",
        "\u{7f}",
    ]);
    let valid_part = prop_oneof![12 => plain_part, odd => Just("\\ud83d\\ude00")];
    let broken_part =
        prop::sample::select(vec!["\\ud800", "\\udc00", "\\x", "\\u12", "\t", "\u{1}"]);
    let string = prop::collection::vec(prop_oneof![12 => valid_part, odd => broken_part], 0..6)
        .prop_map(|parts| format!("\"{}\"", parts.concat()));
    let valid_scalar = prop::sample::select(vec![
        "true",
        "false",
        "null",
        "0",
        "-0",
        "1.5",
        "-12",
        "1234567890123",
    ]);
    let broken_scalar = prop::sample::select(vec![
        "tru", "nul", "01", "1.", "1e5", "2E-3", "1e400", "-", ".5", "+1",
    ]);
    let scalar = prop_oneof![
        6 => string,
        4 => valid_scalar.prop_map(str::to_string),
        odd => broken_scalar.prop_map(str::to_string),
        odd => "[0-9]{1,50}",
    ];
    let space = if odd == 0 {
        prop::sample::select(vec!["", "", " ", "\n", "\t", "\r"])
    } else {
        prop::sample::select(vec!["", "", "", "", " ", "\n", "\t", "\r", "\u{c}"])
    };
    if depth == 0 {
        return scalar.boxed();
    }
    let inner = json_text(depth - 1, odd);
    let member = (name, space.clone(), inner.clone())
        .prop_map(|(name, space, value)| format!("{name}{space}:{space}{value}"));
    let (separator, trailing) = if odd == 0 {
        (prop::sample::select(vec![",", ", "]), Just(false).boxed())
    } else {
        (
            prop::sample::select(vec![",", ",", ",", ",", ",", ", ", ",,", ""]),
            prop::sample::select(vec![false, false, false, false, false, true]).boxed(),
        )
    };
    let object = (
        prop::collection::vec(member, 0..5),
        separator.clone(),
        trailing,
    )
        .prop_map(|(members, separator, trailing)| {
            let comma = if trailing { separator } else { "" };
            format!("{{{}{comma}}}", members.join(separator))
        });
    let array = (prop::collection::vec(inner, 0..4), separator)
        .prop_map(|(elements, separator)| format!("[{}]", elements.join(separator)));
    prop_oneof![2 => scalar, 3 => object, 2 => array].boxed()
}

/// Content blocks as Claude Code writes them, with JSON-ish members.
fn content_ish() -> impl Strategy<Value = String> {
    let block = (
        prop::sample::select(vec!["text", "tool_use", "tool_result", "thinking", "image"]),
        prop_oneof![valid_json(2), json_ish(2)],
    )
        .prop_map(|(kind, value)| format!(r#"{{"type":"{kind}","text":{value}}}"#));
    prop_oneof![
        2 => prop::collection::vec(block, 0..3).prop_map(|blocks| format!("[{}]", blocks.join(","))),
        1 => valid_json(3),
        1 => json_ish(3),
    ]
}

/// A record-like line: an object of the members the import reads.
fn record_line() -> impl Strategy<Value = String> {
    let member = || prop_oneof![3 => valid_json(2), 1 => json_ish(2)];
    (content_ish(), member(), member(), member()).prop_map(
        |(content, id, other, kind)| {
            format!(
                r#"{{"type":{kind},"uuid":"u1","message":{{"id":{id},"content":{content},"x":{other}}},"toolUseResult":{other}}}"#
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Whatever the line, the scan gives serde_json's view or leaves the line to it, and never
    /// gives a view of a line a JSON tree refuses.
    #[test]
    fn the_scan_reads_as_serde_json_does(line in prop_oneof![json_ish(4), record_line()]) {
        assert_scans_as_serde_json(&line);
    }

    /// The same with a byte cut out of, or put into, a record-like line.
    #[test]
    fn the_scan_reads_broken_lines_as_serde_json_does(
        line in record_line(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(vec![b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'1', b'e']),
        insert in any::<bool>(),
    ) {
        let mut bytes = line.into_bytes();
        let at = at.index(bytes.len());
        if insert {
            bytes.insert(at, byte);
        } else {
            bytes.remove(at);
        }
        if let Ok(line) = String::from_utf8(bytes) {
            assert_scans_as_serde_json(&line);
        }
    }
}
