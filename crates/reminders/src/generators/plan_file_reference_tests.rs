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
