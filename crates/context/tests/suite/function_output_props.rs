//! Properties of the shared budget over structured tool outputs.

use agentctx_context::MAX_TRUNCATION_MARKER_BYTES;
use agentctx_context::TruncationPolicy;
use agentctx_context::approx_token_count;
use agentctx_context::truncate_function_output_items_with_policy;
use agentctx_protocol::FunctionCallOutputContentItem;
use proptest::prelude::*;

fn item() -> impl Strategy<Value = FunctionCallOutputContentItem> {
    prop_oneof![
        4 => "[a-z😀é ]{0,60}".prop_map(|text| FunctionCallOutputContentItem::InputText { text }),
        1 => "[A-Z]{1,8}".prop_map(|payload| FunctionCallOutputContentItem::InputImage {
            image_url: format!("data:image/png;base64,{payload}"),
            detail: None,
        }),
    ]
}

fn is_omission_marker(text: &str) -> bool {
    text.starts_with("[omitted ") && text.ends_with(" text items ...]")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn images_survive_and_texts_fit_the_shared_budget(
        items in prop::collection::vec(item(), 0..12),
        bytes in 0usize..200,
        use_tokens in any::<bool>(),
    ) {
        let policy = if use_tokens {
            TruncationPolicy::Tokens(bytes / 4)
        } else {
            TruncationPolicy::Bytes(bytes)
        };
        let out = truncate_function_output_items_with_policy(&items, policy);

        let images = |list: &[FunctionCallOutputContentItem]| -> Vec<String> {
            list.iter()
                .filter_map(|item| match item {
                    FunctionCallOutputContentItem::InputImage { image_url, .. } => Some(image_url.clone()),
                    _ => None,
                })
                .collect()
        };
        prop_assert_eq!(images(&out), images(&items));

        let texts: Vec<&str> = out
            .iter()
            .filter_map(|item| match item {
                FunctionCallOutputContentItem::InputText { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let markers = texts.iter().filter(|text| is_omission_marker(text)).count();
        prop_assert!(markers <= 1);
        if markers == 1 {
            prop_assert!(texts.last().is_some_and(|text| is_omission_marker(text)));
        }
        // What is kept stays within the budget, measured as the policy measures it: whole parts
        // fit exactly, the one cut part adds its truncation marker, and under a token policy
        // rounding the cut part up to whole tokens adds at most 3 bytes.
        let kept: usize = texts
            .iter()
            .filter(|text| !is_omission_marker(text))
            .map(|text| match policy {
                TruncationPolicy::Bytes(_) => text.len(),
                TruncationPolicy::Tokens(_) => approx_token_count(text) as usize * 4,
            })
            .sum();
        prop_assert!(kept <= policy.byte_budget() + MAX_TRUNCATION_MARKER_BYTES + 3,
            "kept {} for {:?}", kept, policy);
        // No empty text part is emitted.
        prop_assert!(texts.iter().all(|text| !text.is_empty()));
    }
}
