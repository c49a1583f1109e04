//! The reminders a host feeds (`Session::host_inputs`): the IDE's selection and open file,
//! delegate mode and its exit, a teammate's message, unread chats and a host memory, each in
//! the next request of a live session (docs/design/reminders.md, "Who feeds each reminder").

use agentctx_core::CollabChat;
use agentctx_core::IdeOpenedFile;
use agentctx_core::IdeSelection;
use agentctx_core::Session;
use agentctx_core::TeammateMessage;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::input_texts;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

/// The reminders a request gained over the one before.
fn new_reminders(bodies: &[Value]) -> Vec<Vec<String>> {
    let mut seen = 0;
    bodies
        .iter()
        .map(|body| {
            let texts = input_texts(body);
            let fresh = texts
                .iter()
                .skip(seen)
                // Teammates' messages carry their own tag.
                .filter(|text| {
                    text.starts_with("<system-reminder>") || text.starts_with("<teammate-message")
                })
                .cloned()
                .collect();
            seen = texts.len();
            fresh
        })
        .collect()
}

fn mentions(reminders: &[String], needle: &str) -> bool {
    reminders.iter().any(|text| text.contains(needle))
}

#[tokio::test]
async fn what_the_host_feeds_reaches_the_next_request_once() {
    let dirs = dirs();
    let server = server(vec![
        responses_sse(&[Out::Text("One.")], 1_000),
        responses_sse(&[Out::Text("Two.")], 1_000),
        responses_sse(&[Out::Text("Three.")], 1_000),
    ])
    .await;
    let options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    let (mut session, _events) = Session::new(options).unwrap();
    let host = session.host_inputs();
    let main_rs = dirs.cwd.join("src/main.rs");
    host.set_ide_selection(Some(IdeSelection {
        filename: main_rs.clone(),
        line_start: 3,
        line_end: 4,
        content: "fn main() {\n    run();".to_owned(),
    }));
    host.enter_delegate_mode("parsers", dirs.cwd.join(".tasks/parsers.json"));
    host.push_teammate_message(TeammateMessage {
        from: "ada".to_owned(),
        text: "the lexer tests pass now".to_owned(),
    });
    host.set_unread_chats(vec![CollabChat {
        handle: "grace".to_owned(),
        unread_count: 2,
    }]);
    host.set_ultramemory(Some("The user prefers small commits.".to_owned()));
    session
        .run_turn("What next?", &CancellationToken::new())
        .await
        .unwrap();

    // Second turn: the selection is gone, a file is focused, delegate mode is left.
    host.set_ide_selection(None);
    host.set_ide_opened_file(Some(IdeOpenedFile {
        filename: dirs.cwd.join("src/lexer.rs"),
    }));
    host.exit_delegate_mode();
    host.set_unread_chats(Vec::new());
    session
        .run_turn("And then?", &CancellationToken::new())
        .await
        .unwrap();
    // Third turn: nothing new from the host.
    session
        .run_turn("Thanks.", &CancellationToken::new())
        .await
        .unwrap();

    let placed = new_reminders(&bodies(&server).await);
    let first = &placed[0];
    assert!(
        mentions(first, "The user selected the lines 3 to 4 from"),
        "{first:#?}"
    );
    assert!(
        mentions(first, "You are in delegate mode for team \"parsers\""),
        "{first:#?}"
    );
    assert!(
        mentions(first, "the lexer tests pass now"),
        "teammate: {first:#?}"
    );
    assert!(mentions(first, "grace"), "unread chats: {first:#?}");
    assert!(
        mentions(first, "The user prefers small commits."),
        "ultramemory: {first:#?}"
    );
    let second = &placed[1];
    assert!(mentions(second, "The user opened the file"), "{second:#?}");
    assert!(mentions(second, "lexer.rs"), "{second:#?}");
    assert!(!mentions(second, "The user selected"), "{second:#?}");
    assert!(
        !mentions(second, "the lexer tests pass now"),
        "told once: {second:#?}"
    );
    assert!(!mentions(second, "grace"), "{second:#?}");
    assert!(
        mentions(second, "You have exited delegate mode."),
        "{second:#?}"
    );
    let third = &placed[2];
    assert!(
        !mentions(third, "The user opened the file"),
        "told once: {third:#?}"
    );
    assert!(!mentions(third, "delegate mode"), "{third:#?}");
    assert_eq!(placed.len(), 3);
}
