//! Both phases with the scripted model: extraction with the structured output, the no-op gate,
//! redaction before storage, and consolidation in INIT then INCREMENTAL mode.

use std::sync::Arc;

use agentctx_memory::ConsolidationMode;
use agentctx_memory::Extractor;
use agentctx_memory::MEMORY_FILE;
use agentctx_memory::MEMORY_SUMMARY_FILE;
use agentctx_memory::ModelConsolidator;
use agentctx_memory::Phase2Outcome;
use agentctx_memory::RAW_MEMORIES_FILE;
use agentctx_memory::STAGE_ONE_SYSTEM;
use agentctx_memory::StateDb;
use agentctx_memory::memory_root;
use agentctx_model::ModelClient;
use agentctx_model::ScriptedModelClient;
use pretty_assertions::assert_eq;

use super::support::config;
use super::support::pipeline;
use super::support::write_session;

fn stage_one(summary: &str, slug: &str, raw: &str) -> String {
    serde_json::json!({"rollout_summary": summary, "rollout_slug": slug, "raw_memory": raw})
        .to_string()
}

fn consolidation(memory: &str, summary: &str) -> String {
    serde_json::json!({"memory_md": memory, "memory_summary": summary, "skills": [
        {"name": "Run Tests", "content": "---\nname: run-tests\ndescription: run the tests\n---\n1. cargo test\n"}
    ]})
    .to_string()
}

