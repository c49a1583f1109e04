//! Diagnostics from a real language server through the shipped binary: `agentctx run` in a
//! Python project whose `config.toml` has `[lsp.python]` pointing at pyright
//! (`pyright-langserver --stdio`, npm `pyright`, as `cargo xtask tools pyright` installs it;
//! found at `AGENTCTX_PYRIGHT_BIN` when set), the model being the scripted Chat Completions
//! backend talked to directly. A write that introduces a type error reaches the model's next
//! request as the `lsp_diagnostics` reminder naming the error; the fixing write adds no new
//! reminder (docs/design/lsp.md).
//!
//! Skipped with a printed reason when pyright is missing, unless `AGENTCTX_REQUIRE_LSP_INTEROP`
//! is set; when the binary is missing, unless `AGENTCTX_REQUIRE_INTEROP` is set.

use std::path::PathBuf;

use agentctx_interop::Agentctx;
use agentctx_interop::Route;
use agentctx_interop::ScriptedChat;
use agentctx_interop::ScriptedReply;
use agentctx_interop::Tools;
use agentctx_interop::WireApi;
use serde_json::Value;
use serde_json::json;

use super::support::describe;

/// The opening of the diagnostics reminder's body.
const DIAGNOSTICS: &str = "The following new diagnostic issues were detected";

/// The prompt of the turn (every request of the turn holds it).
const PROMPT: &str = "Add a total to app.py.";

/// The binary and pyright, or `None` (with the reason printed) when the test is skipped.
fn prerequisites() -> Option<(PathBuf, PathBuf)> {
    let skip = |error: agentctx_interop::InteropError, required: bool, var: &str| {
        assert!(!required, "{var} is set: {error}");
        #[expect(clippy::print_stderr, reason = "a skipped test says why")]
        {
            eprintln!("skipped: {error} ({var} is unset)");
        }
    };
    let pyright = match Tools::pyright() {
        Ok(bin) => bin,
        Err(error) => {
            skip(error, Tools::lsp_required(), "AGENTCTX_REQUIRE_LSP_INTEROP");
            return None;
        }
    };
    let agentctx = match Tools::agentctx() {
        Ok(bin) => bin,
        Err(error) => {
            skip(error, Tools::required(), "AGENTCTX_REQUIRE_INTEROP");
            return None;
        }
    };
    Some((agentctx, pyright))
}

fn write(content: &str) -> ScriptedReply {
    ScriptedReply::Call {
        name: "write_file".into(),
        arguments: json!({"path": "app.py", "content": content}),
    }
}

/// How often the reminder's opening appears in a request's messages.
fn reminders(body: &Value) -> usize {
    body["messages"].to_string().matches(DIAGNOSTICS).count()
}

#[test]
fn a_type_error_written_reaches_the_next_request_and_its_fix_silences_it() {
    let Some((bin, pyright)) = prerequisites() else {
        return;
    };
    let broken =
        "def double(value: int) -> int:\n    return value * 2\n\n\ntotal: int = double(\"two\")\n";
    let fixed = broken.replace("double(\"two\")", "double(2)");
    let scripted = ScriptedChat::start_with_steps(vec![
        write(broken),
        write(&fixed),
        ScriptedReply::Text("Fixed.".into()),
    ])
    .expect("scripted backend");
    let route = Route {
        label: "scripted/chat".into(),
        wire: WireApi::Chat,
        base_url: scripted.base_url(),
        model: "scripted".into(),
        api_key: None,
        context_window: 200_000,
        max_output_tokens: Some(4_000),
    };
    let agentctx = Agentctx::with_binary(&bin, &route).expect("home");
    // No background requests (session memory, the memory pipeline) to take scripted replies;
    // a first pyright analysis on a loaded machine takes seconds.
    agentctx
        .append_config(&format!(
            "\n[compact.session_memory]\nextraction_enabled = false\ncompact_enabled = false\n\n\
             [memory]\ngenerate_memories = false\n\n\
             [lsp.python]\ncommand = [{command}, \"--stdio\"]\nextensions = [\"py\"]\n\
             root_markers = [\"pyproject.toml\"]\ndiagnostics_wait_ms = 60000\n",
            command = json!(pyright.display().to_string()),
        ))
        .expect("config");
    std::fs::write(
        agentctx.cwd().join("pyproject.toml"),
        "[project]\nname = \"demo\"\n",
    )
    .expect("pyproject.toml");

    let output = agentctx
        .command(&["run", "--yes", PROMPT])
        .output()
        .expect("run");
    assert!(output.status.success(), "{}", describe(&output));
    assert_eq!(
        std::fs::read_to_string(agentctx.cwd().join("app.py")).expect("app.py"),
        fixed
    );

    let turn: Vec<Value> = scripted
        .bodies()
        .into_iter()
        .filter(|body| body["messages"].to_string().contains(PROMPT))
        .collect();
    assert_eq!(turn.len(), 3, "{turn:#?}");
    // Request 1: nothing written yet.
    assert_eq!(reminders(&turn[0]), 0);
    // Request 2: the error pyright found in the write, with its file, line, rule and source.
    assert_eq!(reminders(&turn[1]), 1, "{}", turn[1]["messages"]);
    let messages = turn[1]["messages"].to_string();
    let reminder = &messages[messages.find(DIAGNOSTICS).unwrap_or_default()..];
    for expected in [
        "app.py",
        "[Line 5:",
        "Literal['two']",
        "reportArgumentType",
        "Pyright",
    ] {
        assert!(reminder.contains(expected), "{expected} in {reminder}");
    }
    // Request 3: the fix leaves nothing new to say; the earlier reminder stays where it was.
    assert_eq!(reminders(&turn[2]), 1, "{}", turn[2]["messages"]);
}
