//! Consolidation without a model: a deterministic merge of raw memories into `MEMORY.md`
//! (task groups by working directory, one task per rollout) and a `memory_summary.md` derived
//! from it. INIT builds the handbook from every retained output; INCREMENTAL keeps the existing
//! handbook (whoever wrote it), replaces the tasks of re-extracted rollouts, drops those of
//! rollouts no longer retained and adds the new ones. See docs/design/memory.md, "Offline
//! consolidation".

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use async_trait::async_trait;

use crate::consolidator::ConsolidationInput;
use crate::consolidator::ConsolidationMode;
use crate::consolidator::ConsolidationOutput;
use crate::consolidator::Consolidator;
use crate::error::MemoryError;
use crate::state_db::StoredOutput;
use crate::storage::ROLLOUT_SUMMARIES_DIR;
use crate::storage::rfc3339;
use crate::storage::stem_of;

/// Most learnings kept per task.
const MAX_LEARNINGS: usize = 12;
/// Most general tips kept.
const MAX_TIPS: usize = 40;
/// Most recent rollout summaries named in the summary's index.
const MAX_INDEXED_ROLLOUTS: usize = 10;
const GENERAL_TIPS_HEADING: &str = "## General Tips";

/// The consolidator that needs no model.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineConsolidator;

#[async_trait]
impl Consolidator for OfflineConsolidator {
    async fn consolidate(
        &self,
        input: &ConsolidationInput,
    ) -> Result<ConsolidationOutput, MemoryError> {
        let memory_md = consolidate_memory_md(input);
        let memory_summary = summary_md(&memory_md, &input.all_outputs);
        Ok(ConsolidationOutput {
            memory_md: Some(memory_md),
            memory_summary: Some(memory_summary),
            skills: Vec::new(),
        })
    }
}

/// A `# Task Group:` block of `MEMORY.md`.
#[derive(Debug, Clone, Default)]
struct Group {
    /// The heading and `scope:` lines.
    header: String,
    /// The scope the group covers (its `scope:` value).
    scope: String,
    /// Task sections, each starting at its `## Task` heading.
    tasks: Vec<String>,
}

/// The parsed handbook.
#[derive(Debug, Clone, Default)]
struct Handbook {
    groups: Vec<Group>,
    tips: Vec<String>,
}

/// The new `MEMORY.md`.
pub(crate) fn consolidate_memory_md(input: &ConsolidationInput) -> String {
    let mut book = match (input.mode, &input.current_memory) {
        (ConsolidationMode::Incremental, Some(text)) => parse_handbook(text),
        _ => Handbook::default(),
    };
    let retained: BTreeSet<String> = input.all_outputs.iter().map(stem_of).collect();
    let adding: Vec<&StoredOutput> = match input.mode {
        ConsolidationMode::Init => input.all_outputs.iter().collect(),
        ConsolidationMode::Incremental => input.new_outputs.iter().collect(),
    };
    let replaced: BTreeSet<&str> = adding.iter().map(|o| o.thread.id.as_str()).collect();
    let adding_stems: BTreeSet<String> = adding.iter().map(|o| stem_of(o)).collect();
    // Drop tasks of rollouts no longer retained or about to be replaced.
    for group in &mut book.groups {
        group.tasks.retain(|task| {
            let stems = cited_stems(task);
            let thread_replaced = replaced
                .iter()
                .any(|id| task.contains(&format!("thread={id})")));
            let stem_replaced = stems.iter().any(|s| adding_stems.contains(s));
            !thread_replaced
                && !stem_replaced
                && (stems.is_empty() || stems.iter().any(|s| retained.contains(s)))
        });
    }
    // Oldest first, so the newest task ends last in its group.
    for output in adding.iter().rev() {
        let scope = output
            .thread
            .cwd
            .clone()
            .unwrap_or_else(|| "unknown".to_string());
        let task = task_section(output);
        match book.groups.iter_mut().find(|g| g.scope == scope) {
            Some(group) => group.tasks.push(task),
            None => book.groups.push(Group {
                header: format!("# Task Group: {}\nscope: {scope}\n", group_title(&scope)),
                scope,
                tasks: vec![task],
            }),
        }
        for preference in preferences_of(&output.output.raw_memory) {
            let tip = format!("- User preference: {preference}");
            if !book.tips.contains(&tip) {
                book.tips.push(tip);
            }
        }
    }
    book.groups.retain(|group| !group.tasks.is_empty());
    if book.tips.len() > MAX_TIPS {
        let excess = book.tips.len() - MAX_TIPS;
        book.tips.drain(..excess);
    }
    render_handbook(&book)
}

