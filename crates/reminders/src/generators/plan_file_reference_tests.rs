use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn plan_file_reference_shows_the_plan_once_per_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("brave-otter.md");
    std::fs::write(
        &path,
        "# Plan: parser\n\n## Approach\n1. Tokenize\n2. Parse\n",
    )
    .unwrap();
    let generator = PlanFileReferenceGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.plan.reference_file = Some(path.clone());
    let text = generator.generate(&ctx).await.unwrap().unwrap().wrap_xml();
    insta::assert_snapshot!(
        "plan_file_reference",
        text.replace(dir.path().to_str().unwrap(), "[TMP]")
    );
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    std::fs::write(&path, "# Plan: parser v2\n").unwrap();
    assert!(generator.generate(&ctx).await.unwrap().is_some());
}

#[tokio::test]
async fn plan_file_reference_ignores_a_missing_or_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let generator = PlanFileReferenceGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.plan.reference_file = Some(dir.path().join("missing.md"));
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "\n").unwrap();
    ctx.plan.reference_file = Some(empty);
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn a_plan_file_over_the_cap_is_cut_at_a_line_with_a_visible_marker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge-plan.md");
    let line = "- step: keep going with the refactor, one module at a time\n";
    let plan = line.repeat(2 * crate::file_content::MAX_PLAN_FILE_BYTES / line.len());
    std::fs::write(&path, &plan).unwrap();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.plan.reference_file = Some(path.clone());

    let text = PlanFileReferenceGenerator::default()
        .generate(&ctx)
        .await
        .unwrap()
        .unwrap()
        .content;

    let shown = text
        .split_once("Plan contents:\n\n")
        .unwrap()
        .1
        .split_once("\n\n(")
        .unwrap()
        .0;
    assert!(shown.len() <= crate::file_content::MAX_PLAN_FILE_BYTES);
    assert!(
        plan.starts_with(shown) && shown.ends_with("time"),
        "cut mid-line"
    );
    let tail = text.get(text.len() - 260..).unwrap();
    insta::assert_snapshot!(
        "plan_file_reference_truncated_tail",
        tail.replace(dir.path().to_str().unwrap(), "[TMP]")
    );
}

#[test]
fn a_plan_file_is_read_on_the_blocking_pool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.md");
    std::fs::write(&path, "# Plan\n").unwrap();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.plan.reference_file = Some(path);
    let generator = std::sync::Arc::new(PlanFileReferenceGenerator::default());
    // Read inline, the file would be shown before the timeout could fire.
    crate::timed_out_run::time_out_then_finish(generator.clone(), &ctx);
    // The run that timed out left no trace: the plan is shown on the next turn.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    assert!(
        runtime
            .block_on(generator.generate(&ctx))
            .unwrap()
            .is_some()
    );
}
