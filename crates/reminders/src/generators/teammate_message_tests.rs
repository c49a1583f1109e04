use std::sync::Arc;
use std::sync::Mutex;

use agentctx_protocol::XmlTag;
use pretty_assertions::assert_eq;

use super::*;
use crate::providers::TeammateMailbox;

#[derive(Debug, Default)]
struct FakeMailbox {
    messages: Mutex<Vec<TeammateMessage>>,
}

impl TeammateMailbox for FakeMailbox {
    fn take_messages(&self) -> Vec<TeammateMessage> {
        std::mem::take(&mut *self.messages.lock().unwrap())
    }
}

#[tokio::test]
async fn teammate_messages_are_delivered_once_in_their_own_tags() {
    let mailbox = Arc::new(FakeMailbox::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.mailbox = mailbox.clone();
    let generator = TeammateMessageGenerator;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    *mailbox.messages.lock().unwrap() = vec![
        TeammateMessage {
            from: "team-lead".to_string(),
            text: "Please take task #3 (the lexer).".to_string(),
        },
        TeammateMessage {
            from: "tester".to_string(),
            text: "All parser tests pass on main.".to_string(),
        },
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.xml_tag(), XmlTag::None);
    let text = reminder.wrap_xml();
    assert!(text.starts_with("<teammate-message teammate_id=\"team-lead\">"));
    insta::assert_snapshot!("teammate_message", text);
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
