//! A process killed (SIGKILL) at any point while it saves the skill usage file leaves a file
//! that loads: some complete earlier save, never a torn one.

use std::time::Duration;

use agentctx_skills::SkillUsageTracker;
use agentctx_test_support::child_process::Lcg;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::spawn_test;
use agentctx_test_support::child_process::wait_for_line;
use chrono::DateTime;

const KILLS: usize = 40;
const SKILLS: usize = 300;
const CHILD: &str = "suite::kill_during_save::usage_saver_child";
const PARENT: &str = "a_kill_at_any_step_of_a_usage_save_leaves_a_loadable_file";

/// The child's work: use every skill once more and save, round after round, until killed.
#[test]
#[ignore = "child process of a_kill_at_any_step_of_a_usage_save_leaves_a_loadable_file"]
fn usage_saver_child() {
    let path = child_env("AGENTCTX_TEST_USAGE", PARENT);
    let mut tracker = SkillUsageTracker::load(path.as_ref(), 7.0).unwrap();
    let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    println!("ready-to-be-killed");
    loop {
        for skill in 0..SKILLS {
            tracker.track_usage(&format!("skill-{skill}"), now);
        }
        tracker.save(path.as_ref()).unwrap();
    }
}

#[test]
fn a_kill_at_any_step_of_a_usage_save_leaves_a_loadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skill-usage.json");
    let mut delays = Lcg::new(21);
    let mut last_count = 0;
    for _ in 0..KILLS {
        let mut child = spawn_test(
            CHILD,
            &[("AGENTCTX_TEST_USAGE", path.display().to_string())],
        );
        let _rest = wait_for_line(child.stdout.take().unwrap(), "ready-to-be-killed");
        std::thread::sleep(Duration::from_micros(delays.below(20_000)));
        child.kill().unwrap();
        assert!(!child.wait().unwrap().success());
        if !path.exists() {
            continue;
        }
        let tracker = SkillUsageTracker::load(&path, 7.0)
            .unwrap_or_else(|err| panic!("the usage file is torn after a kill: {err}"));
        // Every save covers all skills with one count: a whole round.
        let counts: Vec<u32> = (0..SKILLS)
            .map(|skill| {
                tracker
                    .usage(&format!("skill-{skill}"))
                    .unwrap()
                    .usage_count
            })
            .collect();
        assert!(counts.iter().all(|count| *count == counts[0]), "{counts:?}");
        assert!(counts[0] >= last_count, "a save went backwards");
        last_count = counts[0];
    }
    println!("skill usage: {KILLS} kills, {last_count} rounds saved");
}
