use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::PayloadFidelity;

fn round_trip(original: &Value, typed: &Value) -> Value {
    let fidelity = PayloadFidelity::between(original, typed);
    let mut written = typed.clone();
    fidelity.restore(&mut written);
    written
}

#[test]
fn restores_nulls_dropped_fields_defaults_and_renamed_values_at_any_depth() {
    let original = json!({
        "type": "compaction_summary",
        "content": null,
        "parts": [{"text": "a", "annotations": [1]}, {"text": "b", "detail": null}],
        "nested": {"deep": {"kept": 1, "unknown": {"x": null}}},
        "key/with~specials": null,
    });
    let typed = json!({
        "type": "compaction",
        "summary": [],
        "parts": [{"text": "a"}, {"text": "b"}],
        "nested": {"deep": {"kept": 1}},
    });
    assert_eq!(round_trip(&original, &typed), original);
}

#[test]
fn equal_payloads_record_nothing_and_any_one_difference_is_recorded() {
    let original = json!({"a": [1, {"b": null}], "c": "d"});
    // Built separately, so nothing is compared with itself.
    let same: Value = serde_json::from_str(r#"{"c":"d","a":[1,{"b":null}]}"#).unwrap();
    assert!(PayloadFidelity::between(&original, &same).is_exact());
    for typed in [
        json!({"a": [1, {}], "c": "d"}),
        json!({"a": [1, {"b": null}]}),
        json!({"a": [1, {"b": null}], "c": "d", "e": 1}),
        json!({"a": [1.0, {"b": null}], "c": "d"}),
        json!({"a": [1], "c": "d"}),
        json!({"a": [1, {"b": false}], "c": "d"}),
        json!({"a": [1, {"b": null}], "c": "D"}),
        json!([1]),
    ] {
        let fidelity = PayloadFidelity::between(&original, &typed);
        assert!(!fidelity.is_exact(), "{typed} recorded as exact");
        assert_eq!(round_trip(&original, &typed), original, "{typed}");
    }
}

#[test]
fn reports_null_pointers() {
    let original = json!({"a": null, "b": {"c": null}, "d": 1});
    let typed = json!({"b": {}, "d": 1});
    let fidelity = PayloadFidelity::between(&original, &typed);
    assert_eq!(
        fidelity.null_pointers().collect::<Vec<_>>(),
        vec!["/a", "/b/c"]
    );
}

#[test]
fn a_value_changed_after_reading_is_written_as_changed() {
    let original = json!({"text": "old", "extra": 1, "content": null});
    let typed = json!({"text": "old"});
    let fidelity = PayloadFidelity::between(&original, &typed);
    // The caller replaced the whole text and added content: only members still as read come back.
    let mut edited = json!({"text": "new", "content": ["x"]});
    fidelity.restore(&mut edited);
    assert_eq!(edited, json!({"text": "new", "extra": 1, "content": ["x"]}));
}

#[test]
fn arrays_of_another_length_are_restored_whole_and_only_when_untouched() {
    let original = json!({"list": [1, 2, 3]});
    let typed = json!({"list": [1, 2]});
    assert_eq!(round_trip(&original, &typed), original);
    let fidelity = PayloadFidelity::between(&original, &typed);
    let mut edited = json!({"list": [9]});
    fidelity.restore(&mut edited);
    assert_eq!(edited, json!({"list": [9]}));
}

/// Small JSON values with few distinct keys, so two of them share structure often.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0i64..4).prop_map(|n| json!(n)),
        prop::sample::select(vec!["", "a", "~/"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["type", "content", "a/b", "x~y", "0"]),
                inner,
                0..4
            )
            .prop_map(|map| Value::Object(
                map.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

/// `value` with its `index`-th node (pre-order, modulo the node count) replaced.
fn replace_node(value: &Value, index: usize, replacement: &Value) -> Value {
    fn count(value: &Value) -> usize {
        1 + match value {
            Value::Array(elements) => elements.iter().map(count).sum(),
            Value::Object(members) => members.values().map(count).sum(),
            _ => 0,
        }
    }
    fn walk(value: &mut Value, target: &mut usize, replacement: &Value) -> bool {
        if *target == 0 {
            *value = replacement.clone();
            return true;
        }
        *target -= 1;
        match value {
            Value::Array(elements) => elements
                .iter_mut()
                .any(|element| walk(element, target, replacement)),
            Value::Object(members) => members
                .values_mut()
                .any(|member| walk(member, target, replacement)),
            _ => false,
        }
    }
    let mut edited = value.clone();
    let mut target = index % count(value);
    walk(&mut edited, &mut target, replacement);
    edited
}

/// A payload and a typed form of it: an equal copy, the payload with one node replaced (the
/// usual case: a null dropped, a field renamed), or an unrelated value.
fn payload_pair() -> impl Strategy<Value = (Value, Value)> {
    (json_value(), 0usize..3, any::<usize>(), json_value()).prop_map(
        |(original, shape, index, other)| {
            let typed = match shape {
                0 => serde_json::from_str(&original.to_string()).unwrap(),
                1 => replace_node(&original, index, &other),
                _ => other,
            };
            (original, typed)
        },
    )
}

proptest! {
    #[test]
    fn restoring_the_typed_form_gives_back_the_original((original, typed) in payload_pair()) {
        prop_assert_eq!(&round_trip(&original, &typed), &original);
        prop_assert_eq!(PayloadFidelity::between(&original, &typed).is_exact(), original == typed);
    }
}
