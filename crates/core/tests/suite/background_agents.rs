//! A subagent in the background (`task` with `run_in_background`): the call returns at once,
//! the parent's next request says the agent is still running, `agent_output` waits for its
//! report, and its end reaches the parent as the `async_agent_status` notification. Against a
//! wiremock Responses server that answers the parent and the subagent from their own scripts.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use agentctx_core::HookCommand;
use agentctx_core::HookMatcher;
use agentctx_core::Session;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::Request;
use wiremock::Respond;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

use super::support::Out;
use super::support::bodies;
use super::support::call;
use super::support::call_outputs;
use super::support::client;
use super::support::dirs;
use super::support::input_texts;
use super::support::options;
use super::support::responses_sse;

/// What only the Explore agent's requests carry (its system prompt).
const EXPLORE_MARKER: &str = "You are a file search specialist";

/// Answers the subagent from its script (after `delay`) and the parent from its own.
struct ByAgent {
    parent: Mutex<VecDeque<String>>,
    subagent: Mutex<VecDeque<String>>,
    delay: Duration,
}

impl Respond for ByAgent {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let is_subagent = String::from_utf8_lossy(&request.body).contains(EXPLORE_MARKER);
        let queue = if is_subagent {
            &self.subagent
        } else {
            &self.parent
        };
        let template = match queue.lock().unwrap().pop_front() {
            Some(body) => ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"),
            None => ResponseTemplate::new(500).set_body_string("no more scripted responses"),
        };
        if is_subagent {
            template.set_delay(self.delay)
        } else {
            template
        }
    }
}

fn is_parent(body: &Value) -> bool {
    !body.to_string().contains(EXPLORE_MARKER)
}

#[tokio::test]
async fn a_background_agent_runs_while_the_parent_works_and_its_end_is_announced() {
    let dirs = dirs();
    std::fs::create_dir_all(dirs.cwd.join("src")).unwrap();
    std::fs::write(dirs.cwd.join("src/parser.rs"), "pub fn parse() {}\n").unwrap();
    let server = MockServer::start().await;
    let parent = vec![
        responses_sse(
            &[call(
                "call_task",
                "task",
                json!({"agent": "Explore", "prompt": "Find where parsing happens", "description": "find the parser", "run_in_background": true}),
            )],
            1_000,
        ),
        responses_sse(&[Out::Text("It runs; I will check later.")], 1_100),
        responses_sse(
            &[call(
                "call_out",
                "agent_output",
                json!({"agent_id": "agent_1"}),
            )],
            1_200,
        ),
        responses_sse(&[Out::Text("The parser is in src/parser.rs.")], 1_300),
    ];
    let subagent = vec![responses_sse(
        &[Out::Text("parse is defined in src/parser.rs line 1.")],
        500,
    )];
    Mock::given(method("POST"))
        .respond_with(ByAgent {
            parent: Mutex::new(parent.into()),
            subagent: Mutex::new(subagent.into()),
            delay: Duration::from_millis(500),
        })
        .mount(&server)
        .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    // TaskCreated and TaskCompleted hooks append their input to a file.
    let log = dirs.home.join("task-hooks.jsonl");
    for event in ["TaskCreated", "TaskCompleted"] {
        options.hooks.events.insert(
            event.to_owned(),
            vec![HookMatcher {
                matcher: None,
                hooks: vec![HookCommand {
                    kind: "command".to_owned(),
                    command: format!("cat >> {}; echo >> {}", log.display(), log.display()),
                    ..HookCommand::default()
                }],
            }],
        );
    }
    let (mut session, _events) = Session::new(options).unwrap();
    let cancel = CancellationToken::new();
    session
        .run_turn("Where is the parser?", &cancel)
        .await
        .unwrap();
    session.run_turn("Is it done?", &cancel).await.unwrap();

    let all = bodies(&server).await;
    let parent: Vec<&Value> = all.iter().filter(|body| is_parent(body)).collect();
    assert_eq!(parent.len(), 4);
    assert_eq!(all.len(), 5, "one subagent request");
    // The task call returned at once, with the agent's id.
    let outputs = call_outputs(parent[1]);
    assert!(
        outputs[0].starts_with("Started Explore in the background as agent_1."),
        "{outputs:?}"
    );
    // While it runs the parent is told so.
    let texts = |body: &Value| input_texts(body).join("\n");
    assert!(
        texts(parent[1])
            .contains("Async agent agent_1 (Explore: find the parser) is still running"),
        "{}",
        texts(parent[1])
    );
    // agent_output waited for the report.
    let outputs = call_outputs(parent[3]);
    let report = outputs.last().unwrap();
    assert!(report.starts_with("<status>completed</status>"), "{report}");
    assert!(
        report.contains("parse is defined in src/parser.rs line 1."),
        "{report}"
    );
    // The end is announced once.
    let announcement = "Async agent \"find the parser\" completed.";
    let announced: Vec<usize> = parent
        .iter()
        .map(|body| texts(body).matches(announcement).count())
        .collect();
    assert!(
        announced == vec![0, 0, 1, 1] || announced == vec![0, 0, 0, 1],
        "{announced:?}"
    );
    // The hooks saw the agent start and end, under its id.
    let mut hooks: Vec<Value> = Vec::new();
    for _ in 0..200 {
        hooks = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        if hooks.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let seen: Vec<(&str, &str, &str)> = hooks
        .iter()
        .map(|input| {
            (
                input["hook_event_name"].as_str().unwrap(),
                input["task_id"].as_str().unwrap(),
                input["task_subject"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("TaskCreated", "agent_1", "find the parser"),
            ("TaskCompleted", "agent_1", "find the parser"),
        ]
    );
}

#[tokio::test]
async fn agent_output_names_an_unknown_agent_and_a_background_task_needs_a_known_agent() {
    let dirs = dirs();
    let server = MockServer::start().await;
    let parent = vec![
        responses_sse(
            &[
                call(
                    "call_bad",
                    "task",
                    json!({"agent": "Nobody", "prompt": "x", "run_in_background": true}),
                ),
                call(
                    "call_out",
                    "agent_output",
                    json!({"agent_id": "agent_9", "block": false}),
                ),
            ],
            1_000,
        ),
        responses_sse(&[Out::Text("Both failed.")], 1_100),
    ];
    Mock::given(method("POST"))
        .respond_with(ByAgent {
            parent: Mutex::new(parent.into()),
            subagent: Mutex::new(VecDeque::new()),
            delay: Duration::ZERO,
        })
        .mount(&server)
        .await;
    let options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("Try", &CancellationToken::new())
        .await
        .unwrap();
    let all = bodies(&server).await;
    let outputs = call_outputs(&all[1]);
    assert_eq!(
        outputs,
        vec![
            "Error: no agent named Nobody".to_owned(),
            "Error: no background agent agent_9".to_owned()
        ]
    );
}
