//! The reminder catalogue in a live session: what each request carries, through a real
//! `Session` against a wiremock server speaking the Responses API (docs/design/reminders.md,
//! "Who feeds each reminder").

use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

const WINDOW: i64 = 400_000;

/// The opening of the todo reminder, as Claude Code words it.
const TODO_REMINDER: &str = "The TodoWrite tool hasn't been used recently.";

/// How many times `needle` occurs in the input of `body`.
fn occurrences(body: &Value, needle: &str) -> usize {
    body["input"].to_string().matches(needle).count()
}

/// The 1-based requests before which a reminder containing `needle` was placed: its count in
/// the request's input grew over the request before (the tail placement keeps earlier copies).
fn requests_carrying(bodies: &[Value], needle: &str) -> Vec<usize> {
    let mut seen = 0;
    let mut carrying = Vec::new();
    for (index, body) in bodies.iter().enumerate() {
        let now = occurrences(body, needle);
        if now > seen {
            carrying.push(index + 1);
        }
        seen = now;
    }
    carrying
}

/// A reply calling `read_file` on `a.txt` (one assistant message).
fn read_call(index: usize) -> String {
    let call_id: &'static str = Box::leak(format!("call_{index}").into_boxed_str());
    responses_sse(
        &[Out::Call {
            call_id,
            name: "read_file",
            arguments: json!({"path": "a.txt"}),
        }],
        1_000,
    )
}

/// A reply writing a two-item todo list.
fn todo_write() -> String {
    responses_sse(
        &[Out::Call {
            call_id: "call_todo",
            name: "todo_write",
            arguments: json!({"todos": [
                {"content": "Read the file", "status": "in_progress", "activeForm": "Reading the file"},
                {"content": "Report", "status": "pending", "activeForm": "Reporting"}
            ]}),
        }],
        1_000,
    )
}

/// Claude Code 2.1's cadence: ten assistant messages after the last todo write, ten between two
/// reminders; and within one user turn an unchanged list is not repeated until
/// `todo_restate_after_requests` requests went by. A new user turn may show it again at once.
#[tokio::test]
async fn the_todo_reminder_follows_claude_codes_cadence_and_is_not_repeated_unchanged_within_a_turn()
 {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    // Turn 1: a todo write, then 25 requests of one tool call each, then the answer.
    let mut replies = vec![todo_write()];
    replies.extend((1..=25).map(read_call));
    replies.push(responses_sse(&[Out::Text("Done.")], 1_000));
    // Turn 2: three tool calls, then the answer.
    replies.extend((26..=28).map(read_call));
    replies.push(responses_sse(&[Out::Text("Still done.")], 1_000));
    let server = server(replies).await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
    options.max_requests_per_turn = 100;
    let (mut session, _events) = Session::new(options).unwrap();

    let first = session
        .run_turn("Read a.txt many times", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(first.requests, 27);
    session
        .run_turn("And a few more times", &CancellationToken::new())
        .await
        .unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 31);
    // Request 1 writes the list (one assistant message); before request 12 ten more followed.
    // Request 22 would be Claude Code's next one: the list is unchanged and the model saw it
    // ten requests ago in this turn, so it is skipped until 30 requests went by
    // (`todo_restate_after_requests`), which this turn does not reach. Request 28 starts a new
    // user turn, sixteen assistant messages after the last reminder: the list is shown again.
    assert_eq!(requests_carrying(&bodies, TODO_REMINDER), vec![12, 28]);
}

/// The reminders placed before each request: the texts the request's input gained over the
/// previous one that are reminders (`<system-reminder>`, `<session-memory>`).
fn new_reminders(bodies: &[Value]) -> Vec<Vec<String>> {
    let mut seen: Vec<String> = Vec::new();
    let mut placed = Vec::new();
    for body in bodies {
        let texts = super::support::input_texts(body);
        let fresh: Vec<String> = texts
            .iter()
            .skip(seen.len())
            .filter(|text| {
                text.starts_with("<system-reminder>") || text.starts_with("<session-memory>")
            })
            .cloned()
            .collect();
        placed.push(fresh);
        seen = texts;
    }
    placed
}

