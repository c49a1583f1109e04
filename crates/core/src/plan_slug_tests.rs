use std::path::Path;

use pretty_assertions::assert_eq;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;

#[test]
fn slug_is_three_words_from_the_lists() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..50 {
        let slug = generate_plan_slug(&mut rng);
        let parts: Vec<&str> = slug.split('-').collect();
        assert_eq!(parts.len(), 3, "{slug}");
        assert!(PLAN_SLUG_ADJECTIVES.contains(&parts[0]), "{slug}");
        assert!(PLAN_SLUG_NOUNS.contains(&parts[1]), "{slug}");
        assert!(PLAN_SLUG_VERBS.contains(&parts[2]), "{slug}");
    }
}

#[test]
fn plan_file_lives_in_the_plans_folder() {
    assert_eq!(
        plan_file_path(Path::new("/h/plans"), "calm-fox-baking"),
        Path::new("/h/plans/calm-fox-baking.md")
    );
}

#[test]
fn only_well_formed_files_of_the_plans_folder_are_plan_files() {
    let plans = Path::new("/h/plans");
    assert_eq!(
        plan_slug_of(plans, Path::new("/h/plans/calm-fox-baking.md")).as_deref(),
        Some("calm-fox-baking")
    );
    for path in [
        "/h/plans/../victim.md",
        "/h/victim.md",
        "/etc/plans/calm-fox-baking.md",
        "/h/plans/sub/calm-fox-baking.md",
        "/h/plans/Calm Fox.md",
        "/h/plans/.md",
        "/h/plans/calm-fox-baking.txt",
    ] {
        assert_eq!(plan_slug_of(plans, Path::new(path)), None, "{path}");
    }
}
