use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn compact_file_reference_lists_each_file_once_per_compaction() {
    let generator = CompactFileReferenceGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.compact_file_references = vec![
        PathBuf::from("/work/project/src/huge_table.rs"),
        PathBuf::from("/work/project/data/fixtures.json"),
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("compact_file_reference", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
