use agentctx_protocol::XmlTag;
use pretty_assertions::assert_eq;

use super::*;

fn agent(id: &str, description: &str, status: BackgroundTaskStatus) -> BackgroundTaskInfo {
    BackgroundTaskInfo {
        task_id: id.to_string(),
        task_type: BackgroundTaskType::AsyncAgent,
        command: None,
        description: description.to_string(),
        status,
        exit_code: None,
        output_len: 0,
        delta_summary: None,
        progress_message: None,
    }
}

fn ctx_with(tasks: Vec<BackgroundTaskInfo>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.background_tasks = tasks;
    ctx
}

#[tokio::test]
async fn async_agent_status_is_a_system_notification() {
    let generator = AsyncAgentStatusGenerator::default();
    let reminder = generator
        .generate(&ctx_with(vec![agent(
            "agent-123",
            "Search Agent",
            BackgroundTaskStatus::Completed,
        )]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reminder.xml_tag(), XmlTag::SystemNotification);
    assert_eq!(
        reminder.wrap_xml(),
        "<system-notification>Async agent \"Search Agent\" completed. The output can be retrieved using AgentOutputTool with agentId: \"agent-123\"</system-notification>"
    );
    insta::assert_snapshot!("async_agent_status_completed", reminder.wrap_xml());
}

#[tokio::test]
async fn async_agent_status_announces_each_agent_once_when_it_ends() {
    let generator = AsyncAgentStatusGenerator::default();
    let running = agent("agent-1", "Explore", BackgroundTaskStatus::Running);
    assert_eq!(
        generator.generate(&ctx_with(vec![running])).await.unwrap(),
        None
    );
    let mut failed = agent("agent-1", "Explore", BackgroundTaskStatus::Failed);
    failed.delta_summary = Some("model refused the request".to_string());
    let stopped = agent("agent-2", "Plan", BackgroundTaskStatus::Killed);
    let text = generator
        .generate(&ctx_with(vec![failed.clone(), stopped.clone()]))
        .await
        .unwrap()
        .unwrap()
        .wrap_xml();
    insta::assert_snapshot!("async_agent_status_failed_and_stopped", text);
    assert_eq!(
        generator
            .generate(&ctx_with(vec![failed, stopped]))
            .await
            .unwrap(),
        None
    );
}
