//! Session memory (Claude Code's `memory`, in `<session-memory>` tags): previews of past
//! sessions' notes. Reported when the set of previews changes.

use std::time::SystemTime;
use std::time::UNIX_EPOCH;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::generator_context::SessionMemoryEntry;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// The paragraph that opens the session memory block.
pub(crate) const SESSION_MEMORY_PREAMBLE: &str = "These session summaries are from PAST sessions that might not be related to the current task and may have outdated info. Do not assume the current task is related to these summaries, until the user's messages indicate so or reference similar tasks. Only a preview of each memory is shown - use the Read tool with the provided path to access full session memory when a session is relevant.";

/// `time` as a US date (`1/15/2024`), in UTC so the text does not depend on the machine.
pub(crate) fn format_us_date(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    };
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    format!("{month}/{day}/{year}")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// One past session's section.
fn render_entry(entry: &SessionMemoryEntry) -> String {
    let heading = match entry.last_modified {
        Some(time) => format!("## Previous Session ({})", format_us_date(time)),
        None => "## Previous Session".to_string(),
    };
    let more = if entry.remaining_lines > 0 {
        format!(" ({} more lines in full file)", entry.remaining_lines)
    } else {
        String::new()
    };
    format!(
        "{heading}\nFull session notes: {}{more}\n\n{}",
        entry.full_path.display(),
        entry.content
    )
}

/// The content inside `<session-memory>`.
pub(crate) fn render_session_memory(entries: &[SessionMemoryEntry]) -> String {
    let sections = entries
        .iter()
        .map(render_entry)
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    format!("{SESSION_MEMORY_PREAMBLE}\n\n{sections}")
}

/// Generates the session memory block.
#[derive(Debug, Default)]
pub(crate) struct SessionMemoryGenerator {
    last: LastReported<Vec<SessionMemoryEntry>>,
}

impl SessionMemoryGenerator {
    /// This turn's answer: what [`AttachmentGenerator::generate_now`] and
    /// [`AttachmentGenerator::generate`] both return (it never awaits).
    fn answer(&self, ctx: &GeneratorContext) -> GeneratorResult {
        let entries = &ctx.session_memory;
        if !self.last.changed(entries) || entries.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::SessionMemory,
            render_session_memory(entries),
        )))
    }
}

#[async_trait]
impl AttachmentGenerator for SessionMemoryGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::SessionMemory
    }

    fn reset(&self) {
        self.last.forget();
    }

    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        Some(self.answer(ctx))
    }

    async fn generate(&self, ctx: &GeneratorContext) -> GeneratorResult {
        self.answer(ctx)
    }
}

#[cfg(test)]
#[path = "session_memory_tests.rs"]
mod tests;
