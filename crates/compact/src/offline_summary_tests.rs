use agentctx_context::approx_token_count;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;

use super::OFFLINE_SUMMARY_HEADER;
use super::omission_marker;
use super::omission_marker_len;
use super::shorten;
use super::summarize_offline;

fn shell(call_id: &str, command: &str) -> ResponseItem {
    ResponseItem::function_call(
        call_id,
        "shell_command",
        json!({"command": command, "workdir": "/home/mira/src/tally"}).to_string(),
    )
}

fn output(call_id: &str, text: &str) -> ResponseItem {
    ResponseItem::function_call_output(call_id, text)
}

fn patch(call_id: &str, body: &str) -> ResponseItem {
    serde_json::from_value(json!({
        "type": "custom_tool_call", "status": "completed", "call_id": call_id,
        "name": "apply_patch", "input": body,
    }))
    .unwrap()
}

fn plan(call_id: &str, steps: &[(&str, &str)]) -> ResponseItem {
    let plan: Vec<_> = steps
        .iter()
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    ResponseItem::function_call(call_id, "update_plan", json!({ "plan": plan }).to_string())
}

/// A scripted session of several turns: context injections, reads, patches, a failing and a
/// fixed test run, a plan, a failed push, and a last request the assistant has not answered.
fn scripted_long_session() -> Vec<ResponseItem> {
    let mut items = vec![
        ResponseItem::developer_text(
            "<permissions instructions>workspace-write</permissions instructions>",
        ),
        ResponseItem::user_text(
            "# AGENTS.md instructions for /home/mira/src/tally\n\n<INSTRUCTIONS>\nRun clippy before committing.\n</INSTRUCTIONS>",
        ),
        ResponseItem::user_text(
            "<environment_context>\n<cwd>/home/mira/src/tally</cwd>\n</environment_context>",
        ),
        ResponseItem::user_text(
            "I want `tally report` to take a `--since <DATE>` option so I can see only recent months. Can you add it?",
        ),
        shell("c1", "rg -n \"Report|build_report\" src | head -40"),
        output(
            "c1",
            "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nsrc/cli.rs:22:    Report(ReportArgs),",
        ),
        shell("c2", "sed -n 1,80p src/report.rs"),
        output(
            "c2",
            "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nuse std::collections::BTreeMap;",
        ),
        shell("c3", "cat src/dates.rs"),
        output(
            "c3",
            "Exit code: 0\nWall time: 0.2 seconds\nOutput:\npub fn parse_date(input: &str)",
        ),
        ResponseItem::assistant_text(
            "I'll reuse `parse_date` from `src/dates.rs` instead of adding a second date parser.",
        ),
        plan(
            "c4",
            &[
                ("Add --since to ReportArgs", "in_progress"),
                ("Filter entries in build_report", "pending"),
                ("Add tests", "pending"),
            ],
        ),
        output("c4", "Plan updated"),
        patch(
            "c5",
            "*** Begin Patch\n*** Update File: src/cli.rs\n@@\n+    pub since: Option<String>,\n*** Update File: src/report.rs\n@@\n+    pub since: Option<Date>,\n*** End Patch",
        ),
        output(
            "c5",
            "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/cli.rs\nM src/report.rs\n",
        ),
        shell("c6", "cargo test -q 2>&1 | tail -30"),
        output(
            "c6",
            "Exit code: 101\nWall time: 33.2 seconds\nOutput:\nerror[E0277]: the trait bound `ReportOptions: Default` is not satisfied\n   --> src/report.rs:118:77",
        ),
        ResponseItem::assistant_text(
            "The test helper needs `ReportOptions: Default`; I'll derive it rather than write a constructor.",
        ),
        patch(
            "c7",
            "*** Begin Patch\n*** Update File: src/report.rs\n@@\n+#[derive(Debug, Default)]\n*** End Patch",
        ),
        output(
            "c7",
            "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/report.rs\n",
        ),
        shell("c8", "cargo test -q 2>&1 | tail -8"),
        output(
            "c8",
            "Exit code: 0\nWall time: 31.7 seconds\nOutput:\ntest result: ok. 23 passed; 0 failed",
        ),
        plan(
            "c9",
            &[
                ("Add --since to ReportArgs", "completed"),
                ("Filter entries in build_report", "completed"),
                ("Add tests", "in_progress"),
            ],
        ),
        output("c9", "Plan updated"),
        ResponseItem::assistant_text("Added `--since <DATE>` to `tally report`; the tests pass."),
        ResponseItem::user_text(
            "<system-reminder>\nThe todo list has 1 item in progress.\n</system-reminder>",
        ),
        ResponseItem::user_text("nice. can it also accept relative dates like `30d` or `3m`?"),
        shell("c10", "git push -u origin report-since"),
        output(
            "c10",
            "Exit code: 128\nWall time: 0.3 seconds\nOutput:\nssh: Could not resolve hostname github.com\nfatal: Could not read from remote repository.\n",
        ),
        ResponseItem::assistant_text(
            "Relative dates work now: `30d`, `2w`, `3m`, `1y`. Let's keep the push for when the network is back.",
        ),
        ResponseItem::user_text(
            "ok. please add a CLI test for `report --since` too,\nwith the snapshot like the other report tests",
        ),
    ];
    // Many small turns, so the session is long.
    for turn in 0..12 {
        let id = format!("r{turn}");
        items.push(shell(
            &id,
            &format!("sed -n 1,40p tests/fixtures/case{turn}.tally"),
        ));
        items.push(output(
            &id,
            "Exit code: 0\nOutput:\n2025-01-03 checking -4210 groceries",
        ));
    }
    items
}

