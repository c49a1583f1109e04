//! The loop end to end in temporary repositories: commits with generated messages, the saved
//! context, iterations without changes, failures, resume, progress events.

use std::sync::Arc;
use std::sync::Mutex;

use agentctx_loop_driver::LoopCondition;
use agentctx_loop_driver::LoopConfig;
use agentctx_loop_driver::LoopContext;
use agentctx_loop_driver::LoopError;
use agentctx_loop_driver::LoopOutcome;
use agentctx_loop_driver::LoopProgressEvent;
use agentctx_loop_driver::TurnStatus;
use agentctx_model::ScriptedModelClient;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::scripted_agent::ScriptedAgent;
use super::scripted_agent::Turn;
use super::scripted_agent::driver;
use super::test_repo::TestRepo;

const TASK: &str = "Build the greeting module";

fn message(iteration: i32) -> String {
    format!("[iter-{iteration}] Add greeting part {iteration}\n\nWrote part {iteration}.")
}

#[tokio::test]
async fn three_iterations_make_three_commits_with_the_generated_messages() {
    let repo = TestRepo::with_commit();
    let base = repo.head();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![
            Turn::write("src/a.rs", "pub fn a() {}\n").with_reply("Added a."),
            Turn::write("src/b.rs", "pub fn b() {}\n").with_reply("Added b."),
            Turn::write("src/c.rs", "pub fn c() {}\n").with_reply("Added c."),
        ],
    );
    let model = ScriptedModelClient::new("summariser");
    for iteration in 0..3 {
        model.push_text(format!(
            "<summary>Iteration {iteration} wrote part {iteration}.</summary>"
        ));
        model.push_text(message(iteration));
    }
    let driver = driver(&repo, agent.clone(), &model, LoopConfig::default());

    let result = driver
        .run(LoopCondition::iterations(3), TASK, CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(
        (
            result.iterations_attempted,
            result.iterations_succeeded,
            result.iterations_failed
        ),
        (3, 3, 0)
    );
    // Three new commits on top of the base, newest first, with the model's messages.
    let commits = repo.commits();
    assert_eq!(commits.len(), 4);
    assert_eq!(commits.get(3), Some(&base));
    assert_eq!(
        repo.messages().get(..3).unwrap(),
        &[message(2), message(1), message(0)]
    );
    // The context records each commit, its files and its cleaned summary.
    let context = &result.context;
    assert_eq!(context.base_commit_id, base);
    assert_eq!(context.initial_prompt, TASK);
    assert_eq!(context.total_iterations, 3);
    let recorded: Vec<_> = context
        .iterations
        .iter()
        .map(|r| {
            (
                r.iteration,
                r.commit_id.clone().unwrap(),
                r.changed_files.clone(),
                r.summary.clone(),
                r.success,
            )
        })
        .collect();
    assert_eq!(
        recorded,
        vec![
            (
                0,
                commits[2].clone(),
                vec!["src/a.rs".to_owned()],
                "Iteration 0 wrote part 0.".to_owned(),
                true
            ),
            (
                1,
                commits[1].clone(),
                vec!["src/b.rs".to_owned()],
                "Iteration 1 wrote part 1.".to_owned(),
                true
            ),
            (
                2,
                commits[0].clone(),
                vec!["src/c.rs".to_owned()],
                "Iteration 2 wrote part 2.".to_owned(),
                true
            ),
        ]
    );
    // The saved file is the same context, with the outcome.
    let saved = LoopContext::load(&driver.context_path().await.unwrap()).unwrap();
    assert_eq!(&saved, context);
    assert_eq!(saved.outcome, Some(LoopOutcome::Completed));
    // Each commit holds exactly its iteration's file on top of the previous one.
    assert_eq!(repo.files_in(&commits[2]), vec!["README.md", "src/a.rs"]);
    // The next prompt tells the agent what the previous iterations committed.
    let prompts = agent.prompts();
    let short = &commits[2][..7];
    assert!(
        prompts[1].contains(&format!("### Iteration 0 → commit {short}\nFiles: src/a.rs\nSummary: Iteration 0 wrote part 0.\n")),
        "{}",
        prompts[1]
    );
    assert!(prompts[2].contains("Iteration: 3 of 3\n"));
    // The summariser saw this iteration's turn only, filtered.
    let summary_prompt = model.prompts()[2].input[0].message_text().unwrap();
    assert!(
        summary_prompt.contains("[assistant]: Added b."),
        "{summary_prompt}"
    );
    assert!(!summary_prompt.contains("Added a."), "{summary_prompt}");
}

