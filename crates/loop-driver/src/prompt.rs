//! The enhanced prompt every iteration receives: a `<task_context>` block with the original
//! task, the plan, the progress and the previous iterations, the instruction not to commit
//! (the driver commits), then the prompt itself. The texts are quoted in
//! docs/design/loop-driver.md, "The enhanced prompt", and pinned by snapshots.

use crate::context::IterationRecord;
use crate::context::LoopContext;
use crate::context::short_commit;

/// The context block; `{plan_section}` is empty without a plan.
pub const LOOP_CONTEXT_TEMPLATE: &str = "<task_context>
## Original Task
{initial_prompt}

{plan_section}## Progress
Iteration: {current} of {total}
Base commit: {base_commit_id}

## Previous Iterations
{iteration_records}
</task_context>

IMPORTANT:
- DO NOT run git commit yourself - the system handles commits automatically
- Focus on making improvements and refinements based on previous work
- You can use git diff/log to review detailed changes if needed
- Each iteration should build upon the previous ones
";

/// The plan section, present when the loop has a plan.
pub const PLAN_SECTION_TEMPLATE: &str = "## Plan
{plan_content}

";

/// One previous iteration.
pub const ITERATION_RECORD_TEMPLATE: &str = "### Iteration {iteration} → {commit_status}
Files: {files}
Summary: {summary}
";

/// What "Previous Iterations" says in the first iteration.
pub const NO_PREVIOUS_ITERATIONS: &str = "None yet: this is the first iteration.\n";

/// What "Base commit" says when the repository had no commits when the loop started.
pub const NO_BASE_COMMIT: &str = "none (the repository had no commits yet)";

/// The prompt of iteration `iteration` (from 0): the context block of `context` and its
/// instructions, one blank line, then `original` (the user's prompt).
pub fn build_enhanced_prompt(original: &str, iteration: i32, context: &LoopContext) -> String {
    format!(
        "{}\n\n{original}",
        context_block(iteration, context).trim_end()
    )
}

/// The `<task_context>` block and the instructions after it, for iteration `iteration`.
pub(crate) fn context_block(iteration: i32, context: &LoopContext) -> String {
    let plan_section = match &context.plan_content {
        Some(plan) if !plan.trim().is_empty() => {
            fill(PLAN_SECTION_TEMPLATE, &[("plan_content", plan.trim_end())])
        }
        _ => String::new(),
    };
    let records = if context.iterations.is_empty() {
        NO_PREVIOUS_ITERATIONS.to_owned()
    } else {
        context
            .iterations
            .iter()
            .map(format_record)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let total = if context.total_iterations > 0 {
        context.total_iterations.to_string()
    } else {
        "ongoing".to_owned()
    };
    let base = if context.base_commit_id.is_empty() {
        NO_BASE_COMMIT.to_owned()
    } else {
        short_commit(&context.base_commit_id)
    };
    let current = iteration.saturating_add(1).to_string();
    fill(
        LOOP_CONTEXT_TEMPLATE,
        &[
            ("initial_prompt", context.initial_prompt.trim_end()),
            ("plan_section", &plan_section),
            ("current", &current),
            ("total", &total),
            ("base_commit_id", &base),
            ("iteration_records", &records),
        ],
    )
}

fn format_record(record: &IterationRecord) -> String {
    fill(
        ITERATION_RECORD_TEMPLATE,
        &[
            ("iteration", &record.iteration.to_string()),
            ("commit_status", &record.commit_status()),
            ("files", &record.files_display()),
            ("summary", record.summary.trim()),
        ],
    )
}

/// Replaces each `{name}` of `template` with its value in one pass, so a value that itself
/// contains `{summary}` or another placeholder (a task about templates, say) is inserted
/// verbatim and never substituted again. Unknown placeholders are kept as written.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        out.push_str(before);
        let name_and_rest = from_brace.get(1..).unwrap_or_default();
        let replaced = name_and_rest.find('}').and_then(|close| {
            let name = name_and_rest.get(..close)?;
            let value = values.iter().find(|(key, _)| *key == name)?.1;
            Some((value, name_and_rest.get(close + 1..).unwrap_or_default()))
        });
        match replaced {
            Some((value, after)) => {
                out.push_str(value);
                rest = after;
            }
            None => {
                out.push('{');
                rest = name_and_rest;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
