use pretty_assertions::assert_eq;

use super::*;
use crate::config::ReminderPlacement;
use crate::config::SystemReminderConfig;
use crate::types::ReminderTier;

const INSTRUCTION: &str =
    "Always run tests before committing. Never use .unwrap() in non-test code.";

#[tokio::test]
async fn critical_instruction_injected_when_config_set() {
    let config = SystemReminderConfig {
        critical_instruction: Some(INSTRUCTION.to_string()),
        ..SystemReminderConfig::default()
    };
    let ctx = GeneratorContext::new("/work/project").with_config(&config);
    let generator = CriticalInstructionGenerator::default();
    assert!(generator.is_enabled(&config));
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.content, INSTRUCTION);
    insta::assert_snapshot!("critical_instruction", reminder.wrap_xml());
}

#[tokio::test]
async fn critical_instruction_absent_when_unset_and_repeated_every_turn_when_rebuilt() {
    let generator = CriticalInstructionGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.placement = ReminderPlacement::AfterEnvironmentContext;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.critical_instruction = Some("   ".to_string());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.critical_instruction = Some(INSTRUCTION.to_string());
    for turn in 1..=3 {
        ctx.turn_number = turn;
        assert!(generator.generate(&ctx).await.unwrap().is_some());
    }
}

#[tokio::test]
async fn with_tail_placement_the_instruction_is_injected_on_change_and_after_reset_only() {
    let generator = CriticalInstructionGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(ctx.placement, ReminderPlacement::Tail);
    ctx.critical_instruction = Some(INSTRUCTION.to_string());
    let fired = |ctx: &GeneratorContext| {
        let ctx = ctx.clone();
        let generator = &generator;
        async move { generator.generate(&ctx).await.unwrap().is_some() }
    };
    // Set: injected once; the copy in the history serves the following turns.
    assert!(fired(&ctx).await);
    assert!(!fired(&ctx).await);
    assert!(!fired(&ctx).await);
    // Changed: injected again.
    ctx.critical_instruction = Some("Never push to main.".to_string());
    assert!(fired(&ctx).await);
    assert!(!fired(&ctx).await);
    // Compaction drops the old copy: injected again after reset.
    generator.reset();
    assert!(fired(&ctx).await);
    // Unset then set again is a change too.
    ctx.critical_instruction = None;
    assert!(!fired(&ctx).await);
    ctx.critical_instruction = Some("Never push to main.".to_string());
    assert!(fired(&ctx).await);
}

#[tokio::test]
async fn sub_agent_gets_its_definitions_critical_system_reminder() {
    // The Explore agent's definition carries a critical_system_reminder; the host puts it in the
    // sub-agent's context, and the core-tier generator runs for sub-agents too.
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.is_main_agent = false;
    ctx.critical_instruction = Some(
        "CRITICAL: This is a READ-ONLY exploration task. You MUST NOT create, write, or modify any files."
            .to_string(),
    );
    let generator = CriticalInstructionGenerator::default();
    assert_eq!(generator.tier(), ReminderTier::Core);
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!(
        "critical_instruction_explore_sub_agent",
        reminder.wrap_xml()
    );
}
