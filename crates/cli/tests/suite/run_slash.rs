//! Slash commands and the model switch in `agentctx run`, end to end against the wiremock
//! Responses server: `/commit` typed in line mode runs the skill with its tool limit, an unknown
//! command is one line and no request, and `run --resume ID --model X` moves a session to a
//! smaller model the way codex does (compact with the recorded model, then `<model_switch>`).

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::run_mock::MockProvider;
use super::run_mock::Out;
use super::run_mock::dirs;
use super::run_mock::input_texts;
use super::run_mock::responses_sse;

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn commit_typed_in_line_mode_runs_the_skill_with_its_tool_limit() {
    let dirs = dirs();
    let skill = dirs.cwd.path().join(".agentctx/skills/commit");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\ndescription: Commit the staged work\nallowed-tools: [\"Bash(git *)\", \"Read\"]\n---\nWrite a commit for: $ARGUMENTS\n",
    )
    .unwrap();
    let provider = MockProvider::start(vec![
        responses_sse(&[Out::Call {
            call_id: "call_write",
            name: "write_file",
            arguments: json!({"path": "notes.txt", "content": "x"}),
        }]),
        responses_sse(&[Out::Text("Nothing staged.")]),
    ]);
    let output = provider
        .agentctx(dirs.home.path(), dirs.cwd.path(), &["run", "--yes"])
        .write_stdin("/comit typo\n/commit fix the tests\n/help\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    // The unknown command failed its line (so the run exits 1) and sent nothing.
    assert!(!output.status.success());
    assert!(
        stderr.contains(
            "error: turn 1 failed: unknown command `/comit` (did you mean /commit?); /help lists the commands"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("Nothing staged.\n"), "{stdout}");
    assert!(
        stdout.contains("Session commands:\n  /model <slug>"),
        "{stdout}"
    );

    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(tool_names(&bodies[0]), ["read_file", "shell"]);
    assert!(
        input_texts(&bodies[0])
            .iter()
            .any(|text| text.ends_with("Write a commit for: fix the tests\n")),
        "{:#?}",
        input_texts(&bodies[0])
    );
    assert!(
        input_texts(&bodies[1]).contains(
            &"Error: the tool `write_file` is not allowed while the skill `commit` runs; allowed tools: shell, read_file".to_string()
        ),
        "{:#?}",
        input_texts(&bodies[1])
    );
    assert!(!dirs.cwd.path().join("notes.txt").exists());
}

#[test]
fn resume_with_a_smaller_model_compacts_with_the_recorded_model_and_announces_the_switch() {
    let dirs = dirs();
    std::fs::write(
        dirs.home.path().join("config.toml"),
        "model = \"big-model\"\n\
         [model_providers.openai.models.\"big-model\"]\ncontext_window = 200000\nmax_output_tokens = 4000\n\
         [model_providers.openai.models.\"small-model\"]\ncontext_window = 16000\nmax_output_tokens = 2000\n\
         [compact.session_memory]\nextraction_enabled = false\ncompact_enabled = false\n",
    )
    .unwrap();
    std::fs::write(dirs.cwd.path().join("notes.txt"), "one note\n").unwrap();
    let provider = MockProvider::start(vec![
        responses_sse(&[Out::Call {
            call_id: "call_read",
            name: "read_file",
            arguments: json!({"path": "notes.txt"}),
        }]),
        responses_sse(&[Out::Text("Noted.")]),
        responses_sse(&[Out::Text("The user shared long notes.")]),
        responses_sse(&[Out::Text("Small model here.")]),
    ]);
    let long_prompt = format!("Read these notes. {}", "note ".repeat(12_000));
    let first = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &["run", "--yes", &long_prompt],
        )
        .output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    let sessions = agentctx_rollout::discover_sessions(&dirs.home.path().join("sessions")).unwrap();
    let path = sessions[0].path.clone();
    // `rollout-<time>-<id>.jsonl`, the id a UUID.
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let id = stem.get(stem.len() - 36..).unwrap().to_string();

    let second = provider
        .agentctx(
            dirs.home.path(),
            dirs.cwd.path(),
            &[
                "run",
                "--yes",
                "--resume",
                &id,
                "--model",
                "small-model",
                "and now?",
            ],
        )
        .output()
        .unwrap();
    assert!(second.status.success(), "{second:?}");
    let stderr = String::from_utf8(second.stderr).unwrap();
    assert!(
        stderr.contains("warning: This session was recorded with model `big-model` but is resuming with `small-model`."),
        "{stderr}"
    );
    assert_eq!(
        String::from_utf8(second.stdout).unwrap(),
        "Small model here.\n"
    );

    let bodies = provider.agent_bodies();
    assert_eq!(bodies.len(), 4);
    // The summary is the recorded (bigger) model's; the turn is the new model's, told of the
    // switch.
    assert_eq!(bodies[2]["model"], "big-model");
    assert!(
        input_texts(&bodies[2])
            .iter()
            .any(|text| text.contains("CONTEXT CHECKPOINT COMPACTION")),
        "{:#?}",
        input_texts(&bodies[2])
    );
    assert_eq!(bodies[3]["model"], "small-model");
    let switches = input_texts(&bodies[3])
        .iter()
        .filter(|text| text.starts_with("<model_switch>"))
        .count();
    assert_eq!(switches, 1, "{:#?}", input_texts(&bodies[3]));

    // The session file records the switch: the resumed turn's turn_context names the new model.
    let rollout = std::fs::read_to_string(&path).unwrap();
    let models: Vec<String> = rollout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "turn_context")
        .map(|line| {
            line["payload"]["model"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(models, ["big-model", "small-model"]);
}
