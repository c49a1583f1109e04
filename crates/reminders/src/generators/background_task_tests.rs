use pretty_assertions::assert_eq;

use super::*;
use crate::types::ReminderTier;

fn shell(id: &str, status: BackgroundTaskStatus, output_len: u64) -> BackgroundTaskInfo {
    BackgroundTaskInfo {
        task_id: id.to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo test --workspace".to_string()),
        description: "Run the test suite".to_string(),
        status,
        exit_code: status.is_terminal().then_some(0),
        output_len,
        delta_summary: None,
        progress_message: None,
    }
}

fn ctx_with(tasks: Vec<BackgroundTaskInfo>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.background_tasks = tasks;
    ctx
}

async fn run(
    generator: &BackgroundTaskGenerator,
    tasks: Vec<BackgroundTaskInfo>,
) -> Option<String> {
    generator
        .generate(&ctx_with(tasks))
        .await
        .unwrap()
        .map(|reminder| reminder.wrap_xml())
}

#[tokio::test]
async fn background_task_only_for_main_agent() {
    assert_eq!(
        AttachmentType::BackgroundTask.tier(),
        ReminderTier::MainAgentOnly
    );
    let generator = BackgroundTaskGenerator::default();
    assert_eq!(generator.tier(), ReminderTier::MainAgentOnly);
    let mut ctx = ctx_with(vec![shell("bash_1", BackgroundTaskStatus::Completed, 10)]);
    ctx.is_main_agent = false;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.is_main_agent = true;
    assert!(generator.generate(&ctx).await.unwrap().is_some());
}

#[tokio::test]
async fn background_task_reports_changes_once_and_its_end_once_then_never_again() {
    let generator = BackgroundTaskGenerator::default();
    // Started, no output yet: the model knows it is running.
    assert_eq!(
        run(
            &generator,
            vec![shell("bash_1", BackgroundTaskStatus::Running, 0)]
        )
        .await,
        None
    );
    // New output.
    let text = run(
        &generator,
        vec![shell("bash_1", BackgroundTaskStatus::Running, 120)],
    )
    .await
    .unwrap();
    insta::assert_snapshot!("background_task_running_new_output", text);
    // Nothing changed: silence, however many turns pass.
    for _ in 0..3 {
        assert_eq!(
            run(
                &generator,
                vec![shell("bash_1", BackgroundTaskStatus::Running, 120)]
            )
            .await,
            None
        );
    }
    // It ends.
    let text = run(
        &generator,
        vec![shell("bash_1", BackgroundTaskStatus::Completed, 120)],
    )
    .await
    .unwrap();
    insta::assert_snapshot!("background_task_completed", text);
    // Never again, even if the host keeps listing it or its output marker moves.
    assert_eq!(
        run(
            &generator,
            vec![shell("bash_1", BackgroundTaskStatus::Completed, 120)]
        )
        .await,
        None
    );
    assert_eq!(
        run(
            &generator,
            vec![shell("bash_1", BackgroundTaskStatus::Completed, 500)]
        )
        .await,
        None
    );
}

#[tokio::test]
async fn background_task_reports_several_tasks_kinds_and_kills() {
    let generator = BackgroundTaskGenerator::default();
    let mut failed = shell("bash_2", BackgroundTaskStatus::Failed, 0);
    failed.exit_code = Some(101);
    failed.command = Some("cargo build".to_string());
    let mut killed = shell("bash_3", BackgroundTaskStatus::Killed, 0);
    killed.description = "Serve the docs".to_string();
    let remote = BackgroundTaskInfo {
        task_id: "remote_7".to_string(),
        task_type: BackgroundTaskType::RemoteSession,
        command: None,
        description: "Benchmark on the build box".to_string(),
        status: BackgroundTaskStatus::Running,
        exit_code: None,
        output_len: 42,
        delta_summary: Some("finished 3 of 5 benchmarks".to_string()),
        progress_message: None,
    };
    let agent = BackgroundTaskInfo {
        task_id: "agent_1".to_string(),
        task_type: BackgroundTaskType::AsyncAgent,
        command: None,
        description: "Search".to_string(),
        status: BackgroundTaskStatus::Completed,
        exit_code: None,
        output_len: 9,
        delta_summary: None,
        progress_message: None,
    };
    let text = run(&generator, vec![failed, killed, remote, agent])
        .await
        .unwrap();
    assert!(
        !text.contains("agent_1"),
        "async agents have their own notification"
    );
    insta::assert_snapshot!("background_task_failed_killed_remote", text);
}

#[tokio::test]
async fn background_task_reset_forgets_running_tasks_but_never_repeats_an_end() {
    let generator = BackgroundTaskGenerator::default();
    let tasks = vec![
        shell("bash_1", BackgroundTaskStatus::Running, 80),
        shell("bash_2", BackgroundTaskStatus::Completed, 10),
    ];
    assert!(run(&generator, tasks.clone()).await.is_some());
    assert_eq!(run(&generator, tasks.clone()).await, None);
    generator.reset();
    let text = run(&generator, tasks).await.unwrap();
    assert!(text.contains("bash_1"), "{text}");
    assert!(!text.contains("bash_2"), "{text}");
}
