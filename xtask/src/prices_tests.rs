use pretty_assertions::assert_eq;

use super::*;

/// Entries shaped as in LiteLLM's `model_prices_and_context_window.json` (litellm 1.110.2),
/// trimmed: the `sample_spec` that documents the fields, chat and responses models with fields
/// agentctx does not read, an embedding and an image model, a chat entry that states nothing
/// agentctx reads, a limit written as a float, a fast-mode multiplier beside a regional uplift,
/// and long-context prices beside those of other service tiers.
const SAMPLE: &str = r#"{
  "sample_spec": {"input_cost_per_token": 0.0, "litellm_provider": "one of https://docs.litellm.ai/docs/providers", "max_input_tokens": "max input tokens, if the provider specifies it", "mode": "one of: chat, embedding, completion"},
  "gpt-5.1-codex": {"cache_read_input_token_cost": 1.25e-07, "input_cost_per_token": 1.25e-06, "litellm_provider": "openai", "max_input_tokens": 400000, "max_output_tokens": 128000, "mode": "responses", "output_cost_per_token": 1e-05, "supports_reasoning": true, "supported_endpoints": ["/v1/responses"]},
  "claude-sonnet-4-5": {"cache_creation_input_token_cost": 3.75e-06, "cache_creation_input_token_cost_above_1hr": 6e-06, "cache_read_input_token_cost": 3e-07, "input_cost_per_token": 3e-06, "litellm_provider": "anthropic", "max_input_tokens": 200000, "max_output_tokens": 64000, "mode": "chat", "output_cost_per_token": 1.5e-05, "search_context_cost_per_query": {"search_context_size_high": 0.01}},
  "text-embedding-3-small": {"input_cost_per_token": 2e-08, "litellm_provider": "openai", "max_input_tokens": 8191, "mode": "embedding"},
  "dall-e-3": {"litellm_provider": "openai", "mode": "image_generation", "output_cost_per_image": 0.04},
  "nothing-known": {"litellm_provider": "example", "mode": "chat", "supports_vision": true},
  "float-limits": {"litellm_provider": "example", "mode": "chat", "max_input_tokens": 1e6, "max_output_tokens": 8192.5, "input_cost_per_token": 0},
  "claude-opus-4-8": {"cache_creation_input_token_cost": 6.25e-06, "cache_creation_input_token_cost_above_1hr": 1e-05, "cache_read_input_token_cost": 5e-07, "input_cost_per_token": 5e-06, "litellm_provider": "anthropic", "mode": "chat", "output_cost_per_token": 2.5e-05, "provider_specific_entry": {"us": 1.1, "fast": 2.0}, "supports_fast_mode": true},
  "gpt-5.4": {"cache_read_input_token_cost": 2.5e-07, "cache_read_input_token_cost_above_272k_tokens": 5e-07, "input_cost_per_token": 2.5e-06, "input_cost_per_token_above_272k_tokens": 5e-06, "input_cost_per_token_above_272k_tokens_priority": 1e-05, "input_cost_per_token_priority": 5e-06, "litellm_provider": "openai", "mode": "chat", "output_cost_per_token": 1.5e-05, "output_cost_per_token_above_272k_tokens": 2.25e-05, "cache_creation_input_token_cost_above_12hr_above_272k_tokens": 1e-05}
}"#;

#[test]
fn filter_keeps_chat_and_responses_entries_and_the_fields_read() {
    let filtered = filter(SAMPLE).unwrap();
    assert_eq!(filtered.source_entries, 9);
    let names: Vec<&str> = filtered.entries.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        vec![
            "claude-opus-4-8",
            "claude-sonnet-4-5",
            "float-limits",
            "gpt-5.1-codex",
            "gpt-5.4"
        ]
    );
    assert_eq!(
        render(&filtered.entries).unwrap(),
        r#"{
  "claude-opus-4-8": {"litellm_provider":"anthropic","mode":"chat","input_cost_per_token":5e-6,"output_cost_per_token":0.000025,"cache_read_input_token_cost":5e-7,"cache_creation_input_token_cost":6.25e-6,"cache_creation_input_token_cost_above_1hr":0.00001,"provider_specific_entry":{"fast":2.0}},
  "claude-sonnet-4-5": {"litellm_provider":"anthropic","mode":"chat","input_cost_per_token":3e-6,"output_cost_per_token":0.000015,"cache_read_input_token_cost":3e-7,"cache_creation_input_token_cost":3.75e-6,"max_input_tokens":200000,"max_output_tokens":64000,"cache_creation_input_token_cost_above_1hr":6e-6},
  "float-limits": {"litellm_provider":"example","mode":"chat","input_cost_per_token":0.0,"max_input_tokens":1000000},
  "gpt-5.1-codex": {"litellm_provider":"openai","mode":"responses","input_cost_per_token":1.25e-6,"output_cost_per_token":0.00001,"cache_read_input_token_cost":1.25e-7,"max_input_tokens":400000,"max_output_tokens":128000},
  "gpt-5.4": {"litellm_provider":"openai","mode":"chat","input_cost_per_token":2.5e-6,"output_cost_per_token":0.000015,"cache_read_input_token_cost":2.5e-7,"cache_read_input_token_cost_above_272k_tokens":5e-7,"input_cost_per_token_above_272k_tokens":5e-6,"output_cost_per_token_above_272k_tokens":0.0000225}
}
"#
    );
}