#[tokio::test]
async fn an_iteration_without_changes_records_no_changes_and_makes_no_commit() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![
            Turn::write("notes.md", "one\n"),
            Turn::nothing().with_reply("Everything is already in place."),
        ],
    );
    // An empty script: every model call fails, so the fallbacks are used.
    let model = ScriptedModelClient::new("summariser");
    let driver = driver(&repo, agent.clone(), &model, LoopConfig::default());

    let result = driver
        .run(LoopCondition::iterations(2), TASK, CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(
        repo.commits().len(),
        2,
        "one commit for the first iteration only"
    );
    let second = &result.context.iterations[1];
    assert_eq!(second.commit_id, None);
    assert!(second.changed_files.is_empty());
    assert!(second.success);
    assert_eq!(second.commit_status(), "no changes");
    // The fallback commit message of the first iteration.
    assert!(
        repo.messages()[0].starts_with("[iter-0] Iteration 0 changes\n\n"),
        "{}",
        repo.messages()[0]
    );
}

#[tokio::test]
async fn a_failed_iteration_is_counted_and_the_loop_goes_on() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![
            Turn::write("a.txt", "a\n"),
            Turn::failing("the model returned an error"),
            Turn::submit_fails(),
            Turn::write("b.txt", "b\n"),
        ],
    );
    let model = ScriptedModelClient::new("summariser");
    let driver = driver(&repo, agent, &model, LoopConfig::default());

    let result = driver
        .run(LoopCondition::iterations(4), TASK, CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(result.outcome, LoopOutcome::Completed);
    assert_eq!(
        (
            result.iterations_attempted,
            result.iterations_succeeded,
            result.iterations_failed
        ),
        (4, 2, 2)
    );
    let failures: Vec<_> = result
        .context
        .iterations
        .iter()
        .map(|r| r.failure.clone())
        .collect();
    assert_eq!(
        failures,
        vec![
            None,
            Some("the turn failed: the model returned an error".to_owned()),
            Some("the prompt could not be submitted: the session is busy".to_owned()),
            None,
        ]
    );
    assert_eq!(repo.commits().len(), 3);
}

#[tokio::test]
async fn an_interrupted_loop_resumes_where_it_stopped() {
    let repo = TestRepo::with_commit();
    let first_agent = ScriptedAgent::new(
        repo.path(),
        vec![
            Turn::write("a.txt", "a\n"),
            Turn::write("b.txt", "b\n").with_status(TurnStatus::Interrupted {
                reason: "the session was shut down".to_owned(),
            }),
        ],
    );
    let model = ScriptedModelClient::new("summariser");
    let first = driver(&repo, first_agent, &model, LoopConfig::default());
    let stopped = first
        .run(LoopCondition::iterations(4), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        stopped.outcome,
        LoopOutcome::Interrupted {
            reason: "the session was shut down".to_owned()
        }
    );
    // The interrupted iteration's work was committed, so the tree is clean for the resume.
    assert_eq!(stopped.context.iterations.len(), 2);
    assert!(stopped.context.iterations[1].commit_id.is_some());
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // A process that died mid-loop leaves a context without an outcome: a new run refuses to
    // overwrite it, and a resume picks it up.
    let path = first.context_path().await.unwrap();
    let mut saved = LoopContext::load(&path).unwrap();
    saved.outcome = None;
    saved.save(&path).unwrap();
    let second_agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::write("c.txt", "c\n"), Turn::write("d.txt", "d\n")],
    );
    let second = driver(&repo, second_agent.clone(), &model, LoopConfig::default());
    let refused = second
        .run(LoopCondition::iterations(4), TASK, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, LoopError::UnfinishedLoop { .. }),
        "{refused:?}"
    );

    let resumed = second.resume(CancellationToken::new()).await.unwrap();
    assert_eq!(resumed.outcome, LoopOutcome::Completed);
    let numbers: Vec<_> = resumed
        .context
        .iterations
        .iter()
        .map(|r| r.iteration)
        .collect();
    assert_eq!(numbers, vec![0, 1, 2, 3]);
    assert_eq!(resumed.context.usage.total_tokens, 4_000);
    // The resumed prompt starts at iteration 3 of 4 and knows the earlier iterations.
    let prompt = &second_agent.prompts()[0];
    assert!(prompt.contains("Iteration: 3 of 4\n"), "{prompt}");
    assert!(prompt.contains("### Iteration 1 → commit "), "{prompt}");
    assert_eq!(repo.commits().len(), 5);
    // A completed loop cannot be resumed.
    let again = second.resume(CancellationToken::new()).await.unwrap_err();
    assert!(
        matches!(again, LoopError::AlreadyCompleted { .. }),
        "{again:?}"
    );
}

