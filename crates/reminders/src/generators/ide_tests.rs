use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::providers::IdeProvider;

#[derive(Debug, Default)]
struct FakeIde {
    selection: Mutex<Option<IdeSelection>>,
    opened: Mutex<Option<IdeOpenedFile>>,
}

impl IdeProvider for FakeIde {
    fn selection(&self) -> Option<IdeSelection> {
        self.selection.lock().unwrap().clone()
    }
    fn opened_file(&self) -> Option<IdeOpenedFile> {
        self.opened.lock().unwrap().clone()
    }
}

fn select(ide: &FakeIde, content: &str) {
    *ide.selection.lock().unwrap() = Some(IdeSelection {
        filename: PathBuf::from("/work/project/src/parser.rs"),
        line_start: 10,
        line_end: 12,
        content: content.to_string(),
    });
}

fn ctx_with(ide: &Arc<FakeIde>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.ide = ide.clone();
    ctx
}

#[tokio::test]
async fn ide_selection_is_reported_once_per_selection() {
    let ide = Arc::new(FakeIde::default());
    let ctx = ctx_with(&ide);
    let generator = IdeSelectionGenerator::default();
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    select(&ide, "fn parse(input: &str) -> Ast {\n    todo()\n}");
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("ide_selection", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn ide_selection_is_cut_at_2000_characters() {
    let ide = Arc::new(FakeIde::default());
    select(&ide, &"é".repeat(2_100));
    let reminder = IdeSelectionGenerator::default()
        .generate(&ctx_with(&ide))
        .await
        .unwrap()
        .unwrap();
    let expected = format!(
        "The user selected the lines 10 to 12 from /work/project/src/parser.rs:\n{}\n... (truncated)\n\nThis may or may not be related to the current task.",
        "é".repeat(2_000)
    );
    assert_eq!(reminder.content, expected);
}

#[tokio::test]
async fn ide_opened_file_only_without_a_selection_and_once_per_file() {
    let ide = Arc::new(FakeIde::default());
    let ctx = ctx_with(&ide);
    let generator = IdeOpenedFileGenerator::default();
    *ide.opened.lock().unwrap() = Some(IdeOpenedFile {
        filename: PathBuf::from("/work/project/README.md"),
    });
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("ide_opened_file", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    select(&ide, "# agentctx");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