fn render_handbook(book: &Handbook) -> String {
    let mut out = String::new();
    for group in &book.groups {
        out.push_str(group.header.trim_end());
        out.push_str("\n\n");
        for (index, task) in group.tasks.iter().enumerate() {
            out.push_str(&renumber(task, index + 1));
            out.push_str("\n\n");
        }
    }
    out.push_str(GENERAL_TIPS_HEADING);
    out.push('\n');
    if book.tips.is_empty() {
        out.push_str("- none yet\n");
    }
    for tip in &book.tips {
        out.push_str(tip);
        out.push('\n');
    }
    out
}

/// `## Task N: …` with this task's number.
fn renumber(task: &str, number: usize) -> String {
    let task = task.trim_end();
    let (first, rest) = task.split_once('\n').unwrap_or((task, ""));
    let description = first
        .strip_prefix("## Task")
        .and_then(|after| after.split_once(':').map(|(_, d)| d.trim()))
        .unwrap_or(first);
    if rest.is_empty() {
        format!("## Task {number}: {description}")
    } else {
        format!("## Task {number}: {description}\n{rest}")
    }
}

fn parse_handbook(text: &str) -> Handbook {
    let mut book = Handbook::default();
    let mut in_tips = false;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("# Task Group:") {
            in_tips = false;
            book.groups.push(Group {
                header: format!("# Task Group:{title}\n"),
                scope: String::new(),
                tasks: Vec::new(),
            });
            continue;
        }
        if line.trim_end() == GENERAL_TIPS_HEADING {
            in_tips = true;
            continue;
        }
        if in_tips {
            if line.starts_with("- ")
                && line != "- none yet"
                && !book.tips.iter().any(|t| t == line)
            {
                book.tips.push(line.to_string());
            }
            continue;
        }
        let Some(group) = book.groups.last_mut() else {
            continue;
        };
        if line.starts_with("## Task") {
            group.tasks.push(format!("{line}\n"));
        } else if let Some(task) = group.tasks.last_mut() {
            task.push_str(line);
            task.push('\n');
        } else {
            if let Some(scope) = line.strip_prefix("scope:") {
                group.scope = scope.trim().to_string();
            }
            if !line.trim().is_empty() {
                group.header.push_str(line);
                group.header.push('\n');
            }
        }
    }
    book
}

/// The stems of the rollout summaries a task cites.
fn cited_stems(task: &str) -> Vec<String> {
    let marker = format!("{ROLLOUT_SUMMARIES_DIR}/");
    task.match_indices(&marker)
        .filter_map(|(at, _)| {
            let rest = task.get(at + marker.len()..)?;
            let end = rest.find(".md")?;
            rest.get(..end).map(str::to_string)
        })
        .collect()
}

