//! `agentctx loop --iters 2` through LiteLLM (Responses format) to the scripted backend: each
//! iteration's tool call writes the file, and the loop driver commits twice.

use agentctx_interop::Agentctx;
use agentctx_interop::LiteLlm;
use agentctx_interop::Route;
use agentctx_interop::ScriptedChat;
use agentctx_interop::WireApi;

use super::support::describe;
use super::support::tools;

fn git(agentctx: &Agentctx, args: &[&str]) -> String {
    let output = agentctx.git(args).output().expect("git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        describe(&output)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn two_iterations_commit_twice_through_litellm() {
    let Some(tools) = tools() else { return };
    let scripted = ScriptedChat::start().expect("scripted backend");
    let litellm = LiteLlm::start(&tools, &[("scripted", scripted.base_url())]).expect("litellm");
    let route = Route::litellm(&litellm, WireApi::Responses, "scripted", 32_768);
    let agentctx = Agentctx::new(&tools, &route).expect("home");
    git(&agentctx, &["init", "--quiet"]);
    std::fs::write(agentctx.cwd().join("README.md"), "# demo\n").expect("readme");
    git(&agentctx, &["add", "README.md"]);
    git(&agentctx, &["commit", "--quiet", "-m", "initial"]);

    let output = agentctx
        .command(&[
            "loop",
            "--iters",
            "2",
            "--yes",
            "Update the notes.\nWRITE notes.txt",
        ])
        .output()
        .expect("loop");
    assert!(
        output.status.success(),
        "{}\n--- litellm log\n{}",
        describe(&output),
        litellm.process.log_tail(40)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("iterations: 2 attempted, 2 succeeded, 0 failed"),
        "{}",
        describe(&output)
    );
    assert_eq!(git(&agentctx, &["rev-list", "--count", "HEAD"]).trim(), "3");
    let log = git(&agentctx, &["log", "--format=%s", "--name-only", "-2"]);
    assert_eq!(log.matches("notes.txt").count(), 2, "{log}");
    assert_eq!(git(&agentctx, &["status", "--porcelain"]), "");
}
