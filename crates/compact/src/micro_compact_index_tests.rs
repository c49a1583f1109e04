use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::TruncationPolicy;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use proptest::prelude::*;

use super::*;
use crate::config::CompactConfig;
use crate::micro_compact::MicroCompactResult;
use crate::micro_compact::MicroPersistence;
use crate::micro_compact::decide_micro_compact;
use crate::micro_compact::micro_compact;
use crate::micro_compact::plan_micro_compact_sized;

const EST: ApproxTokenEstimator = ApproxTokenEstimator;

/// A tool output of about `tokens` tokens.
fn text_of(tokens: usize, seed: &str) -> String {
    let line = format!("{seed}: some output line of the tool\n");
    line.repeat((tokens * 4).div_ceil(line.len()))
}

/// One appended exchange: a kind of call (or a user message) with a path or command from a
/// small pool, so results supersede each other often.
fn exchange(kind: u8, target: u8, tokens: usize, serial: usize) -> Vec<ResponseItem> {
    let id = format!("call_{serial}");
    let output = ResponseItem::function_call_output(&id, text_of(tokens, &id));
    match kind % 7 {
        0 => vec![
            ResponseItem::function_call(
                &id,
                "Read",
                format!(r#"{{"file_path":"/src/{target}.rs"}}"#),
            ),
            output,
        ],
        1 => vec![
            ResponseItem::function_call(
                &id,
                "Bash",
                format!(r#"{{"command":"cat part{target}"}}"#),
            ),
            output,
        ],
        2 => vec![
            ResponseItem::function_call(
                &id,
                "Edit",
                format!(r#"{{"file_path":"/src/{target}.rs"}}"#),
            ),
            output,
        ],
        3 => vec![
            ResponseItem::function_call(&id, "Bash", r#"{"command":"false"}"#),
            ResponseItem::FunctionCallOutput {
                call_id: id,
                output: FunctionCallOutputPayload {
                    success: Some(false),
                    ..FunctionCallOutputPayload::text("Exit code: 1\nfailed")
                },
                extra: ExtraFields::new(),
            },
        ],
        4 => vec![
            ResponseItem::LocalShellCall {
                id: None,
                call_id: Some(id),
                status: None,
                action: serde_json::json!({"type": "exec", "command": ["ls"]}),
                extra: ExtraFields::new(),
            },
            output,
        ],
        5 => vec![ResponseItem::user_text(format!("next request {serial}"))],
        // A call whose output comes later (or never).
        _ => vec![ResponseItem::function_call(
            &id,
            "Grep",
            format!(r#"{{"pattern":"p{target}"}}"#),
        )],
    }
}

#[derive(Debug, Clone)]
enum Op {
    Append(Vec<(u8, u8, usize)>),
    /// Micro-compaction applied as the session applies it, on the kept index.
    Compact(CompactionMode),
    RemoveFirst,
    RemoveLast,
    DropTurns(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let exchanges = prop::collection::vec(
        (
            0u8..7,
            0u8..4,
            prop_oneof![Just(50usize), Just(3_000), Just(9_000)],
        ),
        1..10,
    );
    prop_oneof![
        6 => exchanges.prop_map(Op::Append),
        1 => Just(Op::Compact(CompactionMode::Normal)),
        1 => Just(Op::Compact(CompactionMode::Aggressive)),
        1 => Just(Op::RemoveFirst),
        1 => Just(Op::RemoveLast),
        1 => (1u32..3).prop_map(Op::DropTurns),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever happened to the history (micro-compaction on the kept index among it), the
    /// index answers and plans as a fresh look at the whole history does.
    #[test]
    fn the_index_decides_and_plans_as_a_fresh_look(ops in prop::collection::vec((op(), any::<bool>()), 1..20)) {
        let home = tempfile::tempdir().unwrap();
        let mut config = CompactConfig::default();
        config.micro.min_savings_tokens = 5_000;
        config.micro.target_tool_result_tokens = 6_000;
        let micro = config.micro.clone();
        let tools = ToolClasses::new();
        let mut history = ContextManager::new();
        history.record_items([ResponseItem::user_text("start")], TruncationPolicy::Bytes(100_000));
        let mut index = MicroCompactIndex::new();
        let mut serial = 0;
        for (op, look) in &ops {
            match op {
                Op::Append(exchanges) => {
                    for (kind, target, tokens) in exchanges {
                        serial += 1;
                        history.record_items(exchange(*kind, *target, *tokens, serial), TruncationPolicy::Bytes(100_000));
                    }
                }
                Op::Compact(mode) => {
                    let fresh_plan = plan_micro_compact_sized(history.raw_items(), history.item_sizes(), &tools, &micro, *mode, home.path(), &EST);
                    let result = micro_compact(&mut history, &mut index, &config, *mode, home.path(), MicroPersistence::MarkersOnly).unwrap();
                    match result {
                        MicroCompactResult::Applied(outcome) => {
                            prop_assert!(fresh_plan.worthwhile);
                            prop_assert_eq!(outcome.tokens_saved, fresh_plan.tokens_saved);
                            prop_assert_eq!(outcome.cleared_count(), fresh_plan.clears.len());
                        }
                        MicroCompactResult::Skipped(_) => prop_assert!(!fresh_plan.worthwhile || fresh_plan.clears.is_empty()),
                    }
                }
                Op::RemoveFirst => {
                    history.remove_first_item();
                }
                Op::RemoveLast => {
                    history.remove_last_item();
                }
                Op::DropTurns(turns) => history.drop_last_n_user_turns(*turns),
            }
            // Several changes can come between two decisions.
            if !look {
                continue;
            }
            for mode in [CompactionMode::Normal, CompactionMode::Aggressive] {
                let fresh_plan = plan_micro_compact_sized(history.raw_items(), history.item_sizes(), &tools, &micro, mode, home.path(), &EST);
                let fresh_decision = decide_micro_compact(history.raw_items(), history.item_sizes(), &tools, &micro, mode, home.path(), &EST);
                let decision = index.decide(&history, &micro, mode, home.path());
                prop_assert_eq!(decision, fresh_decision);
                let plan = index.plan(&history, &micro, mode, home.path());
                prop_assert_eq!(&plan, &fresh_plan);
                // A fresh index decides alike.
                let decision = MicroCompactIndex::new().decide(&history, &micro, mode, home.path());
                prop_assert_eq!(decision, fresh_decision);
            }
        }
    }
}

/// `items` in a history manager, as they are (measured, not truncated).
fn manager(items: Vec<ResponseItem>) -> ContextManager {
    let mut history = ContextManager::new();
    history.replace(items);
    history
}

#[test]
fn a_change_other_than_an_append_makes_the_index_look_again() {
    let home = tempfile::tempdir().unwrap();
    let micro = CompactConfig::default().micro;
    let mut index = MicroCompactIndex::new();
    let mut items = vec![ResponseItem::user_text("look")];
    for n in 0..8 {
        items.extend(exchange(1, n, 7_000, usize::from(n)));
    }
    items.push(ResponseItem::user_text("now fix it"));
    let mut history = manager(items);
    let decide = |index: &mut MicroCompactIndex, history: &ContextManager| {
        index.decide(history, &micro, CompactionMode::Normal, home.path())
    };
    assert!(decide(&mut index, &history).worthwhile);

    // Every result cleared by hand (not by micro-compaction): a new version, looked at again.
    let cleared: Vec<(usize, String)> = history
        .raw_items()
        .iter()
        .enumerate()
        .filter(|(_, item)| item.is_tool_output())
        .map(|(index, _)| {
            (
                index,
                crate::persisted_output::CLEARED_TOOL_RESULT_TEXT.to_string(),
            )
        })
        .collect();
    history.replace_tool_output_texts(cleared);
    assert_eq!(
        decide(&mut index, &history),
        MicroCompactDecision::default()
    );
}

#[test]
fn savings_are_computed_again_under_another_home_or_threshold() {
    let short = tempfile::tempdir().unwrap();
    let long = tempfile::tempdir().unwrap();
    let long_home = long
        .path()
        .join("a-much-longer-folder-name-for-the-markers-to-name".repeat(3));
    let mut items = vec![ResponseItem::user_text("look")];
    for n in 0..6 {
        items.extend(exchange(1, n, 3_000, usize::from(n)));
    }
    items.push(ResponseItem::user_text("now fix it"));
    let history = manager(items);
    let mut micro = CompactConfig::default().micro;
    micro.min_savings_tokens = 1_000_000;
    micro.target_tool_result_tokens = 0;
    let mut index = MicroCompactIndex::new();
    let mut answers = Vec::new();
    for (home, threshold) in [
        (short.path(), 1_000),
        (long_home.as_path(), 1_000),
        (long_home.as_path(), 10_000),
    ] {
        micro.persist_threshold_tokens = threshold;
        let fresh = decide_micro_compact(
            history.raw_items(),
            history.item_sizes(),
            &ToolClasses::new(),
            &micro,
            CompactionMode::Normal,
            home,
            &EST,
        );
        let indexed = index.decide(&history, &micro, CompactionMode::Normal, home);
        assert_eq!(indexed, fresh);
        answers.push(fresh.tokens_saved);
    }
    answers.dedup();
    assert_eq!(
        answers.len(),
        3,
        "each setting saves a different amount: {answers:?}"
    );
}

#[test]
fn other_tool_classes_make_the_index_look_again() {
    let home = tempfile::tempdir().unwrap();
    let mut micro = CompactConfig::default().micro;
    micro.min_savings_tokens = 1;
    micro.target_tool_result_tokens = 0;
    let mut items = vec![ResponseItem::user_text("look")];
    for n in 0..6 {
        items.extend(exchange(6, n, 3_000, usize::from(n)));
        items.push(ResponseItem::function_call_output(
            format!("call_{n}"),
            text_of(3_000, "grep"),
        ));
    }
    let history = manager(items);
    let mut index = MicroCompactIndex::new();
    assert!(
        index
            .decide(&history, &micro, CompactionMode::Normal, home.path())
            .worthwhile,
        "`Grep` is a search by its recorded name"
    );
    index.set_tool_classes(ToolClasses::from_iter([("Grep".to_string(), None)]));
    assert_eq!(
        index.decide(&history, &micro, CompactionMode::Normal, home.path()),
        MicroCompactDecision::default(),
        "the host says its `Grep` is of no class"
    );
}

#[test]
fn one_prompt_growing_request_by_request_is_cleared_as_a_fresh_look_clears_it() {
    // One user message drives every request: the index, fed the appended exchanges one
    // request at a time, finds clearing worthwhile as soon as the whole-history plan does, and
    // plans the same clears (all but the three newest results).
    let home = tempfile::tempdir().unwrap();
    let mut micro = CompactConfig::default().micro;
    micro.target_tool_result_tokens = 0;
    let mut history = ContextManager::new();
    history.record_items(
        [ResponseItem::user_text("fix the failing tests")],
        TruncationPolicy::Bytes(100_000),
    );
    let mut index = MicroCompactIndex::new();
    let mut first_worthwhile = None;
    for serial in 1..=8 {
        history.record_items(
            exchange(1, 0, 7_000, serial),
            TruncationPolicy::Bytes(100_000),
        );
        let fresh = plan_micro_compact_sized(
            history.raw_items(),
            history.item_sizes(),
            &ToolClasses::new(),
            &micro,
            CompactionMode::Normal,
            home.path(),
            &EST,
        );
        let decision = index.decide(&history, &micro, CompactionMode::Normal, home.path());
        assert_eq!(decision.worthwhile, fresh.worthwhile, "request {serial}");
        assert_eq!(
            index.plan(&history, &micro, CompactionMode::Normal, home.path()),
            fresh
        );
        if decision.worthwhile && first_worthwhile.is_none() {
            first_worthwhile = Some(serial);
            let cleared: Vec<&str> = fresh.clears.iter().map(|c| c.call_id.as_str()).collect();
            // The same command each time: the older results are superseded, the three newest
            // kept.
            assert_eq!(cleared.len(), serial - 3, "{cleared:?}");
            assert!(!cleared.contains(&format!("call_{serial}").as_str()));
        }
    }
    // Three 7,000-token results cleared save at least 20,000 tokens: the sixth request.
    assert_eq!(first_worthwhile, Some(6));
}
