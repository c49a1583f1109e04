//! New diagnostics (`diagnostics`, `lsp_diagnostics`, in
//! `<new-diagnostics>`), read through [`crate::providers::DiagnosticsProvider`]. The provider
//! hands each diagnostic over once, so each is reported once.

use async_trait::async_trait;

use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::providers::Diagnostic;
use crate::providers::DiagnosticFile;
use crate::providers::DiagnosticSeverity;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The symbol shown before a diagnostic of `severity`.
pub(crate) fn severity_symbol(severity: DiagnosticSeverity) -> &'static str {
    match severity {
        DiagnosticSeverity::Error => "✘",
        DiagnosticSeverity::Warning => "⚠",
        DiagnosticSeverity::Info => "ℹ",
        DiagnosticSeverity::Hint => "★",
    }
}

fn render_diagnostic(diagnostic: &Diagnostic) -> String {
    let position = match diagnostic.column {
        Some(column) => format!("[Line {}:{column}]", diagnostic.line),
        None => format!("[Line {}]", diagnostic.line),
    };
    let code = diagnostic
        .code
        .as_deref()
        .map(|code| format!(" [{code}]"))
        .unwrap_or_default();
    let source = diagnostic
        .source
        .as_deref()
        .map(|source| format!(" ({source})"))
        .unwrap_or_default();
    format!(
        "  {} {position} {}{code}{source}",
        severity_symbol(diagnostic.severity),
        diagnostic.message
    )
}

/// The per-file summary: the file, then one indented line per diagnostic.
pub(crate) fn format_diagnostics_summary(files: &[DiagnosticFile]) -> String {
    files
        .iter()
        .map(|file| {
            let lines = file
                .diagnostics
                .iter()
                .map(render_diagnostic)
                .collect::<Vec<_>>()
                .join("\n");
            format!("{}:\n{lines}", file.file_path.display())
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The content inside `<new-diagnostics>`.
pub(crate) fn render_new_diagnostics(files: &[DiagnosticFile]) -> String {
    format!(
        "The following new diagnostic issues were detected:\n\n{}",
        format_diagnostics_summary(files)
    )
}

fn reminder(attachment_type: AttachmentType, files: Vec<DiagnosticFile>) -> Option<SystemReminder> {
    let files = files
        .into_iter()
        .filter(|file| !file.diagnostics.is_empty())
        .collect::<Vec<_>>();
    if files.is_empty() {
        return None;
    }
    Some(SystemReminder::new(
        attachment_type,
        render_new_diagnostics(&files),
    ))
}

/// Generates new diagnostics from the diagnostics system.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct DiagnosticsGenerator;

impl DiagnosticsGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        Ok(reminder(
            AttachmentType::Diagnostics,
            ctx.providers.diagnostics.take_new_diagnostics(),
        ))
    }
}

#[async_trait]
impl AttachmentGenerator for DiagnosticsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::Diagnostics
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

/// Generates new diagnostics from LSP servers.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LspDiagnosticsGenerator;

impl LspDiagnosticsGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(self, ctx: &GeneratorContext) -> GeneratorResult {
        Ok(reminder(
            AttachmentType::LspDiagnostics,
            ctx.providers.diagnostics.take_new_lsp_diagnostics(),
        ))
    }
}

#[async_trait]
impl AttachmentGenerator for LspDiagnosticsGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::LspDiagnostics
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "diagnostics_tests.rs"]
mod tests;
