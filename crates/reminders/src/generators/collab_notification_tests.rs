use std::sync::Arc;
use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::providers::TeammateMailbox;

#[derive(Debug, Default)]
struct FakeMailbox {
    chats: Mutex<Vec<CollabChat>>,
}

impl TeammateMailbox for FakeMailbox {
    fn unread_chats(&self) -> Vec<CollabChat> {
        self.chats.lock().unwrap().clone()
    }
}

fn chat(handle: &str, unread_count: i32) -> CollabChat {
    CollabChat {
        handle: handle.to_string(),
        unread_count,
    }
}

#[tokio::test]
async fn collab_notification_reports_unread_counts_when_they_change() {
    let mailbox = Arc::new(FakeMailbox::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.mailbox = mailbox.clone();
    let generator = CollabNotificationGenerator::default();
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    *mailbox.chats.lock().unwrap() = vec![chat("reviewer", 2), chat("self", 1), chat("idle", 0)];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("collab_notification", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    *mailbox.chats.lock().unwrap() = vec![chat("reviewer", 1)];
    assert_eq!(
        generator.generate(&ctx).await.unwrap().unwrap().content,
        "You have 1 unread collab message from: @reviewer (1 new). Use the CollabRead tool to read these messages."
    );
}
