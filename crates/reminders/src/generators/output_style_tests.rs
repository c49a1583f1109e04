use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn output_style_fires_when_set_or_changed() {
    let generator = OutputStyleGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.output_style = Some("default".to_string());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.output_style = Some("explanatory".to_string());
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("output_style", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.output_style = Some("Learning".to_string());
    assert_eq!(
        generator.generate(&ctx).await.unwrap().unwrap().content,
        render_output_style("Learning")
    );
}
