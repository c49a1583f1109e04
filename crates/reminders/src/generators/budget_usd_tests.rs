use pretty_assertions::assert_eq;

use super::*;

#[test]
fn format_usd_prints_like_javascript_without_float_noise() {
    assert_eq!(format_usd(2.0), "2");
    assert_eq!(format_usd(0.1 + 0.2), "0.3");
    assert_eq!(format_usd(1.23456), "1.2346");
    assert_eq!(format_usd(-0.00001), "0");
}

#[tokio::test]
async fn budget_usd_reports_changes_only() {
    let generator = BudgetUsdGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.budget = Some(BudgetInfo {
        used: 1.25,
        total: 10.0,
        remaining: 8.75,
    });
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("budget_usd", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.budget = Some(BudgetInfo {
        used: 1.5,
        total: 10.0,
        remaining: 8.5,
    });
    assert_eq!(
        generator.generate(&ctx).await.unwrap().unwrap().content,
        "USD budget: $1.5/$10; $8.5 remaining"
    );
}
