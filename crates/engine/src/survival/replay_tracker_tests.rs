use std::path::Path;

use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;

use super::SurvivalTracker;
use crate::survival::CompactionSource;

fn cwd() -> &'static Path {
    Path::new("/work/app")
}

#[test]
fn each_compaction_is_checked_against_what_came_after_it_until_the_next() {
    let mut tracker = SurvivalTracker::default();
    tracker.item(&ResponseItem::user_text(
        "Never touch the `legacy_parser` module.",
    ));
    tracker.item(&ResponseItem::assistant_text("Understood."));
    // Our compaction keeps the constraint.
    tracker.our_compaction(
        &[ResponseItem::user_text(
            "Summary: never touch legacy_parser module.",
        )],
        Some(1),
        2,
        cwd(),
    );
    tracker.item(&ResponseItem::user_text(
        "Rename `legacy_parser` usages in the docs.",
    ));
    // The session's own compaction, later, keeps nothing of it.
    tracker.recorded_compaction(
        &[ResponseItem::user_text("Summary: docs.")],
        Some(2),
        3,
        cwd(),
    );
    tracker.item(&ResponseItem::assistant_text(
        "Checking `legacy_parser` again.",
    ));
    let done = tracker.finish(cwd());
    let figures: Vec<_> = done
        .iter()
        .map(|compaction| {
            (
                compaction.source,
                compaction.number,
                compaction.after_request,
                compaction.survival.held,
                compaction.survival.probes,
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            // The constraint and the identifier the session named again.
            (CompactionSource::Ours, 1, 2, 2, 2),
            // The constraint (from the whole recorded history), the identifier, and the docs
            // request no answer followed (the summary holds one of its four words): all lost.
            (CompactionSource::Recorded, 1, 3, 0, 3),
        ]
    );
}
