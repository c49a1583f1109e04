use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn micro_compact_notice_counts_cleared_results() {
    let mut ctx = GeneratorContext::new("/work/project");
    let generator = MicroCompactGenerator;
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.micro_compact_cleared = 7;
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("micro_compact", reminder.wrap_xml());
}