#[tokio::test]
async fn progress_events_report_every_iteration_and_the_end() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::write("a.txt", "a\n"), Turn::failing("boom")],
    );
    let model = ScriptedModelClient::new("summariser");
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let driver = driver(&repo, agent, &model, LoopConfig::default()).on_progress(move |event| {
        let line = match event {
            LoopProgressEvent::IterationStarted { iteration } => format!("start {iteration}"),
            LoopProgressEvent::IterationFinished { record, progress } => format!(
                "end {} ok={} totals={}/{}/{} tokens={}",
                record.iteration,
                record.success,
                progress.iteration,
                progress.succeeded,
                progress.failed,
                progress.total_tokens
            ),
            LoopProgressEvent::Finished { outcome } => format!("finished: {outcome}"),
        };
        seen.lock().unwrap().push(line);
    });

    driver
        .run(LoopCondition::iterations(2), TASK, CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(
        *events.lock().unwrap(),
        vec![
            "start 0",
            "end 0 ok=true totals=1/1/0 tokens=1000",
            "start 1",
            "end 1 ok=false totals=2/1/1 tokens=2000",
            "finished: completed",
        ]
    );
}

#[tokio::test]
async fn context_passing_off_sends_the_bare_prompt() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(repo.path(), vec![Turn::write("a.txt", "a\n")]);
    let model = ScriptedModelClient::new("summariser");
    let mut config = LoopConfig::default();
    config.context_passing.enabled = false;
    config.context_passing.auto_commit = false;
    let result = driver(&repo, agent.clone(), &model, config)
        .run(LoopCondition::iterations(1), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(agent.prompts(), vec![TASK.to_owned()]);
    // Auto-commit off: the change stays in the work tree and is recorded as not committed.
    assert_eq!(repo.commits().len(), 1);
    assert_eq!(
        result.context.iterations[0].commit_status(),
        "not committed"
    );
}

#[tokio::test]
async fn the_context_is_saved_after_every_iteration() {
    let repo = TestRepo::with_commit();
    let agent = ScriptedAgent::new(
        repo.path(),
        vec![Turn::write("a.txt", "a\n"), Turn::write("b.txt", "b\n")],
    );
    let model = ScriptedModelClient::new("summariser");
    let path = repo.path().join(".git/agentctx/loop-context.json");
    let saved = Arc::new(Mutex::new(Vec::new()));
    let seen = saved.clone();
    let watched = path.clone();
    let driver = driver(&repo, agent, &model, LoopConfig::default()).on_progress(move |event| {
        if let LoopProgressEvent::IterationFinished { .. } = event {
            let context = LoopContext::load(&watched).unwrap();
            seen.lock()
                .unwrap()
                .push((context.iterations.len(), context.outcome));
        }
    });
    driver
        .run(LoopCondition::iterations(2), TASK, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(*saved.lock().unwrap(), vec![(1, None), (2, None)]);
    // Canonical, as a temporary folder may sit behind a symlink.
    assert_eq!(
        std::fs::canonicalize(driver.context_path().await.unwrap()).unwrap(),
        std::fs::canonicalize(&path).unwrap()
    );
    assert_eq!(
        LoopContext::load(&path).unwrap().outcome,
        Some(LoopOutcome::Completed)
    );
}