#[test]
fn the_rendered_file_is_json_that_reads_back_the_same() {
    let filtered = filter(SAMPLE).unwrap();
    let text = render(&filtered.entries).unwrap();
    let again = filter(&text).unwrap();
    assert_eq!(again.entries, filtered.entries);
    assert_eq!(render(&again.entries).unwrap(), text);
}

#[test]
fn text_that_is_not_a_table_is_an_error() {
    assert!(filter("[]").is_err());
    assert!(filter("").is_err());
}

#[test]
fn changes_name_added_removed_and_changed_entries() {
    let before = r#"{
  "a": {"mode":"chat","input_cost_per_token":1e-6},
  "b": {"mode":"chat","input_cost_per_token":2e-6},
  "c": {"mode":"chat"}
}"#;
    let after = r#"{
  "a": {"mode":"chat","input_cost_per_token":1e-6},
  "b": {"mode":"chat","input_cost_per_token":3e-6},
  "d": {"mode":"chat"}
}"#;
    let diff = changes(before, after).unwrap();
    assert_eq!(
        diff,
        Changes {
            added: vec!["d".to_owned()],
            removed: vec!["c".to_owned()],
            changed: vec!["b".to_owned()],
        }
    );
    assert_eq!(
        summarise(&diff),
        "added 1 (d); removed 1 (c); changed 1 (b)"
    );
    assert_eq!(changes(after, after).unwrap(), Changes::default());
    assert_eq!(summarise(&Changes::default()), "unchanged");
    // The first refresh, with no vendored file yet.
    assert_eq!(changes("", after).unwrap().added.len(), 3);
}

#[test]
fn summaries_name_at_most_five_models_of_a_kind() {
    let diff = Changes {
        added: (1..=7).map(|n| format!("m{n}")).collect(),
        ..Changes::default()
    };
    assert_eq!(
        summarise(&diff),
        "added 7 (m1, m2, m3, m4, m5, …); removed 0; changed 0"
    );
}

#[test]
fn the_readme_records_the_version_a_plain_refresh_fetches() {
    let provenance = Provenance {
        version: "1.110.2".to_owned(),
        wheel: "litellm-1.110.2-cp310-abi3-manylinux_2_28_x86_64.whl".to_owned(),
        sha256: "ab12".to_owned(),
        license_member: "litellm-1.110.2.dist-info/licenses/LICENSE".to_owned(),
        date: "2025-11-26".to_owned(),
        kept: 3,
        source_entries: 7,
    };
    let text = readme(&provenance);
    assert_eq!(recorded_version(&text), Some("1.110.2"));
    assert!(text.contains("sha256 `ab12`"), "{text}");
    assert!(text.contains("refreshed: 2025-11-26"), "{text}");
    assert_eq!(recorded_version("# no version here\n"), None);
}

#[test]
fn the_vendored_readme_records_a_version() {
    let path = workspace::root().join(DATA_DIR).join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(recorded_version(&text).is_some(), "{}", path.display());
}

#[test]
fn wheel_names_give_their_version() {
    assert_eq!(
        wheel_version("litellm-1.110.2-cp310-abi3-manylinux_2_28_x86_64.whl"),
        Some("1.110.2")
    );
    assert_eq!(
        wheel_version("litellm-1.108.0-py3-none-any.whl"),
        Some("1.108.0")
    );
    assert_eq!(wheel_version("other-1.0-py3-none-any.whl"), None);
    assert_eq!(wheel_version("litellm-1.108.0.tar.gz"), None);
}

#[test]
fn civil_dates() {
    assert_eq!(civil_date(0), "1970-01-01");
    assert_eq!(civil_date(59), "1970-03-01");
    // 2000 is a leap year, 1900 and 2100 are not.
    assert_eq!(civil_date(11_016), "2000-02-29");
    assert_eq!(civil_date(20_418), "2025-11-26");
    assert_eq!(civil_date(47_541), "2100-03-01");
    assert_eq!(civil_date(-1), "1969-12-31");
}

#[test]
fn long_context_fields_are_told_from_those_of_other_tiers() {
    for kept in [
        "input_cost_per_token_above_200k_tokens",
        "output_cost_per_token_above_272k_tokens",
        "cache_read_input_token_cost_above_128k_tokens",
        "cache_creation_input_token_cost_above_200k_tokens",
        "cache_creation_input_token_cost_above_1hr_above_200k_tokens",
    ] {
        assert!(is_long_context_field(kept), "{kept}");
    }
    for dropped in [
        "input_cost_per_token_above_272k_tokens_priority",
        "input_cost_per_token_above_200k_tokens_batches",
        "cache_creation_input_token_cost_above_1hr",
        "cache_creation_input_token_cost_above_12hr_above_272k_tokens",
        "input_cost_per_audio_token_above_200k_tokens",
        "input_cost_per_token_above_k_tokens",
        "input_cost_per_token",
    ] {
        assert!(!is_long_context_field(dropped), "{dropped}");
    }
}
