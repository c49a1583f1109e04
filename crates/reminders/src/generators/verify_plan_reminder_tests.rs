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
