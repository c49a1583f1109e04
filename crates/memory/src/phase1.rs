//! Phase 1: per-rollout extraction. Claims eligible threads (one transaction each), then runs
//! up to [`CONCURRENCY_LIMIT`] extractions at once: load the session, keep what memory needs,
//! truncate it to the model's budget, call the model with the structured output schema (or
//! extract offline), honour the no-op gate, redact secrets, store. A session that cannot be
//! read fails its own job with the reason and is retried after the retry delay; it never stops
//! the others. See docs/design/memory.md, "Phase 1".

use std::sync::Arc;

use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::complete_structured;
use agentctx_protocol::ResponseItem;
use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::config::MemoryConfig;
use crate::error::MemoryError;
use crate::offline_extraction::extract_offline;
use crate::prompts::STAGE_ONE_SYSTEM;
use crate::prompts::stage_one_input;
use crate::redact::redact_secrets;
use crate::stage_one_budget::shrink_after_overflow;
use crate::stage_one_budget::stage_one_token_budget;
use crate::state_db::Stage1Claim;
use crate::state_db::Stage1ClaimParams;
use crate::state_db::Stage1Output;
use crate::state_db::StateDb;

/// Extractions run at once.
pub const CONCURRENCY_LIMIT: usize = 8;
/// Most threads scanned per startup.
pub const THREAD_SCAN_LIMIT: i64 = 5_000;
/// How many times a request the server finds too long is cut further and sent again.
const MAX_OVERFLOW_SHRINKS: usize = 2;
/// Longest slug kept from the model.
const MAX_MODEL_SLUG_CHARS: usize = 80;

/// The structured output of the stage-one model call.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StageOneOutput {
    /// A markdown summary of the rollout (empty: nothing worth remembering).
    pub rollout_summary: String,
    /// A filesystem-safe slug (may be empty).
    pub rollout_slug: String,
    /// The raw memory (empty: nothing worth remembering).
    pub raw_memory: String,
}

/// Who extracts: a model, or the offline extraction.
#[derive(Clone)]
pub enum Extractor {
    /// Structured calls to this model.
    Model(Arc<dyn ModelClient>),
    /// No model: the deterministic extraction from the session's digest.
    Offline,
}

/// What one phase-1 run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Phase1Report {
    /// Jobs claimed.
    pub claimed: usize,
    /// Jobs that stored an output.
    pub succeeded_with_output: usize,
    /// Jobs the no-op gate closed.
    pub succeeded_no_output: usize,
    /// Jobs that failed (retried after the delay).
    pub failed: usize,
    /// The reason of the first job that failed, when one did.
    pub first_error: Option<String>,
    /// Jobs another worker took over before this one finished.
    pub lost: usize,
}

enum JobResult {
    Output,
    NoOutput,
    Failed(String),
    Lost,
}

/// Claims up to `config.max_rollouts_per_startup` jobs and runs them.
pub async fn run_phase1(
    db: &StateDb,
    config: &MemoryConfig,
    extractor: &Extractor,
) -> Result<Phase1Report, MemoryError> {
    let params = Stage1ClaimParams {
        current_thread_id: config.current_thread_id.clone(),
        scan_limit: THREAD_SCAN_LIMIT,
        max_claimed: config.max_rollouts_per_startup,
        max_age_days: config.max_rollout_age_days,
        min_idle_hours: config.min_rollout_idle_hours,
        allowed_sources: config.allowed_sources.clone(),
        lease_seconds: config.stage1_lease_seconds,
    };
    let claims = db
        .claim_stage1_jobs(&params, &config.worker_id, config.clock.now())
        .await?;
    let mut report = Phase1Report {
        claimed: claims.len(),
        ..Phase1Report::default()
    };
    let mut results = futures::stream::iter(claims)
        .map(|claim| run_job(db, config, extractor, claim))
        .buffer_unordered(CONCURRENCY_LIMIT);
    while let Some(result) = results.next().await {
        match result? {
            JobResult::Output => report.succeeded_with_output += 1,
            JobResult::NoOutput => report.succeeded_no_output += 1,
            JobResult::Failed(reason) => {
                report.failed += 1;
                report.first_error.get_or_insert(reason);
            }
            JobResult::Lost => report.lost += 1,
        }
    }
    Ok(report)
}

