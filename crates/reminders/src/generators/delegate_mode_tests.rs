use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn delegate_ctx() -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.delegate.active = true;
    ctx.delegate.team_name = Some("parser-team".to_string());
    ctx.delegate.task_list_path = Some(PathBuf::from(
        "/home/user/.agentctx/teams/parser-team/tasks/",
    ));
    ctx
}

#[tokio::test]
async fn delegate_mode_reminder_names_team_and_task_list() {
    let reminder = DelegateModeGenerator::default()
        .generate(&delegate_ctx())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reminder.attachment_type, AttachmentType::DelegateMode);
    insta::assert_snapshot!("delegate_mode", reminder.wrap_xml());
}

#[tokio::test]
async fn delegate_mode_fires_on_entering_not_on_every_turn() {
    let generator = DelegateModeGenerator::default();
    let ctx = delegate_ctx();
    assert!(generator.generate(&ctx).await.unwrap().is_some());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    let mut left = delegate_ctx();
    left.delegate.active = false;
    assert_eq!(generator.generate(&left).await.unwrap(), None);
    assert!(generator.generate(&ctx).await.unwrap().is_some());
}

#[tokio::test]
async fn delegate_mode_needs_an_active_mode_and_a_team() {
    let mut ctx = delegate_ctx();
    ctx.delegate.team_name = None;
    assert_eq!(
        DelegateModeGenerator::default()
            .generate(&ctx)
            .await
            .unwrap(),
        None
    );
    let mut ctx = delegate_ctx();
    ctx.delegate.active = false;
    assert_eq!(
        DelegateModeGenerator::default()
            .generate(&ctx)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn delegate_mode_exit_fires_only_after_leaving() {
    let mut ctx = delegate_ctx();
    assert_eq!(
        DelegateModeExitGenerator::default()
            .generate(&ctx)
            .await
            .unwrap(),
        None
    );
    ctx.delegate.active = false;
    ctx.delegate.just_exited = true;
    let reminder = DelegateModeExitGenerator::default()
        .generate(&ctx)
        .await
        .unwrap()
        .unwrap();
    insta::assert_snapshot!("delegate_mode_exit", reminder.wrap_xml());
}
