use std::path::PathBuf;

use agentctx_protocol::PermissionMode;
use pretty_assertions::assert_eq;

use super::*;

const PLAN: &str = "/home/user/.agentctx/plans/brave-otter.md";

fn plan_ctx(plan_file: &str) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.permission_mode = PermissionMode::Plan;
    ctx.plan.plan_file_path = Some(PathBuf::from(plan_file));
    ctx
}

/// A plan file with content in a temp dir; the returned string is the dir to redact.
fn existing_plan() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("brave-otter.md");
    std::fs::write(&path, "# Plan: parser\n").unwrap();
    (dir, path)
}

fn redact(text: &str, dir: &tempfile::TempDir) -> String {
    text.replace(dir.path().to_str().unwrap(), "[TMP]")
}

async fn content(generator: &dyn AttachmentGenerator, ctx: &GeneratorContext) -> Option<String> {
    generator
        .generate(ctx)
        .await
        .unwrap()
        .map(|reminder| reminder.wrap_xml())
}

#[tokio::test]
async fn plan_mode_includes_workflow_phases() {
    let ctx = plan_ctx(PLAN);
    let text = content(&PlanModeGenerator::default(), &ctx).await.unwrap();
    for phase in [
        "### Phase 1: Initial Understanding",
        "### Phase 2: Design",
        "### Phase 3: Review",
        "### Phase 4: Final Plan",
        "### Phase 5: Call ExitPlanMode",
    ] {
        assert!(text.contains(phase), "missing {phase}");
    }
    insta::assert_snapshot!("plan_mode_full_no_plan_file", text);
}

#[tokio::test]
async fn plan_mode_full_reminder_with_an_existing_plan_and_custom_agent_counts() {
    let (dir, path) = existing_plan();
    let ctx = plan_ctx(path.to_str().unwrap());
    let text = content(&PlanModeGenerator::with_agent_counts(2, 3), &ctx)
        .await
        .unwrap();
    assert!(text.contains("**Launch up to 2 Explore agents IN PARALLEL**"));
    assert!(text.contains("You can launch up to 3 agent(s) in parallel."));
    insta::assert_snapshot!("plan_mode_full_plan_exists", redact(&text, &dir));
}

#[tokio::test]
async fn plan_mode_full_on_first_attachment_then_sparse_then_full_every_fifth() {
    let ctx = plan_ctx(PLAN);
    let generator = PlanModeGenerator::default();
    let mut kinds = Vec::new();
    for attachment in 0..11 {
        let text = content(&generator, &ctx).await.unwrap();
        kinds.push(if text.contains("## Plan Workflow") {
            "full"
        } else {
            "sparse"
        });
        ctx.throttle
            .mark_generated(AttachmentType::PlanMode, 1 + attachment * 5);
    }
    assert_eq!(
        kinds,
        [
            "full", "sparse", "sparse", "sparse", "sparse", "full", "sparse", "sparse", "sparse",
            "sparse", "full"
        ]
    );
}

#[tokio::test]
async fn plan_mode_sparse_reminder() {
    let ctx = plan_ctx(PLAN);
    ctx.throttle.mark_generated(AttachmentType::PlanMode, 1);
    let text = content(&PlanModeGenerator::default(), &ctx).await.unwrap();
    insta::assert_snapshot!("plan_mode_sparse", text);
}

#[tokio::test]
async fn plan_mode_sub_agent_reminder_is_the_short_one_every_time() {
    let mut ctx = plan_ctx(PLAN);
    ctx.is_main_agent = false;
    ctx.throttle.mark_generated(AttachmentType::PlanMode, 1);
    let text = content(&PlanModeGenerator::default(), &ctx).await.unwrap();
    assert!(!text.contains("## Plan Workflow"));
    insta::assert_snapshot!("plan_mode_sub_agent_no_plan_file", text);

    let (dir, path) = existing_plan();
    let mut ctx = plan_ctx(path.to_str().unwrap());
    ctx.is_main_agent = false;
    let text = content(&PlanModeGenerator::default(), &ctx).await.unwrap();
    insta::assert_snapshot!("plan_mode_sub_agent_plan_exists", redact(&text, &dir));
}

