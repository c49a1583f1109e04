//! Resuming a Codex rollout whose history was rewritten after the fact: a `thread_rolled_back`
//! event, and a compaction that recorded no replacement history (codex before 0.5x). The resumed
//! session must hold the history the session had, as codex's own reconstruction rebuilds it.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_compact::render_history;
use agentctx_core::Session;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::support::dirs;
use super::support::options;

/// Writes `text` where codex keeps its rollouts, under `home`.
fn write_rollout(home: &Path, name: &str, text: &str) -> PathBuf {
    let dir = home.join("sessions/2025/11/24");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The message texts of `items`.
fn texts(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(ResponseItem::message_text)
        .collect()
}

/// A codex 0.63 session of two turns; the user then undid the second one (`/undo`-style
/// rollback from the app server), which codex records as `thread_rolled_back`.
const ROLLED_BACK: &str = r##"{"timestamp":"2025-11-24T09:31:07.412Z","type":"session_meta","payload":{"id":"019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8","timestamp":"2025-11-24T09:31:07.401Z","cwd":"/home/mira/src/tally","originator":"codex_cli_rs","cli_version":"0.63.0","instructions":null,"source":"cli","model_provider":"openai","base_instructions":{"text":"You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer."},"git":{"commit_hash":"4c1e9a7f0b2d8e6c3a5f1b9d7e0c2a4f6b8d0e1c","branch":"main","repository_url":"git@github.com:mira/tally.git"}}}
{"timestamp":"2025-11-24T09:31:07.415Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>"}]}}
{"timestamp":"2025-11-24T09:31:07.415Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /home/mira/src/tally\n\n<INSTRUCTIONS>\nRun `cargo test` before you say you are done.\n</INSTRUCTIONS>"}]}}
{"timestamp":"2025-11-24T09:31:07.415Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/mira/src/tally</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"}]}}
{"timestamp":"2025-11-24T09:31:12.003Z","type":"event_msg","payload":{"type":"task_started","turn_id":"0","model_context_window":258400}}
{"timestamp":"2025-11-24T09:31:12.004Z","type":"turn_context","payload":{"turn_id":"0","cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5.1-codex","effort":"medium","summary":"auto","truncation_policy":{"mode":"tokens","limit":10000}}}
{"timestamp":"2025-11-24T09:31:12.004Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"the monthly report double counts transfers between my own accounts, why?"}]}}
{"timestamp":"2025-11-24T09:31:12.005Z","type":"event_msg","payload":{"type":"user_message","message":"the monthly report double counts transfers between my own accounts, why?","images":[],"local_images":[],"text_elements":[]}}
{"timestamp":"2025-11-24T09:31:15.220Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"rg -n \\\"fn monthly_totals\\\" src\",\"workdir\":\"/home/mira/src/tally\"}","call_id":"call_Yb3kP0xQ7mN2vR8tL4sW1eZa"}}
{"timestamp":"2025-11-24T09:31:15.402Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Yb3kP0xQ7mN2vR8tL4sW1eZa","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc/report.rs:58:pub fn monthly_totals(entries: &[Entry]) -> BTreeMap<Month, Cents> {\n"}}
{"timestamp":"2025-11-24T09:31:15.403Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9120,"cached_input_tokens":3072,"output_tokens":96,"reasoning_output_tokens":64,"total_tokens":9216},"last_token_usage":{"input_tokens":9120,"cached_input_tokens":3072,"output_tokens":96,"reasoning_output_tokens":64,"total_tokens":9216},"model_context_window":258400},"rate_limits":{"primary":{"used_percent":4.0,"window_minutes":300,"resets_at":1763990000},"secondary":null,"credits":null}}}
{"timestamp":"2025-11-24T09:31:19.871Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`monthly_totals` sums `amount.abs()` for every entry, so a transfer counts once out and once in."}]}}
{"timestamp":"2025-11-24T09:31:19.872Z","type":"event_msg","payload":{"type":"agent_message","message":"`monthly_totals` sums `amount.abs()` for every entry, so a transfer counts once out and once in."}}
{"timestamp":"2025-11-24T09:31:19.873Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":18452,"cached_input_tokens":12160,"output_tokens":150,"reasoning_output_tokens":64,"total_tokens":18602},"last_token_usage":{"input_tokens":9332,"cached_input_tokens":9088,"output_tokens":54,"reasoning_output_tokens":0,"total_tokens":9386},"model_context_window":258400},"rate_limits":{"primary":{"used_percent":4.0,"window_minutes":300,"resets_at":1763990000},"secondary":null,"credits":null}}}
{"timestamp":"2025-11-24T09:31:19.874Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"0","last_agent_message":"`monthly_totals` sums `amount.abs()` for every entry, so a transfer counts once out and once in."}}
{"timestamp":"2025-11-24T09:32:40.118Z","type":"event_msg","payload":{"type":"task_started","turn_id":"1","model_context_window":258400}}
{"timestamp":"2025-11-24T09:32:40.119Z","type":"turn_context","payload":{"turn_id":"1","cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5.1-codex","effort":"medium","summary":"auto","truncation_policy":{"mode":"tokens","limit":10000}}}
{"timestamp":"2025-11-24T09:32:40.119Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"also rewrite the changelog from scratch"}]}}
{"timestamp":"2025-11-24T09:32:40.120Z","type":"event_msg","payload":{"type":"user_message","message":"also rewrite the changelog from scratch","images":[],"local_images":[],"text_elements":[]}}
{"timestamp":"2025-11-24T09:32:44.610Z","type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n*** Delete File: CHANGELOG.md\\n*** End Patch\\n\"}","call_id":"call_Kd8sQ2wE5rT9yU1iO3pA6sDf"}}
{"timestamp":"2025-11-24T09:32:44.902Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Kd8sQ2wE5rT9yU1iO3pA6sDf","output":"{\"output\":\"Success. Updated the following files:\\nD CHANGELOG.md\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}
{"timestamp":"2025-11-24T09:32:44.903Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":28120,"cached_input_tokens":21248,"output_tokens":230,"reasoning_output_tokens":64,"total_tokens":28350},"last_token_usage":{"input_tokens":9668,"cached_input_tokens":9088,"output_tokens":80,"reasoning_output_tokens":0,"total_tokens":9748},"model_context_window":258400},"rate_limits":null}}
{"timestamp":"2025-11-24T09:32:48.330Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Deleted CHANGELOG.md; I will write the new one next."}]}}
{"timestamp":"2025-11-24T09:32:48.331Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"1","last_agent_message":"Deleted CHANGELOG.md; I will write the new one next."}}
{"timestamp":"2025-11-24T09:33:02.775Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}
"##;

#[tokio::test]
async fn a_rolled_back_turn_is_not_in_the_resumed_history() {
    let dirs = dirs();
    let path = write_rollout(
        &dirs.home,
        "rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl",
        ROLLED_BACK,
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Here is the fix."));
    let (mut session, _events) =
        Session::resume(options(&dirs, Arc::new(model.clone())), &path).unwrap();

    assert_eq!(
        render_history(session.history()),
        "00:message/developer:<permissions instructions>\\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\\n</permissions instructions>\n\
         01:message/user:# AGENTS.md instructions for /home/mira/src/tally\\n\\n<INSTRUCTIONS>\\nRun `cargo test` before you say you are done.\\n</INSTRUCTIONS>\n\
         02:message/user:<environment_context>\\n  <cwd>/home/mira/src/tally</cwd>\\n  <approval_policy>on-request</approval_policy>\\n  <sandbox_mode>workspace-write</sandbox_mode>\\n  <network_access>restricted</network_access>\\n  <shell>bash</shell>\\n</environment_context>\n\
         03:message/user:the monthly report double counts transfers between my own accounts, why?\n\
         04:function_call/-:shell_command {\"command\":\"rg -n \\\"fn monthly_totals\\\" src\",\"workdir\":\"/home/mira/src/tally\"}\n\
         05:function_call_output/-:Exit code: 0\\nWall time: 0.1 seconds\\nOutput:\\nsrc/report.rs:58:pub fn monthly_totals(entries: &[Entry]) -> BTreeMap<Month, Cents> {\\n\n\
         06:message/assistant:`monthly_totals` sums `amount.abs()` for every entry, so a transfer counts once out and once in."
    );
    {
        // The counts are of what happened: both turns ran, three requests reported usage.
        let state = session.state();
        assert_eq!(state.turn, 2);
        assert_eq!(state.requests, 3);
    }

    // The next request does not show the model the turn the user undid.
    session
        .run_turn("skip own-account transfers", &CancellationToken::new())
        .await
        .unwrap();
    let prompt = texts(
        &model
            .last_prompt()
            .unwrap()
            .items()
            .cloned()
            .collect::<Vec<_>>(),
    );
    assert!(
        !prompt.iter().any(|text| text.contains("changelog")),
        "{prompt:#?}"
    );
    assert!(
        prompt
            .iter()
            .any(|text| text == "skip own-account transfers"),
        "{prompt:#?}"
    );
}

/// A codex 0.46 session: its compaction recorded only the summary (`replacement_history` came
/// later), so codex rebuilds the history from the user messages and the summary.
const LEGACY_COMPACTED: &str = r##"{"timestamp":"2025-10-14T16:02:51.230Z","type":"session_meta","payload":{"id":"0199e3a1-5c7d-7f20-b4e6-1a2b3c4d5e6f","timestamp":"2025-10-14T16:02:51.221Z","cwd":"/home/mira/src/tally","originator":"codex_cli_rs","cli_version":"0.46.0","instructions":"Run `cargo test` before you say you are done.","source":"cli","model_provider":"openai","git":{"commit_hash":"9e2d4f6a8b0c1e3f5a7b9d1f3e5a7c9e1b3d5f7a","branch":"main","repository_url":"git@github.com:mira/tally.git"}}}
{"timestamp":"2025-10-14T16:02:51.233Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\n\nRun `cargo test` before you say you are done.\n\n</user_instructions>"}]}}
{"timestamp":"2025-10-14T16:02:51.233Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/mira/src/tally</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"}]}}
{"timestamp":"2025-10-14T16:03:02.118Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"rename Entry::amt to Entry::amount everywhere"}]}}
{"timestamp":"2025-10-14T16:03:02.119Z","type":"event_msg","payload":{"type":"user_message","message":"rename Entry::amt to Entry::amount everywhere","kind":"plain"}}
{"timestamp":"2025-10-14T16:03:02.121Z","type":"turn_context","payload":{"cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}
{"timestamp":"2025-10-14T16:03:06.540Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Finding every use of `amt`**"}],"content":null,"encrypted_content":"gAAAAABo7nZqX1Yh3cR9sT0uV2wX4yZ6aB8cD0eF2gH4iJ6kL8mN0oP2qR4sT6uV8wX0yZ2aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2u="}}
{"timestamp":"2025-10-14T16:03:06.912Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rg -l '\\\\.amt\\\\b' src\"],\"workdir\":\"/home/mira/src/tally\"}","call_id":"call_Qw2Er4Ty6Ui8Op0As2Df4Gh"}}
{"timestamp":"2025-10-14T16:03:07.101Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_Qw2Er4Ty6Ui8Op0As2Df4Gh","output":"{\"output\":\"src/entry.rs\\nsrc/report.rs\\nsrc/import/ofx.rs\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}}
{"timestamp":"2025-10-14T16:03:19.644Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed `amt` to `amount` in 3 files."}]}}
{"timestamp":"2025-10-14T16:03:19.650Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":24310,"cached_input_tokens":17024,"output_tokens":612,"reasoning_output_tokens":384,"total_tokens":24922},"last_token_usage":{"input_tokens":8410,"cached_input_tokens":8064,"output_tokens":201,"reasoning_output_tokens":128,"total_tokens":8611},"model_context_window":272000},"rate_limits":{"primary":{"used_percent":12.0,"window_minutes":299,"resets_in_seconds":9120},"secondary":{"used_percent":3.0,"window_minutes":10079,"resets_in_seconds":501233}}}}
{"timestamp":"2025-10-14T16:05:40.002Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}
{"timestamp":"2025-10-14T16:05:40.003Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests","kind":"plain"}}
{"timestamp":"2025-10-14T16:05:40.005Z","type":"turn_context","payload":{"cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}
{"timestamp":"2025-10-14T16:05:52.871Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All 42 tests pass."}]}}
{"timestamp":"2025-10-14T16:05:52.880Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":33012,"cached_input_tokens":25088,"output_tokens":690,"reasoning_output_tokens":384,"total_tokens":33702},"last_token_usage":{"input_tokens":8702,"cached_input_tokens":8064,"output_tokens":78,"reasoning_output_tokens":0,"total_tokens":8780},"model_context_window":272000},"rate_limits":null}}
{"timestamp":"2025-10-14T16:06:10.417Z","type":"turn_context","payload":{"cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}
{"timestamp":"2025-10-14T16:06:31.902Z","type":"compacted","payload":{"message":"Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:\nThe user renamed Entry::amt to Entry::amount in src/entry.rs, src/report.rs and src/import/ofx.rs; all 42 tests pass."}}
{"timestamp":"2025-10-14T16:06:31.903Z","type":"event_msg","payload":{"type":"context_compacted"}}
{"timestamp":"2025-10-14T16:07:05.330Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"now update the docs"}]}}
{"timestamp":"2025-10-14T16:07:05.331Z","type":"event_msg","payload":{"type":"user_message","message":"now update the docs","kind":"plain"}}
{"timestamp":"2025-10-14T16:07:05.333Z","type":"turn_context","payload":{"cwd":"/home/mira/src/tally","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}
{"timestamp":"2025-10-14T16:07:14.760Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Updated docs/guide.md."}]}}
{"timestamp":"2025-10-14T16:07:14.770Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":37540,"cached_input_tokens":27136,"output_tokens":742,"reasoning_output_tokens":384,"total_tokens":38282},"last_token_usage":{"input_tokens":4528,"cached_input_tokens":2048,"output_tokens":52,"reasoning_output_tokens":0,"total_tokens":4580},"model_context_window":272000},"rate_limits":null}}
"##;