async fn run_job(
    db: &StateDb,
    config: &MemoryConfig,
    extractor: &Extractor,
    claim: Stage1Claim,
) -> Result<JobResult, MemoryError> {
    let extracted = extract(&claim, extractor).await;
    let now = config.clock.now();
    let (stored, kind) = match extracted {
        Ok(Some(output)) => (
            db.mark_stage1_succeeded(&claim, &output, now).await,
            JobResult::Output,
        ),
        Ok(None) => (
            db.mark_stage1_succeeded_no_output(&claim, now).await,
            JobResult::NoOutput,
        ),
        Err(error) => {
            let reason = error.to_string();
            tracing::warn!(thread = %claim.thread.id, path = %claim.thread.rollout_path.display(), %reason, "memory extraction failed; retried later");
            let owned = db
                .mark_stage1_failed(&claim, &reason, config.stage1_retry_delay_seconds, now)
                .await?;
            return Ok(if owned {
                JobResult::Failed(reason)
            } else {
                JobResult::Lost
            });
        }
    };
    match stored {
        Ok(()) => Ok(kind),
        Err(MemoryError::LostOwnership { .. }) => Ok(JobResult::Lost),
        Err(error) => Err(error),
    }
}

/// Loads the session and extracts its output; `Ok(None)` when nothing is worth remembering.
async fn extract(
    claim: &Stage1Claim,
    extractor: &Extractor,
) -> Result<Option<Stage1Output>, MemoryError> {
    let path = claim.thread.rollout_path.clone();
    let items = tokio::task::spawn_blocking(move || load_items(&path))
        .await
        .map_err(|error| MemoryError::Task(format!("session reader: {error}")))??;
    let output = match extractor {
        Extractor::Offline => extract_offline(&claim.thread, &items),
        Extractor::Model(model) => {
            from_model(extract_with_model(model.as_ref(), claim, &items).await?)
        }
    };
    Ok(output.map(redact_output))
}

/// Asks `model` for the stage-one output of a session: the session cut to the budget of the
/// model's window ([`stage_one_token_budget`]), and cut further when the server still finds the
/// request too long (at most [`MAX_OVERFLOW_SHRINKS`] times).
async fn extract_with_model(
    model: &dyn ModelClient,
    claim: &Stage1Claim,
    items: &[ResponseItem],
) -> Result<StageOneOutput, MemoryError> {
    let info = model.model_info();
    let too_small = || MemoryError::WindowTooSmall {
        context_window: info.context_window,
    };
    let mut budget = stage_one_token_budget(Some(info.context_window), info.max_output_tokens)
        .ok_or_else(too_small)?;
    let mut shrinks = 0;
    loop {
        let input = stage_one_input(
            &claim.thread.rollout_path,
            claim.thread.cwd.as_deref(),
            items,
            budget,
        );
        match complete_structured(model, STAGE_ONE_SYSTEM, &input).await {
            Err(error @ ModelError::ContextWindowExceeded { .. })
                if shrinks < MAX_OVERFLOW_SHRINKS =>
            {
                let smaller = shrink_after_overflow(budget, error.context_overflow())
                    .ok_or_else(too_small)?;
                tracing::info!(thread = %claim.thread.id, budget, smaller, %error, "the stage-one request overflowed the window; cutting the session further");
                budget = smaller;
                shrinks += 1;
            }
            result => return Ok(result?),
        }
    }
}

/// The items of a session file.
pub(crate) fn load_items(path: &std::path::Path) -> Result<Vec<ResponseItem>, MemoryError> {
    let file = agentctx_rollout::read_rollout(path)?;
    Ok(file.items().cloned().collect())
}

/// The no-op gate on a model reply: an empty raw memory or summary means nothing to store.
pub(crate) fn from_model(reply: StageOneOutput) -> Option<Stage1Output> {
    if reply.raw_memory.trim().is_empty() || reply.rollout_summary.trim().is_empty() {
        return None;
    }
    let slug: String = reply
        .rollout_slug
        .trim()
        .chars()
        .take(MAX_MODEL_SLUG_CHARS)
        .collect();
    Some(Stage1Output {
        raw_memory: reply.raw_memory,
        rollout_summary: reply.rollout_summary,
        rollout_slug: Some(slug).filter(|s| !s.is_empty()),
    })
}

/// Redaction of everything stored, slug included.
pub(crate) fn redact_output(output: Stage1Output) -> Stage1Output {
    Stage1Output {
        raw_memory: redact_secrets(&output.raw_memory),
        rollout_summary: redact_secrets(&output.rollout_summary),
        rollout_slug: output.rollout_slug.map(|slug| redact_secrets(&slug)),
    }
}
