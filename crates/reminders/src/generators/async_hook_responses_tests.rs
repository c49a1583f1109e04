use std::sync::Arc;
use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::providers::HookEventType;
use crate::providers::HookResponse;
use crate::providers::HookResponseProvider;

#[derive(Debug, Default)]
struct FakeHooks {
    responses: Mutex<Vec<AsyncHookResponse>>,
}

impl HookResponseProvider for FakeHooks {
    fn take_async_responses(&self) -> Vec<AsyncHookResponse> {
        std::mem::take(&mut *self.responses.lock().unwrap())
    }
}

fn response(system_message: Option<&str>, additional_context: Option<&str>) -> AsyncHookResponse {
    AsyncHookResponse {
        process_id: "4242".to_string(),
        hook_name: "PostToolUse:Edit".to_string(),
        hook_event: HookEventType("PostToolUse".to_string()),
        tool_name: Some("Edit".to_string()),
        response: HookResponse {
            system_message: system_message.map(str::to_string),
            additional_context: additional_context.map(str::to_string),
        },
        stdout: None,
        stderr: None,
        exit_code: Some(0),
    }
}

#[tokio::test]
async fn async_hook_responses_show_messages_and_context_once() {
    let hooks = Arc::new(FakeHooks::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.hooks = hooks.clone();
    let generator = AsyncHookResponsesGenerator;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    *hooks.responses.lock().unwrap() = vec![
        response(
            Some("Formatter rewrote src/parser.rs."),
            Some("rustfmt 1.8 with imports_granularity=Item"),
        ),
        response(None, None),
        response(None, Some("Lint passed.")),
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("async_hook_responses", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