const LEGACY_SUMMARY: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:\nThe user renamed Entry::amt to Entry::amount in src/entry.rs, src/report.rs and src/import/ofx.rs; all 42 tests pass.";

#[tokio::test]
async fn a_compaction_without_replacement_history_is_rebuilt_on_resume() {
    let dirs = dirs();
    let path = write_rollout(
        &dirs.home,
        "rollout-2025-10-14T16-02-51-0199e3a1-5c7d-7f20-b4e6-1a2b3c4d5e6f.jsonl",
        LEGACY_COMPACTED,
    );
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Done."));
    let (mut session, _events) =
        Session::resume(options(&dirs, Arc::new(model.clone())), &path).unwrap();

    // codex's rebuild: the messages the user typed, the summary, then what came after.
    assert_eq!(
        texts(session.history()),
        [
            "rename Entry::amt to Entry::amount everywhere",
            "run the tests",
            LEGACY_SUMMARY,
            "now update the docs",
            "Updated docs/guide.md.",
        ]
    );
    {
        let state = session.state();
        assert_eq!(state.turn, 4);
        assert_eq!(state.requests, 3);
    }

    // The rebuilt history has no environment context any more: the next turn sends it again.
    session
        .run_turn("and the README", &CancellationToken::new())
        .await
        .unwrap();
    let prompt = texts(
        &model
            .last_prompt()
            .unwrap()
            .items()
            .cloned()
            .collect::<Vec<_>>(),
    );
    let summary_at = prompt
        .iter()
        .position(|text| text == LEGACY_SUMMARY)
        .unwrap();
    assert!(
        prompt[summary_at..]
            .iter()
            .any(|text| text.contains("<environment_context>")),
        "{prompt:#?}"
    );
}

