use pretty_assertions::assert_eq;

use super::*;
use crate::config::SystemReminderConfig;

fn usage(used: i64) -> ContextTokenUsage {
    ContextTokenUsage {
        used,
        total: 200_000,
        remaining: 200_000 - used,
    }
}

#[tokio::test]
async fn token_usage_reports_changes_only() {
    let generator = TokenUsageGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.token_usage = Some(usage(45_210));
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("token_usage", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.token_usage = Some(usage(52_000));
    assert_eq!(
        generator.generate(&ctx).await.unwrap().unwrap().content,
        "Token usage: 52000/200000; 148000 remaining"
    );
}

#[test]
fn token_usage_needs_enable_token_usage() {
    let generator = TokenUsageGenerator::default();
    let mut config = SystemReminderConfig::default();
    assert!(!generator.is_enabled(&config));
    config.enable_token_usage = true;
    assert!(generator.is_enabled(&config));
}
