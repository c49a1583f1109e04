//! The orchestrator: concurrency, timeout, isolation, tiers, switches, ordering, throttle,
//! telemetry sampling.

use std::time::Duration;

use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::GeneratorStatus;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use pretty_assertions::assert_eq;
use tokio::time::Instant;

use super::scripted::Behaviour;
use super::scripted::scripted;

fn contents(reminders: &[agentctx_reminders::SystemReminder]) -> Vec<&str> {
    reminders
        .iter()
        .map(|reminder| reminder.content.as_str())
        .collect()
}

/// Each generator's name and status in a report, in catalogue order.
fn statuses(report: &agentctx_reminders::GenerationReport) -> Vec<(String, GeneratorStatus)> {
    report
        .outcomes
        .iter()
        .map(|outcome| (outcome.name.clone(), outcome.status.clone()))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn slow_failing_and_panicking_generators_do_not_cascade() {
    let orchestrator = SystemReminderOrchestrator::with_generators(
        SystemReminderConfig::default(),
        vec![
            scripted(
                "sleepy",
                AttachmentType::PlanMode,
                Behaviour::SleepThenReply(Duration::from_secs(30), "never arrives"),
            ),
            scripted("failing", AttachmentType::TodoReminder, Behaviour::Fail),
            scripted("panicking", AttachmentType::ChangedFiles, Behaviour::Panic),
            scripted(
                "quick",
                AttachmentType::CriticalInstruction,
                Behaviour::Reply("quick one"),
            ),
            scripted(
                "slowish",
                AttachmentType::BudgetUsd,
                Behaviour::SleepThenReply(Duration::from_millis(900), "slow but in time"),
            ),
        ],
    )
    .with_sampler_seed(7);
    let ctx = GeneratorContext::new("/p");
    let start = Instant::now();
    let report = orchestrator.generate_all_with_report(&ctx).await;
    // On tokio's paused clock: the call returns exactly when the slow generator times out.
    assert_eq!(start.elapsed(), Duration::from_millis(1_000));
    assert_eq!(
        contents(&report.reminders),
        vec!["quick one", "slow but in time"]
    );
    assert_eq!(
        statuses(&report),
        vec![
            ("sleepy".to_string(), GeneratorStatus::TimedOut),
            (
                "failing".to_string(),
                GeneratorStatus::Failed("failing: scripted failure".to_string())
            ),
            (
                "panicking".to_string(),
                GeneratorStatus::Panicked("scripted panic in panicking".to_string())
            ),
            ("quick".to_string(), GeneratorStatus::Produced),
            ("slowish".to_string(), GeneratorStatus::Produced),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_timeout_is_configurable_and_a_slow_generator_in_time_arrives() {
    let config = SystemReminderConfig {
        timeout_ms: Some(2_500),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::with_generators(
        config,
        vec![
            scripted(
                "slow",
                AttachmentType::PlanMode,
                Behaviour::SleepThenReply(Duration::from_millis(2_000), "slow"),
            ),
            scripted(
                "too slow",
                AttachmentType::TodoReminder,
                Behaviour::SleepThenReply(Duration::from_millis(3_000), "too slow"),
            ),
        ],
    );
    assert_eq!(orchestrator.timeout(), Duration::from_millis(2_500));
    let start = Instant::now();
    let reminders = orchestrator
        .generate_all(&GeneratorContext::new("/p"))
        .await;
    assert_eq!(start.elapsed(), Duration::from_millis(2_500));
    assert_eq!(contents(&reminders), vec!["slow"]);
}

#[tokio::test(start_paused = true)]
async fn generators_run_in_parallel_under_the_timeout() {
    let generators = [
        AttachmentType::PlanMode,
        AttachmentType::TodoReminder,
        AttachmentType::CriticalInstruction,
    ]
    .into_iter()
    .map(|attachment_type| {
        scripted(
            attachment_type.as_str(),
            attachment_type,
            Behaviour::SleepThenReply(Duration::from_millis(600), "done"),
        )
    })
    .collect();
    let orchestrator =
        SystemReminderOrchestrator::with_generators(SystemReminderConfig::default(), generators);
    let start = Instant::now();
    let reminders = orchestrator
        .generate_all(&GeneratorContext::new("/p"))
        .await;
    // Three 600 ms generators take 600 ms together, not 1,800 ms, and all fit in 1 s.
    assert_eq!(start.elapsed(), Duration::from_millis(600));
    assert_eq!(reminders.len(), 3);
    assert_eq!(orchestrator.timeout(), Duration::from_millis(1_000));
}

#[tokio::test]
async fn output_is_ordered_user_prompt_then_core_then_main_agent_in_catalogue_order() {
    // Registered in scrambled order.
    let orchestrator = SystemReminderOrchestrator::with_generators(
        SystemReminderConfig::default(),
        vec![
            scripted(
                "budget",
                AttachmentType::BudgetUsd,
                Behaviour::Reply("budget"),
            ),
            scripted(
                "todo",
                AttachmentType::TodoReminder,
                Behaviour::Reply("todo"),
            ),
            scripted("ide", AttachmentType::IdeSelection, Behaviour::Reply("ide")),
            scripted(
                "at",
                AttachmentType::AtMentionedFiles,
                Behaviour::Reply("at"),
            ),
            scripted(
                "changed",
                AttachmentType::ChangedFiles,
                Behaviour::Reply("changed"),
            ),
            scripted(
                "agents",
                AttachmentType::AgentMentions,
                Behaviour::Reply("agents"),
            ),
        ],
    );
    let ctx = GeneratorContext::new("/p").with_user_prompt("hello");
    let reminders = orchestrator.generate_all(&ctx).await;
    assert_eq!(
        contents(&reminders),
        vec!["at", "agents", "changed", "todo", "ide", "budget"]
    );
}

#[tokio::test]
async fn tiers_user_prompt_needs_input_and_main_agent_needs_the_main_agent() {
    let orchestrator = SystemReminderOrchestrator::with_generators(
        SystemReminderConfig::default(),
        vec![
            scripted(
                "at",
                AttachmentType::AtMentionedFiles,
                Behaviour::Reply("user prompt"),
            ),
            scripted(
                "critical",
                AttachmentType::CriticalInstruction,
                Behaviour::Reply("core"),
            ),
            scripted(
                "task",
                AttachmentType::BackgroundTask,
                Behaviour::Reply("main agent"),
            ),
        ],
    );
    let mut ctx = GeneratorContext::new("/p");
    assert_eq!(
        contents(&orchestrator.generate_all(&ctx).await),
        vec!["core", "main agent"]
    );
    ctx.is_main_agent = false;
    ctx.has_user_input = true;
    ctx.turn_number = 2;
    // The user's input starts a user turn: the standing critical instruction may come again.
    ctx.user_turns = 1;
    assert_eq!(
        contents(&orchestrator.generate_all(&ctx).await),
        vec!["user prompt", "core"]
    );
}

#[tokio::test]
async fn master_switch_disables_everything() {
    let config = SystemReminderConfig {
        enabled: false,
        critical_instruction: Some("still nothing".to_string()),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let ctx = GeneratorContext::new("/p").with_config(&config);
    let report = orchestrator.generate_all_with_report(&ctx).await;
    assert_eq!(report.reminders, Vec::new());
    assert_eq!(report.outcomes, Vec::new(), "no generator even ran");
    // The same context with the switch on does produce the critical instruction.
    let enabled = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    assert_eq!(enabled.generate_all(&ctx).await.len(), 1);
}

#[tokio::test]
async fn per_attachment_switch_disables_one_type() {
    let mut config = SystemReminderConfig::default();
    config
        .attachments
        .set_enabled(AttachmentType::TodoReminder, false);
    let orchestrator = SystemReminderOrchestrator::with_generators(
        config,
        vec![
            scripted(
                "todo",
                AttachmentType::TodoReminder,
                Behaviour::Reply("todo"),
            ),
            scripted("plan", AttachmentType::PlanMode, Behaviour::Reply("plan")),
        ],
    );
    let reminders = orchestrator
        .generate_all(&GeneratorContext::new("/p"))
        .await;
    assert_eq!(contents(&reminders), vec!["plan"]);
}

#[tokio::test]
async fn the_orchestrator_applies_and_records_the_throttle() {
    let orchestrator = SystemReminderOrchestrator::with_generators(
        SystemReminderConfig::default(),
        vec![
            scripted("plan", AttachmentType::PlanMode, Behaviour::Reply("plan")),
            scripted("silent", AttachmentType::TaskProgress, Behaviour::Silent),
        ],
    );
    let mut ctx = GeneratorContext::new("/p");
    let mut fired = Vec::new();
    for turn in 1..=11 {
        ctx.turn_number = turn;
        // Each turn a user turn of its own: the within-turn rule of standing reminders would
        // hold back the unchanged text.
        ctx.user_turns = turn;
        let report = orchestrator.generate_all_with_report(&ctx).await;
        if !report.reminders.is_empty() {
            fired.push(turn);
        }
        let silent = report
            .outcomes
            .iter()
            .find(|outcome| outcome.name == "silent")
            .map(|outcome| outcome.status.clone());
        assert_eq!(
            silent,
            Some(GeneratorStatus::Empty),
            "silent never fires, never throttles"
        );
    }
    assert_eq!(fired, vec![1, 6, 11]);
    assert_eq!(ctx.throttle.session_count(AttachmentType::PlanMode), 3);
    assert_eq!(ctx.throttle.session_count(AttachmentType::TaskProgress), 0);
}

fn sampled_flags(seed: u64, rate: f64, turns: i32) -> Vec<bool> {
    let config = SystemReminderConfig {
        telemetry_sample_rate: rate,
        ..SystemReminderConfig::default()
    };
    let generators = (0..10)
        .map(|_| scripted("g", AttachmentType::ChangedFiles, Behaviour::Silent))
        .collect();
    let orchestrator =
        SystemReminderOrchestrator::with_generators(config, generators).with_sampler_seed(seed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut flags = Vec::new();
    for turn in 1..=turns {
        let mut ctx = GeneratorContext::new("/p");
        ctx.turn_number = turn;
        let report = runtime.block_on(orchestrator.generate_all_with_report(&ctx));
        flags.extend(report.outcomes.iter().map(|outcome| outcome.sampled));
    }
    flags
}

#[test]
fn telemetry_is_sampled_at_five_percent_reproducibly_with_a_seed() {
    let first = sampled_flags(42, 0.05, 200);
    assert_eq!(
        first,
        sampled_flags(42, 0.05, 200),
        "same seed, same samples"
    );
    let share = first.iter().filter(|sampled| **sampled).count() as f64 / first.len() as f64;
    assert!((0.03..=0.07).contains(&share), "sampled share {share}");
    assert!(sampled_flags(1, 0.0, 5).iter().all(|sampled| !sampled));
    assert!(sampled_flags(1, 1.0, 5).iter().all(|sampled| *sampled));
    assert_eq!(SystemReminderConfig::default().telemetry_sample_rate, 0.05);
}

#[derive(Debug, Default)]
struct Remembering {
    resets: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl agentctx_reminders::AttachmentGenerator for Remembering {
    fn name(&self) -> &str {
        "remembering"
    }

    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanMode
    }

    fn reset(&self) {
        self.resets
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    async fn generate(
        &self,
        _ctx: &GeneratorContext,
    ) -> Result<Option<agentctx_reminders::SystemReminder>, agentctx_reminders::GeneratorError>
    {
        Ok(Some(agentctx_reminders::SystemReminder::new(
            AttachmentType::PlanMode,
            "plan",
        )))
    }
}

#[tokio::test]
async fn reset_clears_generators_throttle_and_loaded_memory_files() {
    let remembering = std::sync::Arc::new(Remembering::default());
    let orchestrator = SystemReminderOrchestrator::with_generators(
        SystemReminderConfig::default(),
        vec![remembering.clone()],
    );
    let mut ctx = GeneratorContext::new("/p");
    assert_eq!(orchestrator.generate_all(&ctx).await.len(), 1);
    ctx.turn_number = 2;
    assert_eq!(orchestrator.generate_all(&ctx).await.len(), 0, "throttled");
    ctx.file_tracker
        .mark_memory_file_loaded(std::path::Path::new("/p/AGENTS.md"));

    orchestrator.reset(&ctx);
    assert_eq!(
        remembering.resets.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    assert!(
        !ctx.file_tracker
            .is_memory_file_loaded(std::path::Path::new("/p/AGENTS.md"))
    );
    assert_eq!(
        orchestrator.generate_all(&ctx).await.len(),
        1,
        "fires again"
    );
}

/// A generator whose answer at once (`generate_now`) is scripted, and which counts the runs of
/// its `generate`.
#[derive(Debug)]
struct AnswersAtOnce {
    name: &'static str,
    attachment_type: AttachmentType,
    now: fn() -> Option<agentctx_reminders::GeneratorResult>,
    generated: std::sync::atomic::AtomicUsize,
}

impl AnswersAtOnce {
    fn new(
        name: &'static str,
        attachment_type: AttachmentType,
        now: fn() -> Option<agentctx_reminders::GeneratorResult>,
    ) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            name,
            attachment_type,
            now,
            generated: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    fn generated(&self) -> usize {
        self.generated.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl agentctx_reminders::AttachmentGenerator for AnswersAtOnce {
    fn name(&self) -> &str {
        self.name
    }

    fn attachment_type(&self) -> AttachmentType {
        self.attachment_type
    }

    fn generate_now(&self, _ctx: &GeneratorContext) -> Option<agentctx_reminders::GeneratorResult> {
        (self.now)()
    }

    async fn generate(&self, _ctx: &GeneratorContext) -> agentctx_reminders::GeneratorResult {
        self.generated
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
        Ok(Some(agentctx_reminders::SystemReminder::new(
            self.attachment_type,
            format!("{} generated", self.name),
        )))
    }
}

#[tokio::test(start_paused = true)]
async fn an_answer_at_once_is_taken_without_running_generate() {
    let produced = AnswersAtOnce::new("produced", AttachmentType::PlanMode, || {
        Some(Ok(Some(agentctx_reminders::SystemReminder::new(
            AttachmentType::PlanMode,
            "at once",
        ))))
    });
    let empty = AnswersAtOnce::new("empty", AttachmentType::TodoReminder, || Some(Ok(None)));
    let failed = AnswersAtOnce::new("failed", AttachmentType::BudgetUsd, || {
        Some(Err(agentctx_reminders::GeneratorError::Invalid {
            generator: "failed".to_string(),
            message: "no budget".to_string(),
        }))
    });
    let panicking = AnswersAtOnce::new("panicking", AttachmentType::ChangedFiles, || {
        panic!("panic at once")
    });
    let awaits = AnswersAtOnce::new("awaits", AttachmentType::CriticalInstruction, || None);
    let generators: Vec<std::sync::Arc<dyn agentctx_reminders::AttachmentGenerator>> = vec![
        produced.clone(),
        empty.clone(),
        failed.clone(),
        panicking.clone(),
        awaits.clone(),
    ];
    let orchestrator =
        SystemReminderOrchestrator::with_generators(SystemReminderConfig::default(), generators);
    let report = orchestrator
        .generate_all_with_report(&GeneratorContext::new("/p"))
        .await;

    assert_eq!(
        contents(&report.reminders),
        vec!["at once", "awaits generated"]
    );
    assert_eq!(
        statuses(&report),
        vec![
            ("produced".to_string(), GeneratorStatus::Produced),
            ("empty".to_string(), GeneratorStatus::Empty),
            (
                "failed".to_string(),
                GeneratorStatus::Failed("failed: no budget".to_string())
            ),
            (
                "panicking".to_string(),
                GeneratorStatus::Panicked("panic at once".to_string())
            ),
            ("awaits".to_string(), GeneratorStatus::Produced),
        ]
    );
    let runs: Vec<usize> = [&produced, &empty, &failed, &panicking, &awaits]
        .iter()
        .map(|generator| generator.generated())
        .collect();
    assert_eq!(
        runs,
        vec![0, 0, 0, 0, 1],
        "only the generator with no answer at once ran"
    );
}
