use chrono::DateTime;
use chrono::Duration;
use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::*;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0)
        .single()
        .expect("valid date")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn score_halves_every_seven_days() {
    let mut tracker = SkillUsageTracker::default();
    for _ in 0..4 {
        tracker.track_usage("commit", t0());
    }
    assert!(close(tracker.get_score("commit", t0()), 4.0));
    assert!(close(
        tracker.get_score("commit", t0() + Duration::days(7)),
        2.0
    ));
    assert!(close(
        tracker.get_score("commit", t0() + Duration::days(14)),
        1.0
    ));
    assert!(close(
        tracker.get_score("commit", t0() + Duration::hours(84)),
        4.0 / 2f64.sqrt()
    ));
    assert!(close(tracker.get_score("never", t0()), 0.0));
}

#[test]
fn future_last_use_counts_as_now() {
    let mut tracker = SkillUsageTracker::default();
    tracker.track_usage("x", t0() + Duration::days(1));
    assert!(close(tracker.get_score("x", t0()), 1.0));
}

#[test]
fn tracking_updates_count_and_last_use() {
    let mut tracker = SkillUsageTracker::default();
    tracker.track_usage("x", t0());
    tracker.track_usage("x", t0() + Duration::days(3));
    assert_eq!(
        tracker.usage("x"),
        Some(&SkillUsageData {
            usage_count: 2,
            last_used_at: t0() + Duration::days(3),
        })
    );
}

#[test]
fn ordering_prefers_recent_over_stale_heavy_use() {
    let mut tracker = SkillUsageTracker::default();
    // Ten uses a month ago decay below three uses yesterday.
    for _ in 0..10 {
        tracker.track_usage("stale", t0() - Duration::days(30));
    }
    for _ in 0..3 {
        tracker.track_usage("recent", t0() - Duration::days(1));
    }
    tracker.track_usage("once", t0());
    let mut names = vec!["alpha", "once", "stale", "recent", "beta"];
    tracker.sort_by_usage(&mut names, |name| name, t0());
    assert_eq!(names, vec!["recent", "once", "stale", "alpha", "beta"]);
}

#[test]
fn custom_and_invalid_half_life() {
    let mut tracker = SkillUsageTracker::new(1.0);
    tracker.track_usage("x", t0());
    assert!(close(
        tracker.get_score("x", t0() + Duration::days(2)),
        0.25
    ));
    for invalid in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(close(
            SkillUsageTracker::new(invalid).half_life_days(),
            DEFAULT_USAGE_HALF_LIFE_DAYS
        ));
    }
}

#[test]
fn save_and_load_round_trip_atomically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state/skill-usage.json");
    let mut tracker = SkillUsageTracker::default();
    tracker.track_usage("commit", t0());
    tracker.track_usage("review-pr", t0() + Duration::days(1));
    tracker.save(&path).expect("save");
    // Only the target file is left: the temporary file was renamed over it.
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("state"))
        .expect("dir")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(entries, vec![std::ffi::OsString::from("skill-usage.json")]);
    insta::assert_snapshot!("usage_file", std::fs::read_to_string(&path).expect("read"));

    let loaded = SkillUsageTracker::load(&path, DEFAULT_USAGE_HALF_LIFE_DAYS).expect("load");
    assert_eq!(loaded, tracker);

    tracker.track_usage("commit", t0() + Duration::days(2));
    tracker.save(&path).expect("overwrite");
    let reloaded = SkillUsageTracker::load(&path, DEFAULT_USAGE_HALF_LIFE_DAYS).expect("load");
    assert_eq!(reloaded.usage("commit").map(|u| u.usage_count), Some(2));
}

#[test]
fn missing_file_is_empty_and_corrupt_file_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("usage.json");
    assert_eq!(
        SkillUsageTracker::load(&path, 7.0).expect("missing is empty"),
        SkillUsageTracker::default()
    );
    std::fs::write(&path, "{not json").expect("write");
    assert!(matches!(
        SkillUsageTracker::load(&path, 7.0),
        Err(UsageError::Parse { .. })
    ));
    std::fs::write(&path, r#"{"version":9,"skills":{}}"#).expect("write");
    assert!(matches!(
        SkillUsageTracker::load(&path, 7.0),
        Err(UsageError::Version { version: 9, .. })
    ));
}
