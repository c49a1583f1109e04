use std::collections::BTreeMap;

use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::json_len;
use super::string_len;

/// The length serde_json writes.
fn written<T: Serialize + ?Sized>(value: &T) -> Option<u64> {
    serde_json::to_vec(value)
        .ok()
        .map(|bytes| bytes.len() as u64)
}

#[test]
fn every_byte_a_string_may_hold_is_counted_as_serde_json_escapes_it() {
    for byte in 0u8..=0x7f {
        let one = char::from(byte).to_string();
        assert_eq!(Some(string_len(&one)), written(&one), "byte {byte:#x}");
        // At every place of a pair of words, of a word after the last pair, and of the tail
        // after the last whole word.
        for length in [19, 27, 35] {
            for at in 0..length {
                let mut text = "a".repeat(length);
                text.replace_range(at..=at, &one);
                assert_eq!(
                    Some(string_len(&text)),
                    written(&text),
                    "byte {byte:#x} at {at} of {length}"
                );
            }
        }
    }
    for text in [
        "",
        "é — 😀 \u{7f}\u{80}\u{2028}",
        "line one\nline two\n\ttabbed \"quoted\" back\\slash\r\n",
        "\u{0}\u{1}\u{1f}\u{1b}[31m",
        &"a plain line of text, long enough for words\n".repeat(40),
        &"é — 😀 naïve café «cité» \u{9f}\u{a0}\u{ff} ".repeat(9),
    ] {
        assert_eq!(Some(string_len(text)), written(text), "{text:?}");
    }
}

#[test]
fn every_byte_in_the_blocks_of_a_long_string_is_counted_as_serde_json_escapes_it() {
    for byte in 0u8..=0x7f {
        let one = char::from(byte).to_string();
        // The first block, the place between two, the last block, and the tail after it.
        for at in [
            0, 1, 127, 253, 254, 255, 256, 509, 510, 511, 764, 765, 800, 809,
        ] {
            let mut text = "a".repeat(810);
            text.replace_range(at..=at, &one);
            assert_eq!(
                Some(string_len(&text)),
                written(&text),
                "byte {byte:#x} at {at}"
            );
        }
        // A block of nothing else: its counts at their largest.
        let full = one.repeat(600);
        assert_eq!(
            Some(string_len(&full)),
            written(&full),
            "byte {byte:#x} repeated"
        );
    }
    let mixed = "é — 😀 \"q\" \\ \u{1}\u{1f}\t\n\r\u{8}\u{c} naïve «cité» ".repeat(40);
    assert_eq!(Some(string_len(&mixed)), written(&mixed));
}

#[test]
fn every_pair_of_ascii_bytes_in_one_word_or_a_pair_of_words_is_counted_as_serde_json_escapes_it() {
    // Two marked bytes of one word, and their neighbours: the word's masks must neither
    // double-count nor miss either.
    for first in 0u8..=0x7f {
        for second in 0u8..=0x7f {
            let text: String = [b'a', first, b'b', b'c', b'd', second, b'e', b'f', b'g']
                .iter()
                .map(|byte| char::from(*byte))
                .collect();
            assert_eq!(
                Some(string_len(&text)),
                written(&text),
                "bytes {first:#x} and {second:#x}"
            );
            // One in each word of a pair, which are first asked together whether either holds
            // a byte escaping lengthens.
            let mut pair = *b"abcdefghijklmnop";
            pair[3] = first;
            pair[12] = second;
            let text: String = pair.iter().map(|byte| char::from(*byte)).collect();
            assert_eq!(
                Some(string_len(&text)),
                written(&text),
                "bytes {first:#x} and {second:#x} in a pair of words"
            );
        }
    }
}

#[derive(Serialize)]
enum Shapes {
    Unit,
    Newtype(Option<i128>),
    Tuple(u8, char, f32),
    Struct {
        bytes: Vec<u8>,
        #[serde(with = "serde_bytes_as_bytes")]
        raw: Vec<u8>,
        empty: Vec<u32>,
        nothing: (),
    },
}

