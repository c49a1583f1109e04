//! A subagent's own file observer: a file it read that changes on disk before its next request
//! comes back to it as a `changed_files` reminder. Against a wiremock Responses server speaking
//! SSE; the server changes the file while it answers the subagent's second request, that is after
//! the subagent read it and before its third request is prepared.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;

use agentctx_core::Session;
use agentctx_model::WireApi;
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
use super::support::client;
use super::support::dirs;
use super::support::input_texts;
use super::support::options;
use super::support::responses_sse;

/// Serves the queued replies in order and writes `file` while serving the `change_at`-th request.
struct ChangingFile {
    replies: Mutex<VecDeque<String>>,
    served: Mutex<usize>,
    change_at: usize,
    file: PathBuf,
}

impl Respond for ChangingFile {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let mut served = self.served.lock().unwrap();
        *served += 1;
        if *served == self.change_at {
            std::fs::write(&self.file, "alpha v2: the config moved to settings.toml\n").unwrap();
        }
        match self.replies.lock().unwrap().pop_front() {
            Some(body) => ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_raw(body, "text/event-stream"),
            None => ResponseTemplate::new(500).set_body_string("no more scripted responses"),
        }
    }
}

#[tokio::test]
async fn a_file_the_subagent_read_that_changes_comes_back_to_it_as_changed_files() {
    let dirs = dirs();
    let file = dirs.cwd.join("a.txt");
    std::fs::write(&file, "alpha v1\n").unwrap();
    std::fs::write(dirs.cwd.join("b.txt"), "beta\n").unwrap();
    let call =
        |call_id: &'static str, name: &'static str, arguments: serde_json::Value| Out::Call {
            call_id,
            name,
            arguments,
        };
    let replies = vec![
        // 1: the parent starts the subagent.
        responses_sse(
            &[call(
                "call_task",
                "task",
                json!({"agent": "Explore", "prompt": "Where is the config described?"}),
            )],
            1_000,
        ),
        // 2-4: the subagent reads a.txt, then b.txt (a.txt changes meanwhile), then answers.
        responses_sse(
            &[call("call_a", "read_file", json!({"path": "a.txt"}))],
            500,
        ),
        responses_sse(
            &[call("call_b", "read_file", json!({"path": "b.txt"}))],
            600,
        ),
        responses_sse(&[Out::Text("settings.toml, per a.txt.")], 700),
        // 5: the parent answers.
        responses_sse(&[Out::Text("It is in settings.toml.")], 1_100),
    ];
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ChangingFile {
            replies: Mutex::new(replies.into()),
            served: Mutex::new(0),
            change_at: 3,
            file: file.clone(),
        })
        .mount(&server)
        .await;
    let options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    let (mut session, _events) = Session::new(options).unwrap();
    session
        .run_turn("Find the config", &CancellationToken::new())
        .await
        .unwrap();

    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), 5);
    let changed = |body: &serde_json::Value| {
        input_texts(body)
            .into_iter()
            .filter(|text| text.starts_with("<system-reminder>") && text.contains("alpha v2"))
            .count()
    };
    // The subagent's third request carries the change of the file it read; none before it, and
    // the parent (which never read the file) is not told.
    assert_eq!(changed(&bodies[2]), 0, "{:#}", bodies[2]);
    assert_eq!(changed(&bodies[3]), 1, "{:#}", bodies[3]);
    assert_eq!(changed(&bodies[4]), 0, "{:#}", bodies[4]);
}
