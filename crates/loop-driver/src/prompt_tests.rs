use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::build_enhanced_prompt;
use super::fill;
use crate::condition::LoopCondition;
use crate::context::IterationRecord;
use crate::context::LoopContext;

const TASK: &str = "Implement user authentication with JWT tokens";

fn record(iteration: i32, commit: Option<&str>, files: &[&str], summary: &str) -> IterationRecord {
    IterationRecord {
        timestamp: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        ..IterationRecord::new(
            iteration,
            commit.map(str::to_owned),
            files.iter().map(|f| (*f).to_owned()).collect(),
            summary.to_owned(),
            true,
        )
    }
}

fn context(plan: Option<&str>, condition: LoopCondition) -> LoopContext {
    LoopContext::new(
        "abc1234def5678abc1234def5678abc1234def56".to_owned(),
        TASK.to_owned(),
        plan.map(str::to_owned),
        condition,
    )
}

#[test]
fn iteration_0_prompt() {
    let ctx = context(None, LoopCondition::iterations(3));
    insta::assert_snapshot!(build_enhanced_prompt(TASK, 0, &ctx));
}

#[test]
fn iteration_1_prompt() {
    let mut ctx = context(None, LoopCondition::iterations(3));
    ctx.add_iteration(record(
        0,
        Some("def5678aaaabbbbccccddddeeeeffff0000111122"),
        &["src/models/user.rs", "src/models/mod.rs"],
        "Created User model with email/password fields and validation.",
    ));
    insta::assert_snapshot!(build_enhanced_prompt(TASK, 1, &ctx));
}

#[test]
fn prompt_with_a_plan_many_files_and_an_ongoing_duration() {
    let mut ctx = context(
        Some(
            "1. Create User model\n2. Add login endpoint\n3. Implement JWT middleware\n4. Add tests\n",
        ),
        LoopCondition::Duration { seconds: 3_600 },
    );
    ctx.add_iteration(record(
        0,
        Some("def5678aaaabbbbccccddddeeeeffff0000111122"),
        &[
            "a.rs",
            "b.rs",
            "c.rs",
            "d.rs",
            "e.rs",
            "f.rs",
            "my notes.md",
        ],
        "Created the models.",
    ));
    ctx.add_iteration(record(
        1,
        None,
        &[],
        "Reviewed the code; nothing needed changing.",
    ));
    insta::assert_snapshot!(build_enhanced_prompt(TASK, 2, &ctx));
}

#[test]
fn an_empty_repository_has_no_base_commit() {
    let mut ctx = context(None, LoopCondition::iterations(2));
    ctx.base_commit_id = String::new();
    let prompt = build_enhanced_prompt(TASK, 0, &ctx);
    assert!(
        prompt.contains("Base commit: none (the repository had no commits yet)\n"),
        "{prompt}"
    );
}

#[test]
fn values_holding_placeholders_are_inserted_verbatim() {
    assert_eq!(
        fill(
            "{a} and {b} and {unknown} and {",
            &[("a", "{b}"), ("b", "x")]
        ),
        "{b} and x and {unknown} and {"
    );
}
