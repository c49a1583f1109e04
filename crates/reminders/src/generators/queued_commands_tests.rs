use std::sync::Arc;
use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::providers::QueuedCommandsProvider;

#[derive(Debug, Default)]
struct FakeQueue {
    commands: Mutex<Vec<QueuedCommand>>,
}

impl QueuedCommandsProvider for FakeQueue {
    fn take_queued_commands(&self) -> Vec<QueuedCommand> {
        std::mem::take(&mut *self.commands.lock().unwrap())
    }
}

fn command(prompt: &str) -> QueuedCommand {
    QueuedCommand {
        prompt: prompt.to_string(),
        source_uuid: "u-1".to_string(),
        image_paste_ids: Vec::new(),
    }
}

#[tokio::test]
async fn queued_commands_are_delivered_once() {
    let queue = Arc::new(FakeQueue::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.queued_commands = queue.clone();
    let generator = QueuedCommandsGenerator;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    *queue.commands.lock().unwrap() = vec![
        command("Also update the README."),
        command("  "),
        command("And bump the version."),
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("queued_commands", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
