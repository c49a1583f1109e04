//! Diagnostics from a real language server in a live session: a write that introduces a type
//! error reaches the model's next request as the `lsp_diagnostics` reminder, and after the fix
//! no reminder is sent (docs/design/lsp.md). The server is pyright (`pyright-langserver
//! --stdio`, from npm), as `cargo xtask tools pyright` installs it into the workspace's
//! `target/tools/npm`; found at `AGENTCTX_PYRIGHT_BIN` when set. Skipped with a printed reason
//! when missing, unless `AGENTCTX_REQUIRE_LSP_INTEROP` is set (as `cargo xtask ci` sets it).

use std::path::PathBuf;

use agentctx_core::Session;
use agentctx_lsp::LspServerConfig;
use agentctx_model::WireApi;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::Out;
use super::support::bodies;
use super::support::client;
use super::support::dirs;
use super::support::options;
use super::support::responses_sse;
use super::support::server;

/// The opening of the diagnostics reminder's body.
const DIAGNOSTICS: &str = "The following new diagnostic issues were detected";

fn pyright() -> Option<PathBuf> {
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
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    {
        eprintln!("{reason}");
    }
    None
}

fn write(call_id: &'static str, content: &str) -> String {
    responses_sse(
        &[Out::Call {
            call_id,
            name: "write_file",
            arguments: json!({"path": "app.py", "content": content}),
        }],
        1_000,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_error_written_reaches_the_next_request_and_its_fix_silences_it() {
    let Some(bin) = pyright() else { return };
    let dirs = dirs();
    std::fs::write(
        dirs.cwd.join("pyproject.toml"),
        "[project]\nname = \"demo\"\n",
    )
    .unwrap();
    let broken =
        "def double(value: int) -> int:\n    return value * 2\n\n\ntotal: int = double(\"two\")\n";
    let fixed = broken.replace("double(\"two\")", "double(2)");
    let server = server(vec![
        write("call_broken", broken),
        write("call_fixed", &fixed),
        responses_sse(&[Out::Text("Fixed.")], 1_000),
    ])
    .await;
    let mut options = options(&dirs, client(&server, WireApi::Responses, 200_000));
    options.lsp.insert(
        "python".to_owned(),
        LspServerConfig {
            command: vec![bin.display().to_string(), "--stdio".to_owned()],
            extensions: vec!["py".to_owned()],
            root_markers: vec!["pyproject.toml".to_owned()],
            // A first analysis on a slow machine takes seconds.
            diagnostics_wait_ms: Some(60_000),
            ..LspServerConfig::default()
        },
    );
    let (mut session, _events) = Session::new(options).unwrap();
    let outcome = session
        .run_turn("Add a total to app.py", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.requests, 3);
    session.shutdown_language_servers().await;

    let bodies = bodies(&server).await;
    let count = |index: usize| {
        bodies[index]["input"]
            .to_string()
            .matches(DIAGNOSTICS)
            .count()
    };
    // Request 1: nothing written yet.
    assert_eq!(count(0), 0);
    // Request 2: the error pyright found in the write, with its file, line, rule and source.
    assert_eq!(count(1), 1, "{}", bodies[1]["input"]);
    let input = bodies[1]["input"].to_string();
    let reminder = &input[input.find(DIAGNOSTICS).unwrap()..];
    assert!(reminder.contains("app.py"), "{reminder}");
    assert!(reminder.contains("Literal['two']"), "{reminder}");
    assert!(reminder.contains("reportArgumentType"), "{reminder}");
    assert!(reminder.contains("[Line 5:"), "{reminder}");
    // Request 3: the fix leaves nothing new to say; the earlier reminder stays where it was.
    assert_eq!(count(2), 1);
}
