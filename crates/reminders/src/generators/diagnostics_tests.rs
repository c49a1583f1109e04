use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_protocol::XmlTag;
use pretty_assertions::assert_eq;

use super::*;
use crate::providers::DiagnosticsProvider;

#[derive(Debug, Default)]
struct FakeDiagnostics {
    plain: Mutex<Vec<DiagnosticFile>>,
    lsp: Mutex<Vec<DiagnosticFile>>,
}

impl DiagnosticsProvider for FakeDiagnostics {
    fn take_new_diagnostics(&self) -> Vec<DiagnosticFile> {
        std::mem::take(&mut *self.plain.lock().unwrap())
    }
    fn take_new_lsp_diagnostics(&self) -> Vec<DiagnosticFile> {
        std::mem::take(&mut *self.lsp.lock().unwrap())
    }
}

fn files() -> Vec<DiagnosticFile> {
    vec![
        DiagnosticFile {
            file_path: PathBuf::from("/work/project/src/parser.rs"),
            diagnostics: vec![
                Diagnostic {
                    message: "mismatched types: expected `usize`, found `i32`".to_string(),
                    severity: DiagnosticSeverity::Error,
                    line: 42,
                    column: Some(17),
                    code: Some("E0308".to_string()),
                    source: Some("rustc".to_string()),
                },
                Diagnostic {
                    message: "unused variable: `token`".to_string(),
                    severity: DiagnosticSeverity::Warning,
                    line: 57,
                    column: None,
                    code: None,
                    source: None,
                },
            ],
        },
        DiagnosticFile {
            file_path: PathBuf::from("/work/project/src/lexer.rs"),
            diagnostics: vec![
                Diagnostic {
                    message: "consider using `Option::map`".to_string(),
                    severity: DiagnosticSeverity::Hint,
                    line: 3,
                    column: Some(1),
                    code: Some("manual_map".to_string()),
                    source: Some("clippy".to_string()),
                },
                Diagnostic {
                    message: "this function has 9 arguments".to_string(),
                    severity: DiagnosticSeverity::Info,
                    line: 88,
                    column: Some(5),
                    code: None,
                    source: Some("clippy".to_string()),
                },
            ],
        },
        DiagnosticFile {
            file_path: PathBuf::from("/work/project/src/clean.rs"),
            diagnostics: Vec::new(),
        },
    ]
}

fn ctx_with(provider: Arc<FakeDiagnostics>) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.diagnostics = provider;
    ctx
}

#[tokio::test]
async fn diagnostics_are_wrapped_in_new_diagnostics_without_newlines() {
    let provider = Arc::new(FakeDiagnostics::default());
    *provider.plain.lock().unwrap() = files();
    let ctx = ctx_with(provider);
    let reminder = DiagnosticsGenerator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.xml_tag(), XmlTag::NewDiagnostics);
    let text = reminder.wrap_xml();
    assert!(text.starts_with("<new-diagnostics>The following new diagnostic issues"));
    assert!(
        !text.contains("clean.rs"),
        "files without diagnostics are left out"
    );
    insta::assert_snapshot!("diagnostics", text);
    // Handed over once: the next turn has nothing new.
    assert_eq!(DiagnosticsGenerator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn lsp_diagnostics_read_their_own_queue() {
    let provider = Arc::new(FakeDiagnostics::default());
    *provider.lsp.lock().unwrap() = files().split_off(1);
    let ctx = ctx_with(provider);
    assert_eq!(DiagnosticsGenerator.generate(&ctx).await.unwrap(), None);
    let reminder = LspDiagnosticsGenerator
        .generate(&ctx)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reminder.attachment_type, AttachmentType::LspDiagnostics);
    insta::assert_snapshot!("lsp_diagnostics", reminder.wrap_xml());
}
