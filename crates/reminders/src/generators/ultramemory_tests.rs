use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn ultramemory_shows_content_as_is_once_per_change() {
    let generator = UltramemoryGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.ultramemory =
        Some("The user prefers small commits.\nThe CI runs on two cores.\n".to_string());
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("ultramemory", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