#[tokio::test]
async fn plan_mode_generators_stay_silent_outside_plan_mode() {
    let mut ctx = plan_ctx(PLAN);
    ctx.permission_mode = PermissionMode::Default;
    ctx.plan.is_reentry = true;
    assert_eq!(content(&PlanModeGenerator::default(), &ctx).await, None);
    assert_eq!(
        content(&PlanModeReentryGenerator::default(), &ctx).await,
        None
    );
    assert_eq!(content(&PlanModeExitGenerator::default(), &ctx).await, None);
}

#[tokio::test]
async fn plan_mode_reentry_has_correct_instructions() {
    let (dir, path) = existing_plan();
    let mut ctx = plan_ctx(path.to_str().unwrap());
    ctx.plan.is_reentry = true;
    let text = content(&PlanModeReentryGenerator::default(), &ctx)
        .await
        .unwrap();
    assert!(text.contains("## Re-entering Plan Mode"));
    assert!(text.contains("1. Read the existing plan file"));
    assert!(text.contains("before calling ExitPlanMode"));
    insta::assert_snapshot!("plan_mode_reentry", redact(&text, &dir));
}

#[tokio::test]
async fn plan_mode_reentry_needs_an_existing_plan_file() {
    let mut ctx = plan_ctx(PLAN);
    ctx.plan.is_reentry = true;
    assert_eq!(
        content(&PlanModeReentryGenerator::default(), &ctx).await,
        None
    );
}

#[tokio::test]
async fn plan_mode_exit_names_the_plan_file_when_it_exists() {
    let (dir, path) = existing_plan();
    let mut ctx = plan_ctx(path.to_str().unwrap());
    ctx.permission_mode = PermissionMode::Default;
    ctx.plan.just_exited = true;
    let text = content(&PlanModeExitGenerator::default(), &ctx)
        .await
        .unwrap();
    insta::assert_snapshot!("plan_mode_exit_plan_exists", redact(&text, &dir));

    let mut ctx = plan_ctx(PLAN);
    ctx.permission_mode = PermissionMode::Default;
    ctx.plan.just_exited = true;
    let text = content(&PlanModeExitGenerator::default(), &ctx)
        .await
        .unwrap();
    insta::assert_snapshot!("plan_mode_exit_no_plan_file", text);
}

#[tokio::test]
async fn plan_mode_reentry_and_exit_fire_once_while_the_host_keeps_the_flag() {
    let (_dir, path) = existing_plan();
    let mut ctx = plan_ctx(path.to_str().unwrap());
    ctx.plan.is_reentry = true;
    let reentry = PlanModeReentryGenerator::default();
    assert!(content(&reentry, &ctx).await.is_some());
    assert_eq!(content(&reentry, &ctx).await, None);

    ctx.permission_mode = PermissionMode::Default;
    ctx.plan.just_exited = true;
    let exit = PlanModeExitGenerator::default();
    assert!(content(&exit, &ctx).await.is_some());
    assert_eq!(content(&exit, &ctx).await, None);
    ctx.plan.just_exited = false;
    assert_eq!(content(&exit, &ctx).await, None);
    ctx.plan.just_exited = true;
    assert!(content(&exit, &ctx).await.is_some());
}

#[test]
fn plan_mode_looks_at_the_plan_file_on_the_blocking_pool() {
    let (_dir, path) = existing_plan();
    let mut ctx = plan_ctx(path.to_str().unwrap());
    ctx.plan.is_reentry = true;
    // Looked at inline, the reminders would be ready before the timeout could fire.
    crate::timed_out_run::time_out_then_finish(
        std::sync::Arc::new(PlanModeGenerator::default()),
        &ctx,
    );
    let reentry = std::sync::Arc::new(PlanModeReentryGenerator::default());
    crate::timed_out_run::time_out_then_finish(reentry.clone(), &ctx);
    // The re-entry that timed out is still reported.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    assert!(runtime.block_on(reentry.generate(&ctx)).unwrap().is_some());
}
