//! Against a real language server: pyright (`pyright-langserver --stdio`, from npm), as
//! `cargo xtask tools pyright` installs it into the workspace's `target/tools/npm`. Found at
//! `AGENTCTX_PYRIGHT_BIN` when set; skipped with a printed reason when missing, unless
//! `AGENTCTX_REQUIRE_LSP_INTEROP` is set (as `cargo xtask ci` sets it), so a fork that vendors
//! the crate without npm still passes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentctx_lsp::LspManager;
use agentctx_lsp::LspServerConfig;
use agentctx_lsp::Severity;
use pretty_assertions::assert_eq;

/// The installed server, or why the test cannot run.
pub(crate) fn pyright() -> Option<PathBuf> {
    let bin = std::env::var_os("AGENTCTX_PYRIGHT_BIN").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/tools/npm/node_modules/.bin/pyright-langserver")
        },
        PathBuf::from,
    );
    if bin.exists() {
        return Some(bin);
    }
    let reason = format!(
        "skipped: {} is not installed (run `cargo xtask tools pyright`; it needs npm)",
        bin.display()
    );
    assert!(
        std::env::var_os("AGENTCTX_REQUIRE_LSP_INTEROP").is_none(),
        "{reason}"
    );
    println!("{reason}");
    None
}

pub(crate) fn python(bin: &std::path::Path) -> LspServerConfig {
    LspServerConfig {
        command: vec![bin.display().to_string(), "--stdio".to_owned()],
        extensions: vec!["py".to_owned()],
        root_markers: vec!["pyproject.toml".to_owned()],
        // A first analysis on a slow machine takes seconds.
        diagnostics_wait_ms: Some(60_000),
        ..LspServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_reports_a_type_error_and_its_fix() {
    let Some(bin) = pyright() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    std::fs::write(cwd.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
    let file = cwd.join("app.py");
    let manager = LspManager::new(
        BTreeMap::from([("python".to_owned(), python(&bin))]),
        cwd.clone(),
    );

    let broken =
        "def double(value: int) -> int:\n    return value * 2\n\n\ntotal: int = double(\"two\")\n";
    std::fs::write(&file, broken).unwrap();
    manager.file_changed(&file, broken).await.unwrap();
    assert_eq!(manager.running().await, vec!["python".to_owned()]);
    manager.settle().await;
    assert_eq!(
        manager.store().pending(),
        Vec::<PathBuf>::new(),
        "pyright published nothing"
    );
    let files = manager.take_new_diagnostics();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].path, file);
    let error = &files[0].diagnostics[0];
    assert_eq!(error.severity, Severity::Error);
    assert_eq!(error.line, 5, "{error:?}");
    assert!(error.message.contains("Literal['two']"), "{error:?}");
    assert_eq!(error.source.as_deref(), Some("Pyright"));
    assert_eq!(error.code.as_deref(), Some("reportArgumentType"));
    // Told once.
    assert_eq!(manager.take_new_diagnostics(), vec![]);

    let fixed = broken.replace("double(\"two\")", "double(2)");
    std::fs::write(&file, &fixed).unwrap();
    manager.file_changed(&file, &fixed).await.unwrap();
    manager.settle().await;
    assert_eq!(manager.take_new_diagnostics(), vec![]);
    assert_eq!(manager.store().current(&file), vec![]);

    manager.shutdown().await;
    assert_eq!(manager.running().await, Vec::<String>::new());
}
