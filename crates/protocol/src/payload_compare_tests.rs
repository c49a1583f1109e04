use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::serializes_to;
use crate::PayloadFidelity;
use crate::RolloutItem;

const EVERY_KIND: &str = include_str!("../tests/fixtures/every_kind.jsonl");

/// Small JSON values with few distinct keys, so two of them are often equal or nearly so.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-2i64..3).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        Just(json!(2.0)),
        Just(json!(2)),
        Just(json!(u64::MAX)),
        prop::sample::select(vec!["", "a", "b"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c"]), inner, 0..3)
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

/// The typed payloads of the fixture (one of every rollout item kind) and their JSON.
fn fixture_items() -> Vec<(RolloutItem, Value)> {
    EVERY_KIND
        .lines()
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).unwrap();
            let kind = value["type"].as_str().unwrap().to_string();
            let item = RolloutItem::from_parts(&kind, value["payload"].take());
            let typed = item.payload_value().unwrap();
            (item, typed)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// On values: equal copies (parsed separately from the text, so never the same value),
    /// one-node edits and unrelated values.
    #[test]
    fn agrees_with_value_equality(
        expected in json_value(),
        shape in 0usize..3,
        index in any::<usize>(),
        other in json_value(),
    ) {
        let typed = match shape {
            0 => serde_json::from_str(&expected.to_string()).unwrap(),
            1 => replace_node(&expected, index, &other),
            _ => other,
        };
        prop_assert_eq!(serializes_to(&expected, &typed), expected == typed);
    }

    /// On typed payloads (structs, enums, options, maps): their own JSON matches, and the
    /// JSON with any one node replaced matches exactly when the replacement changed nothing.
    #[test]
    fn agrees_with_value_equality_on_typed_payloads(
        line in any::<prop::sample::Index>(),
        index in any::<usize>(),
        replacement in json_value(),
    ) {
        let items = fixture_items();
        let (item, typed) = &items[line.index(items.len())];
        let reparsed: Value = serde_json::from_str(&typed.to_string()).unwrap();
        prop_assert!(item.payload_serializes_to(&reparsed));
        let edited = replace_node(typed, index, &replacement);
        prop_assert_eq!(item.payload_serializes_to(&edited), &edited == typed, "{}", edited);
    }
}

#[test]
fn agrees_with_the_full_diff_on_every_fixture_line() {
    let mut exact = 0;
    for (number, line) in EVERY_KIND.lines().enumerate() {
        let mut value: Value = serde_json::from_str(line).unwrap();
        let kind = value["type"].as_str().unwrap().to_string();
        let payload = value["payload"].take();
        let item = RolloutItem::from_parts(&kind, payload.clone());
        let typed = item.payload_value().unwrap();
        let diff_is_exact = PayloadFidelity::between(&payload, &typed).is_exact();
        assert_eq!(
            item.payload_serializes_to(&payload),
            diff_is_exact,
            "line {}",
            number + 1
        );
        exact += usize::from(diff_is_exact);
    }
    // Both outcomes are exercised.
    assert!(exact > 10, "{exact} exact lines");
    assert!(exact < EVERY_KIND.lines().count());
}

#[test]
fn an_integer_and_a_float_of_the_same_value_differ() {
    // serde_json keeps `2` and `2.0` apart, so writing one where the other was read changes
    // the line.
    for (expected, typed) in [
        (json!(2), json!(2.0)),
        (json!(2.0), json!(2)),
        (json!(-1), json!(-1.0)),
        (json!({"n": 0}), json!({"n": 0.0})),
        (json!([u64::MAX]), json!([u64::MAX as f64])),
    ] {
        assert!(
            !serializes_to(&expected, &typed),
            "{typed} matched {expected}"
        );
        assert!(
            !serializes_to(&typed, &expected),
            "{expected} matched {typed}"
        );
    }
    assert!(serializes_to(&json!({"n": 0.5}), &json!({"n": 0.5})));
}
