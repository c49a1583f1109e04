use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn verify_plan_reminder_fires_once_per_completion() {
    let generator = VerifyPlanReminderGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.plan.implementation_complete = true;
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("verify_plan_reminder", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.plan.implementation_complete = false;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.plan.implementation_complete = true;
    assert!(generator.generate(&ctx).await.unwrap().is_some());
}

#[tokio::test]
async fn without_the_verify_tool_the_model_is_asked_to_check_the_plan_itself() {
    let generator = VerifyPlanReminderGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.plan.implementation_complete = true;
    ctx.plan.without_verify_tool = true;
    ctx.plan.plan_file_path = Some(std::path::PathBuf::from("/home/u/.agentctx/plans/otter.md"));
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    assert!(!reminder.content.contains(VERIFY_PLAN_TOOL));
    insta::assert_snapshot!("verify_plan_reminder_without_the_tool", reminder.wrap_xml());
}