fn task_section(output: &StoredOutput) -> String {
    let raw = &output.output.raw_memory;
    let description = frontmatter(raw, "description")
        .or_else(|| {
            raw.lines()
                .find_map(|l| l.strip_prefix("# ").map(str::to_string))
        })
        .unwrap_or_else(|| output.thread.id.clone());
    let outcome = raw
        .lines()
        .find_map(|l| l.strip_prefix("Outcome:").map(|o| o.trim().to_string()))
        .unwrap_or_else(|| "uncertain".to_string());
    let mut out = format!("## Task: {description}\n\n### rollout_summary_files\n");
    out.push_str(&format!(
        "- {ROLLOUT_SUMMARIES_DIR}/{}.md (cwd={}, updated_at={}, outcome={outcome}, thread={})\n",
        stem_of(output),
        output.thread.cwd.as_deref().unwrap_or("unknown"),
        rfc3339(output.source_updated_at),
        output.thread.id,
    ));
    out.push_str("\n### keywords\n");
    out.push_str(&frontmatter(raw, "keywords").unwrap_or_default());
    out.push_str("\n\n### learnings\n");
    let learnings = learnings_of(raw);
    if learnings.is_empty() {
        out.push_str("- see the rollout summary\n");
    }
    for line in learnings {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Labels of the raw-memory blocks whose bullets are learnings.
const LEARNING_LABELS: [&str; 3] = [
    "Key steps:",
    "Failures and how they were resolved:",
    "Reusable knowledge:",
];

/// The bullets of the raw memory's steps, failures and knowledge (all bullets of its task
/// sections when it has none of those labels, as a model may word them differently).
fn learnings_of(raw: &str) -> Vec<String> {
    let mut in_task = false;
    let mut label = "";
    let mut labelled = Vec::new();
    let mut all = Vec::new();
    for line in raw.lines() {
        if line.starts_with("## Task") {
            in_task = true;
            continue;
        }
        if !in_task {
            continue;
        }
        if !line.starts_with("- ") {
            if line.trim_end().ends_with(':') {
                label = line.trim();
            }
            continue;
        }
        if matches!(line, "- none" | "- none recorded" | "- no commands run") {
            continue;
        }
        if LEARNING_LABELS.contains(&label) {
            labelled.push(line.to_string());
        }
        all.push(line.to_string());
    }
    let mut chosen = if labelled.is_empty() { all } else { labelled };
    chosen.truncate(MAX_LEARNINGS);
    chosen
}

/// A `key: value` line of the raw memory's YAML frontmatter.
fn frontmatter(raw: &str, key: &str) -> Option<String> {
    let mut lines = raw.lines();
    if lines.next()?.trim() != "---" {
        return None;
    }
    lines
        .take_while(|line| line.trim() != "---")
        .find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
}

/// The bullets under `User preferences:`.
fn preferences_of(raw: &str) -> Vec<String> {
    raw.lines()
        .skip_while(|line| line.trim() != "User preferences:")
        .skip(1)
        .take_while(|line| line.starts_with("- "))
        .filter_map(|line| line.strip_prefix("- "))
        .filter(|p| *p != "none stated")
        .map(str::to_string)
        .collect()
}

fn group_title(scope: &str) -> String {
    let name = scope
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(scope);
    if name.is_empty() {
        scope.to_string()
    } else {
        name.to_string()
    }
}

/// `memory_summary.md` derived from the handbook and the outputs.
pub(crate) fn summary_md(memory_md: &str, outputs: &[StoredOutput]) -> String {
    let book = parse_handbook(memory_md);
    let mut out = String::from("## User Profile\n");
    let preferences: Vec<&str> = book
        .tips
        .iter()
        .filter_map(|t| t.strip_prefix("- User preference: "))
        .collect();
    if preferences.is_empty() {
        out.push_str("No preferences stated in past sessions yet.\n");
    } else {
        out.push_str("Preferences the user stated in past sessions:\n");
        for preference in preferences {
            out.push_str(&format!("- {preference}\n"));
        }
    }
    out.push_str("\n## General Tips\n");
    let mut projects: BTreeMap<&str, usize> = BTreeMap::new();
    for output in outputs {
        *projects
            .entry(output.thread.cwd.as_deref().unwrap_or("unknown"))
            .or_default() += 1;
    }
    for (cwd, count) in &projects {
        out.push_str(&format!(
            "- Worked in `{cwd}` in {count} past session(s); see its task group in MEMORY.md.\n"
        ));
    }
    if projects.is_empty() {
        out.push_str("- none yet\n");
    }
    out.push_str("\n## What's in Memory\n");
    out.push_str(&format!(
        "- MEMORY.md: {} task group(s), {} task(s)\n",
        book.groups.len(),
        book.groups.iter().map(|g| g.tasks.len()).sum::<usize>()
    ));
    for group in &book.groups {
        let keywords: Vec<String> = group
            .tasks
            .iter()
            .filter_map(|task| {
                task.lines()
                    .skip_while(|l| l.trim() != "### keywords")
                    .nth(1)
                    .map(str::to_string)
            })
            .flat_map(|line| line.split(", ").map(str::to_string).collect::<Vec<_>>())
            .filter(|k| !k.is_empty())
            .take(8)
            .collect();
        out.push_str(&format!(
            "  - {} ({}): {}\n",
            group
                .header
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("# Task Group:")
                .trim(),
            group.scope,
            keywords.join(", ")
        ));
    }
    out.push_str(&format!(
        "- {ROLLOUT_SUMMARIES_DIR}/: {} summaries; newest:\n",
        outputs.len()
    ));
    for output in outputs.iter().take(MAX_INDEXED_ROLLOUTS) {
        out.push_str(&format!("  - {}.md\n", stem_of(output)));
    }
    out
}