/// A client of the Responses API on `server` for the model `slug`.
fn client_for(
    server: &wiremock::MockServer,
    slug: &str,
) -> std::sync::Arc<dyn agentctx_model::ModelClient> {
    let provider = agentctx_model::ProviderConfig {
        name: "test".to_string(),
        base_url: format!("{}/v1", server.uri()),
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api: WireApi::Responses,
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
        stream_idle_timeout_ms: Some(0),
        ..agentctx_model::ProviderConfig::default()
    };
    let env = |name: &str| (name == "TEST_API_KEY").then(|| "sk-test".to_string());
    let model = agentctx_model::HttpModelClient::new(provider, slug, &env)
        .unwrap()
        .with_model_info(agentctx_model::ModelInfo {
            max_output_tokens: Some(4_000),
            ..agentctx_model::ModelInfo::with_context_window(WINDOW)
        });
    std::sync::Arc::new(model)
}

/// The output style and the USD budget come from `[system_reminder]`; the spend is priced
/// from the bundled LiteLLM table per request; a prompt queued for the turn is shown once.
#[tokio::test]
async fn output_style_budget_and_queued_commands_reach_the_requests() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let server = server(vec![
        read_call(1),
        responses_sse(&[Out::Text("Done.")], 1_000),
    ])
    .await;
    let mut options = options(&dirs, client_for(&server, "gpt-4o-mini"));
    options.reminders.output_style = Some("explanatory".to_string());
    options.reminders.budget_usd = Some(1.0);
    let (mut session, _events) = Session::new(options).unwrap();
    // Typed while the agent works (the CLI's input task holds a clone of the queue).
    let queue = session.command_queue();
    queue.push("Also update the changelog.");

    session
        .run_turn("Read a.txt", &CancellationToken::new())
        .await
        .unwrap();
    assert!(queue.is_empty());
    // 1,000 input and 20 output tokens at gpt-4o-mini's LiteLLM prices.
    assert!(session.spend().usd > 0.0);
    let placed = new_reminders(&bodies(&server).await);
    insta::assert_snapshot!(
        "output_style_budget_and_queued_commands",
        placed
            .iter()
            .enumerate()
            .map(|(index, texts)| format!("request {}:\n{}", index + 1, texts.join("\n")))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Claude Code's `async` hooks: a PostToolUse hook runs in the background, and what it says
/// reaches the model before its next request once it has ended.
#[tokio::test]
async fn an_async_hooks_response_reaches_the_next_request() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("a.txt"), "alpha\n").unwrap();
    let server = server(vec![
        read_call(1),
        responses_sse(&[Out::Text("Done.")], 1_000),
        responses_sse(&[Out::Text("Noted.")], 1_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
    options.hooks.events.insert(
        "PostToolUse".to_string(),
        vec![agentctx_core::HookMatcher {
            matcher: Some("Read".to_string()),
            hooks: vec![agentctx_core::HookCommand {
                kind: "command".to_string(),
                command: r#"echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"The linter found no problem in a.txt."}}'"#.to_string(),
                timeout: None,
                run_async: true,
                ..Default::default()
            }],
        }],
    );
    options.memory.generate_memories = false;
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("Read a.txt", &CancellationToken::new())
        .await
        .unwrap();
    session.wait_for_async_hooks().await;
    session
        .run_turn("Anything else?", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    let placed = new_reminders(&bodies);
    assert_eq!(
        placed[2],
        vec![
            "<system-reminder>\nThe linter found no problem in a.txt.\n</system-reminder>"
                .to_string()
        ]
    );
    // Exactly once.
    assert_eq!(occurrences(&bodies[2], "The linter found no problem"), 1);
}

/// After a compaction the `SessionStart` hooks run with source `compact` (what they print
/// reaches the next request) and codex's accuracy warning is a session event.
#[tokio::test]
async fn a_compaction_runs_session_start_with_source_compact_and_warns_about_accuracy() {
    let dirs = dirs();
    std::fs::write(dirs.cwd.join("parser.rs"), "fn parse() {}\n").unwrap();
    let server = server(vec![
        responses_sse(
            &[Out::Call {
                call_id: "call_read",
                name: "read_file",
                arguments: json!({"path": "parser.rs"}),
            }],
            52_000,
        ),
        responses_sse(
            &[Out::Text("The user asked about parser.rs; it was read.")],
            3_000,
        ),
        responses_sse(&[Out::Text("Fixed.")], 4_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 60_000));
    options.hooks.events.insert(
        "SessionStart".to_string(),
        vec![agentctx_core::HookMatcher {
            matcher: Some("compact".to_string()),
            hooks: vec![agentctx_core::HookCommand {
                kind: "command".to_string(),
                command: r#"read input; echo "source=$(echo "$input" | sed 's/.*"source":"\([a-z]*\)".*/\1/'): re-read CONTRIBUTING.md""#.to_string(),
                timeout: None,
                run_async: false,
                ..Default::default()
            }],
        }],
    );
    options.memory.generate_memories = false;
    let (mut session, mut events) = Session::new(options).unwrap();
    session
        .run_turn("Fix parser.rs", &CancellationToken::new())
        .await
        .unwrap();
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 3);
    // Not at startup (the matcher is `compact`); after the compaction, once.
    assert_eq!(occurrences(&bodies[0], "re-read CONTRIBUTING.md"), 0);
    assert_eq!(
        occurrences(&bodies[2], "source=compact: re-read CONTRIBUTING.md"),
        1
    );
    let warnings: Vec<String> = super::support::drain(&mut events)
        .into_iter()
        .filter_map(|event| match event {
            agentctx_core::SessionEvent::Warning { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(
        warnings,
        vec![agentctx_core::COMPACTION_ACCURACY_WARNING.to_string()]
    );
    insta::assert_snapshot!("compaction_accuracy_warning", warnings[0]);
}

/// The notes an earlier session in the same folder left (`<home>/session-memory/<id>/`) are
/// previewed to the next session; a session elsewhere is not.
#[tokio::test]
async fn past_sessions_notes_in_this_folder_reach_the_first_request() {
    let dirs = dirs();
    let server = server(vec![responses_sse(&[Out::Text("Hello.")], 1_000)]).await;
    let earlier = {
        let (session, _events) =
            Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
        session.session_id().to_string()
    };
    let elsewhere = {
        let mut options = options(&dirs, client(&server, WireApi::Responses, WINDOW));
        options.cwd = dirs.home.clone();
        let (session, _events) = Session::new(options).unwrap();
        session.session_id().to_string()
    };
    for (id, text) in [
        (&earlier, "# Ledger work\\n- parser fixed\\n- tests pass"),
        (&elsewhere, "# Another project"),
    ] {
        let folder = dirs.home.join("session-memory").join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("summary.md"), text.replace("\\n", "\n")).unwrap();
    }

    let (mut session, _events) =
        Session::new(options(&dirs, client(&server, WireApi::Responses, WINDOW))).unwrap();
    session
        .run_turn("Where were we?", &CancellationToken::new())
        .await
        .unwrap();
    let body = &bodies(&server).await[0];
    let placed: Vec<String> = super::support::input_texts(body)
        .into_iter()
        .filter(|text| text.starts_with("<session-memory>"))
        .collect();
    assert_eq!(placed.len(), 1, "{placed:?}");
    assert!(placed[0].contains("- parser fixed"), "{}", placed[0]);
    assert!(!placed[0].contains("Another project"), "{}", placed[0]);
    assert!(placed[0].contains(&earlier), "{}", placed[0]);
}
