use pretty_assertions::assert_eq;

use super::*;
use crate::generator_context::BackgroundTaskInfo;
use crate::generator_context::BackgroundTaskType;
use crate::throttle::PROGRESS_TURN_THRESHOLD;

fn task(id: &str, status: BackgroundTaskStatus, progress: Option<&str>) -> BackgroundTaskInfo {
    BackgroundTaskInfo {
        task_id: id.to_string(),
        task_type: BackgroundTaskType::AsyncAgent,
        command: None,
        description: "Index the repository".to_string(),
        status,
        exit_code: None,
        output_len: 0,
        delta_summary: None,
        progress_message: progress.map(str::to_string),
    }
}

fn ctx_with(tasks: Vec<BackgroundTaskInfo>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.background_tasks = tasks;
    ctx
}

#[tokio::test]
async fn task_progress_reports_new_messages_once() {
    let generator = TaskProgressGenerator::default();
    let tasks = vec![
        task(
            "agent-1",
            BackgroundTaskStatus::Running,
            Some("Indexed 120 of 400 files"),
        ),
        task(
            "bash-2",
            BackgroundTaskStatus::Running,
            Some("Compiling agentctx-reminders"),
        ),
        task("bash-3", BackgroundTaskStatus::Completed, Some("done")),
        task("bash-4", BackgroundTaskStatus::Running, None),
    ];
    let text = generator
        .generate(&ctx_with(tasks.clone()))
        .await
        .unwrap()
        .unwrap()
        .wrap_xml();
    insta::assert_snapshot!("task_progress", text);
    assert_eq!(generator.generate(&ctx_with(tasks)).await.unwrap(), None);
    let moved = vec![task(
        "agent-1",
        BackgroundTaskStatus::Running,
        Some("Indexed 400 of 400 files"),
    )];
    let reminder = generator.generate(&ctx_with(moved)).await.unwrap().unwrap();
    assert_eq!(reminder.content, "Indexed 400 of 400 files");
}

#[test]
fn task_progress_is_throttled_by_three_turns() {
    let config = TaskProgressGenerator::default().throttle_config();
    assert_eq!(config.min_turns_between, PROGRESS_TURN_THRESHOLD);
    assert_eq!(PROGRESS_TURN_THRESHOLD, 3);
}

#[tokio::test]
async fn task_progress_reset_reports_the_latest_message_again() {
    let generator = TaskProgressGenerator::default();
    let tasks = vec![task(
        "agent-1",
        BackgroundTaskStatus::Running,
        Some("Step 2 of 5"),
    )];
    assert!(
        generator
            .generate(&ctx_with(tasks.clone()))
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        generator.generate(&ctx_with(tasks.clone())).await.unwrap(),
        None
    );
    generator.reset();
    assert!(
        generator
            .generate(&ctx_with(tasks))
            .await
            .unwrap()
            .is_some()
    );
}