/// The message texts of the last prompt `model` was sent.
fn last_prompt_texts(model: &ScriptedModelClient) -> Vec<String> {
    texts(
        &model
            .last_prompt()
            .unwrap()
            .items()
            .cloned()
            .collect::<Vec<_>>(),
    )
}

#[tokio::test]
async fn a_file_read_before_the_resume_that_changed_since_is_reported_after_it() {
    let dirs = dirs();
    std::fs::create_dir_all(dirs.cwd.join("src")).unwrap();
    let lib = dirs.cwd.join("src/lib.rs");
    std::fs::write(&lib, "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n").unwrap();
    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::new().with_function_call(
        "call_read",
        "read_file",
        r#"{"path":"src/lib.rs"}"#,
    ));
    model.push(ScriptedResponse::text("`add` adds two i32s."));
    let (mut first, _events) = Session::new(options(&dirs, Arc::new(model.clone()))).unwrap();
    first
        .run_turn("what does lib.rs do?", &CancellationToken::new())
        .await
        .unwrap();
    let path = first.rollout_path().to_path_buf();
    drop(first);

    // The user edits the file between the two sessions.
    std::fs::write(&lib, "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n").unwrap();

    let model = ScriptedModelClient::new("test-model");
    model.push(ScriptedResponse::text("Now it adds i64s."));
    let (mut resumed, _events) =
        Session::resume(options(&dirs, Arc::new(model.clone())), &path).unwrap();
    resumed
        .run_turn("and now?", &CancellationToken::new())
        .await
        .unwrap();
    let prompt = last_prompt_texts(&model);
    let reminder = prompt
        .iter()
        .find(|text| text.contains("was modified, either by the user or by a linter"))
        .unwrap_or_else(|| panic!("no changed-file reminder: {prompt:#?}"));
    assert!(
        reminder.contains(&lib.display().to_string())
            && reminder.contains("-pub fn add(a: i32, b: i32) -> i32 {")
            && reminder.contains("+pub fn add(a: i64, b: i64) -> i64 {"),
        "{reminder}"
    );
}
