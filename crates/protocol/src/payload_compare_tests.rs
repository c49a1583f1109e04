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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn agrees_with_value_equality(expected in json_value(), typed in json_value()) {
        prop_assert_eq!(serializes_to(&expected, &typed), expected == typed);
        prop_assert!(serializes_to(&expected, &expected));
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