#[test]
fn the_offline_summary_of_a_scripted_session() {
    insta::assert_snapshot!(
        "offline_summary_scripted_session",
        summarize_offline(&scripted_long_session(), 20_000)
    );
}

#[test]
fn a_tight_budget_cuts_the_longest_sections_but_keeps_the_latest_request() {
    let history = scripted_long_session();
    let full = summarize_offline(&history, 20_000);
    let tight = summarize_offline(&history, 400);
    assert!(approx_token_count(&tight) <= 400, "{tight}");
    assert!(tight.len() < full.len());
    assert!(tight.starts_with(OFFLINE_SUMMARY_HEADER));
    assert!(
        tight.contains("ok. please add a CLI test for `report --since` too,\nwith the snapshot like the other report tests"),
        "{tight}"
    );
    assert!(tight.contains("left out to fit the budget"), "{tight}");
    insta::assert_snapshot!("offline_summary_tight_budget", tight);
}

#[test]
fn the_same_history_gives_the_same_bytes() {
    let history = scripted_long_session();
    assert_eq!(
        summarize_offline(&history, 1_000),
        summarize_offline(&history.clone(), 1_000)
    );
}

#[test]
fn a_latest_request_larger_than_the_budget_is_shortened_in_the_middle() {
    let request = format!("START {} END", "word ".repeat(2_000));
    let summary = summarize_offline(&[ResponseItem::user_text(request)], 500);
    assert!(approx_token_count(&summary) <= 500);
    assert!(summary.contains("START"), "{summary}");
    assert!(summary.contains("END"), "{summary}");
    assert!(summary.contains("[…]"));
}

#[test]
fn an_empty_history_says_so_in_every_section() {
    insta::assert_snapshot!(
        "offline_summary_empty_history",
        summarize_offline(&[], 1_000)
    );
}

#[test]
fn a_zero_budget_gives_an_empty_summary() {
    assert_eq!(summarize_offline(&[ResponseItem::user_text("hi")], 0), "");
}

#[test]
fn an_earlier_summary_is_carried_over() {
    let history = vec![
        ResponseItem::user_text(
            "This session is being continued from a previous conversation that ran out of context. We fixed the parser.",
        ),
        ResponseItem::user_text("now the docs"),
    ];
    let summary = summarize_offline(&history, 1_000);
    assert!(
        summary.contains(
            "10. Summary Left by an Earlier Compaction:\nThis session is being continued"
        )
    );
    assert!(summary.contains("The user's request, verbatim:\nnow the docs"));
    assert!(summary.contains("9. Next Step:\nAnswer the latest request (section 1)."));
}

fn arbitrary_item() -> impl Strategy<Value = ResponseItem> {
    let text = "[ -~éü日\n`<>/.*]{0,200}";
    prop_oneof![
        text.prop_map(ResponseItem::user_text),
        text.prop_map(ResponseItem::assistant_text),
        (0..6u8, text).prop_map(|(id, command)| shell(&id.to_string(), &command)),
        (0..6u8, text).prop_map(|(id, out)| output(&id.to_string(), &out)),
        (0..6u8, text).prop_map(|(id, body)| patch(
            &id.to_string(),
            &format!("*** Begin Patch\n*** Update File: {body}")
        )),
        (0..6u8, "[a-zA-Z_]{1,12}", text).prop_map(|(id, name, args)| ResponseItem::function_call(
            id.to_string(),
            name,
            args
        )),
        (0..6u8, "(pending|in_progress|completed)", text).prop_map(|(id, status, step)| plan(
            &id.to_string(),
            &[(step.as_str(), status.as_str())]
        )),
    ]
}

proptest! {
    #[test]
    fn any_history_is_summarised_within_the_budget(
        items in proptest::collection::vec(arbitrary_item(), 0..60),
        max_tokens in 0usize..3_000,
    ) {
        let summary = summarize_offline(&items, max_tokens);
        prop_assert!(approx_token_count(&summary) <= max_tokens as u64);
        prop_assert_eq!(summarize_offline(&items, max_tokens), summary);
    }
}

#[test]
fn the_omission_marker_length_is_its_text_s() {
    for omitted in (0..=1_200).chain([9_999, 10_000, 123_456_789, usize::MAX]) {
        assert_eq!(
            omission_marker_len(omitted),
            omission_marker(omitted).len(),
            "{omitted}"
        );
    }
}

#[test]
fn shortening_keeps_the_first_and_last_characters() {
    assert_eq!(shorten("abcdefghij", 4), "ab […] ij");
    assert_eq!(shorten("abcdefghij", 5), "abc […] ij");
    assert_eq!(shorten("äöüßéèêëïî", 4), "äö […] ïî");
    assert_eq!(shorten("abc", 10), "abc […] abc");
    assert_eq!(shorten("", 4), " […] ");
}