#[tokio::test]
async fn scripted_model_runs_both_phases_init_then_incremental() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path(), "/src/app", "Fix the login test");
    let model = ScriptedModelClient::new("memory-model");
    model.push_text(stage_one(
        "Fixed the login test with `cargo test -p auth`. Key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123 was in the env.",
        "fix_login_test",
        "# Fixed the login test\n## Task: fix login\nOutcome: success\n- cargo test -p auth",
    ));
    model.push_text(consolidation(
        "# Task Group: app\nscope: /src/app\n",
        "## User Profile\nlikes tests\n",
    ));
    let client: Arc<dyn ModelClient> = Arc::new(model.clone());
    let run = pipeline(
        config(home.path()),
        Extractor::Model(Arc::clone(&client)),
        Arc::new(ModelConsolidator::new(Arc::clone(&client))),
    );

    let first = run.run_once().await.unwrap();
    assert_eq!(first.phase1.succeeded_with_output, 1);
    assert_eq!(
        first.phase2,
        Phase2Outcome::Consolidated {
            mode: ConsolidationMode::Init,
            new_outputs: 1,
            watermark: 1
        }
    );
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 2);
    // Phase 1: the stage-one system prompt, the rollout in the input, the schema attached.
    assert_eq!(prompts[0].instructions, STAGE_ONE_SYSTEM);
    let input = prompts[0].input[0].message_text().unwrap();
    assert!(input.contains("Fix the login test"), "{input}");
    let schema = prompts[0].output_schema.clone().unwrap();
    let mut required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["raw_memory", "rollout_slug", "rollout_summary"]);
    assert_eq!(schema["additionalProperties"], serde_json::json!(false));
    // Phase 2: INIT with the new raw memory.
    assert!(prompts[1].instructions.contains("Mode: INIT"));
    assert!(prompts[1].instructions.contains("## Task: fix login"));

    let root = memory_root(home.path());
    let summaries: Vec<_> = std::fs::read_dir(root.join("rollout_summaries"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(summaries.len(), 1);
    assert!(
        summaries[0].ends_with("-fix_login_test.md"),
        "{summaries:?}"
    );
    let stored =
        std::fs::read_to_string(root.join("rollout_summaries").join(&summaries[0])).unwrap();
    assert!(stored.contains("[REDACTED_SECRET]"), "{stored}");
    assert!(!stored.contains("sk-proj-"), "{stored}");
    assert_eq!(
        std::fs::read_to_string(root.join(MEMORY_FILE)).unwrap(),
        "# Task Group: app\nscope: /src/app\n"
    );
    assert!(root.join("skills/run-tests/SKILL.md").exists());

    // A second session: INCREMENTAL, and only the new raw memory is in the prompt.
    write_session(home.path(), "/src/app", "Add a logout button");
    model.push_text(stage_one(
        "Added a logout button.",
        "logout_button",
        "# Logout\n## Task: logout button\nOutcome: success",
    ));
    model.push_text(consolidation(
        "# Task Group: app\nscope: /src/app\n## Task 2: logout\n",
        "## User Profile\nlikes tests\n",
    ));
    let second = run.run_once().await.unwrap();
    assert_eq!(second.phase1.succeeded_with_output, 1);
    assert_eq!(
        second.phase2,
        Phase2Outcome::Consolidated {
            mode: ConsolidationMode::Incremental,
            new_outputs: 1,
            watermark: 2
        }
    );
    let prompts = model.prompts();
    let incremental = &prompts[3].instructions;
    assert!(incremental.contains("Mode: INCREMENTAL"));
    assert!(incremental.contains("## Task: logout button"));
    assert!(
        !incremental.contains("## Task: fix login"),
        "old memories are not new input"
    );
    assert!(
        incremental.contains("# Task Group: app"),
        "the current MEMORY.md is given"
    );
    let raw = std::fs::read_to_string(root.join(RAW_MEMORIES_FILE)).unwrap();
    let logout = raw.find("logout button").unwrap();
    let login = raw.find("fix login").unwrap();
    assert!(logout < login, "raw_memories.md is newest first");

    // Nothing new: no model call, no consolidation.
    let third = run.run_once().await.unwrap();
    assert_eq!(third.phase1.claimed, 0);
    assert_eq!(third.phase2, Phase2Outcome::SkippedNotDirty);
    assert_eq!(model.prompts().len(), 4);
}

#[tokio::test]
async fn no_op_gate_stores_nothing_and_does_not_retry() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path(), "/src/app", "hi");
    let model = ScriptedModelClient::new("memory-model");
    model.push_text(stage_one("", "", ""));
    let client: Arc<dyn ModelClient> = Arc::new(model.clone());
    let run = pipeline(
        config(home.path()),
        Extractor::Model(Arc::clone(&client)),
        Arc::new(ModelConsolidator::new(client)),
    );
    let report = run.run_once().await.unwrap();
    assert_eq!(report.phase1.succeeded_no_output, 1);
    assert_eq!(report.phase1.succeeded_with_output, 0);
    assert_eq!(report.phase2, Phase2Outcome::SkippedNotDirty);
    assert!(!memory_root(home.path()).join(MEMORY_SUMMARY_FILE).exists());

    // The job is done: the next run does not ask the model again.
    let again = run.run_once().await.unwrap();
    assert_eq!(again.phase1.claimed, 0);
    assert_eq!(model.prompts().len(), 1);
    let db = StateDb::open(home.path()).await.unwrap();
    let jobs = db.jobs().await.unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!((jobs[0].status.as_str(), jobs[0].completions), ("done", 1));
}

#[tokio::test]
async fn a_malformed_model_reply_fails_the_job_with_its_reason() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path(), "/src/app", "Fix the login test");
    let model = ScriptedModelClient::new("memory-model");
    // A rejected reply is asked for once more before the job fails.
    model.push_text("not json at all");
    model.push_text("still not json");
    let client: Arc<dyn ModelClient> = Arc::new(model);
    let run = pipeline(
        config(home.path()),
        Extractor::Model(Arc::clone(&client)),
        Arc::new(ModelConsolidator::new(client)),
    );
    let report = run.run_once().await.unwrap();
    assert_eq!(report.phase1.failed, 1);
    let db = StateDb::open(home.path()).await.unwrap();
    let job = db.jobs().await.unwrap().remove(0);
    assert_eq!(job.status, "error");
    assert!(job.last_error.unwrap().contains("still not json"));
    assert_eq!(job.retry_remaining, 2);
}