/// `serialize_bytes`, which serde_json writes as an array of numbers.
mod serde_bytes_as_bytes {
    pub(super) fn serialize<S: serde::Serializer>(
        bytes: &[u8],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
#[serde(tag = "type")]
enum Tagged {
    Inner {
        value: i64,
        #[serde(flatten)]
        extra: BTreeMap<String, Value>,
    },
}

#[test]
fn every_shape_of_serde_is_counted_as_serde_json_writes_it() {
    let extra = BTreeMap::from([("k\"ey".to_string(), Value::from(-0.0))]);
    let shapes: Vec<Box<dyn erased::Written>> = vec![
        Box::new(Shapes::Unit),
        Box::new(Shapes::Newtype(Some(
            -170_141_183_460_469_231_731_687_303_715_884_105_728,
        ))),
        Box::new(Shapes::Newtype(None)),
        Box::new(Shapes::Tuple(255, '"', 1.5e-7)),
        Box::new(Shapes::Struct {
            bytes: vec![0, 9, 10, 99, 100, 255],
            raw: vec![1, 200],
            empty: Vec::new(),
            nothing: (),
        }),
        Box::new(Unit),
        Box::new(Tagged::Inner { value: -42, extra }),
        Box::new(vec![f64::NAN, f64::INFINITY, -0.0, 1e300, 12.0]),
        Box::new((u64::MAX, i64::MIN, u128::MAX, 'é')),
        // Keys that are not strings: serde_json quotes some and refuses others.
        Box::new(BTreeMap::from([(7u32, "seven"), (70, "seventy")])),
        Box::new(BTreeMap::from([(true, 1)])),
        Box::new(BTreeMap::from([((1, 2), 3)])),
        Box::new(BTreeMap::<String, u8>::new()),
    ];
    for (index, shape) in shapes.iter().enumerate() {
        assert_eq!(shape.counted(), shape.written(), "shape {index}");
    }
    assert_eq!(json_len(&BTreeMap::from([((1, 2), 3)])), None);
}

/// Boxes the comparison so values of different types share a list.
mod erased {
    use serde::Serialize;

    pub(super) trait Written {
        fn counted(&self) -> Option<u64>;
        fn written(&self) -> Option<u64>;
    }

    impl<T: Serialize> Written for T {
        fn counted(&self) -> Option<u64> {
            super::json_len(self)
        }

        fn written(&self) -> Option<u64> {
            super::written(self)
        }
    }
}

#[test]
fn items_of_every_kind_are_counted_as_serde_json_writes_them() {
    let payloads = [
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"line\n\t\"q\" é"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"},{"type":"input_audio","data":"x"}],"id":"m1","phase":"final"}"#,
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done\u0001"}]}"#,
        r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"s"},{"type":"other","n":1.5}],"content":[{"type":"reasoning_text","text":"r"},{"type":"text","text":"t"}],"encrypted_content":"gAAAA=="}"#,
        r#"{"type":"reasoning","summary":[]}"#,
        r#"{"type":"local_shell_call","call_id":"c","status":"completed","action":{"type":"exec","command":["ls","-la"],"timeout_ms":1000}}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1","id":"fc"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"exit 0\nok\n"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"u"},{"type":"x","y":null}]}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":{"content":"old","success":true}}"#,
        r#"{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n","call_id":"c2","status":"completed"}"#,
        r#"{"type":"custom_tool_call_output","call_id":"c2","output":"Success."}"#,
        r#"{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}"#,
        r#"{"type":"ghost_snapshot","ghost_commit":{"id":"abc","parent":null,"preexisting_untracked_files":[]}}"#,
        r#"{"type":"compaction_summary","encrypted_content":"e","x":[1,-2,3.25,true]}"#,
        r#"{"type":"brand_new","anything":{"nested":[{"deep":"\u001f"}]}}"#,
    ];
    for payload in payloads {
        let item: ResponseItem = serde_json::from_str(payload).unwrap();
        assert_eq!(json_len(&item), written(&item), "{payload}");
    }
    let mut injected = ResponseItem::user_text("hello");
    injected.set_injected(true);
    assert_eq!(json_len(&injected), written(&injected));
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(
            |float| serde_json::Number::from_f64(float).map_or(Value::Null, Value::Number)
        ),
        any::<String>().prop_map(Value::String),
        "[\\x00-\\x7f\"\\\\]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any JSON value is counted as serde_json writes it.
    #[test]
    fn any_json_value_is_counted_as_serde_json_writes_it(value in json_value()) {
        prop_assert_eq!(json_len(&value), written(&value));
    }

    /// Any string is counted as serde_json writes it.
    #[test]
    fn any_string_is_counted_as_serde_json_writes_it(text in any::<String>()) {
        prop_assert_eq!(Some(string_len(&text)), written(&text));
    }
}
