//! The skill cache: hits while nothing changes, reloads when a source changes.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use agentctx_skills::SkillCache;
use agentctx_skills::SkillRoots;
use pretty_assertions::assert_eq;

fn write_skill(dir: &Path, description: &str) {
    fs::create_dir_all(dir).expect("mkdir");
    fs::write(
        dir.join("SKILL.md"),
        format!("---\ndescription: {description}\n---\n"),
    )
    .expect("write");
}

fn descriptions(outcome: &agentctx_skills::SkillLoadOutcome) -> Vec<(String, String)> {
    outcome
        .skills
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect()
}

#[test]
fn unchanged_sources_hit_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let roots = SkillRoots::new(tmp.path().join("home"), tmp.path().join("project"));
    write_skill(&tmp.path().join("home/skills/a"), "A");
    let cache = SkillCache::new();
    let first = cache.get_or_load(&roots);
    let second = cache.get_or_load(&roots);
    assert!(Arc::ptr_eq(&first, &second));
}

#[test]
fn editing_adding_and_removing_skills_reloads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let roots = SkillRoots::new(&home, tmp.path().join("project"));
    write_skill(&home.join("skills/a"), "A");
    let cache = SkillCache::new();
    let first = cache.get_or_load(&roots);
    assert_eq!(
        descriptions(&first),
        vec![("a".to_string(), "A".to_string())]
    );

    // Edit (the size changes, so this does not depend on timestamp resolution).
    write_skill(&home.join("skills/a"), "A, edited");
    let edited = cache.get_or_load(&roots);
    assert!(!Arc::ptr_eq(&first, &edited));
    assert_eq!(
        descriptions(&edited),
        vec![("a".to_string(), "A, edited".to_string())]
    );

    // Add a skill in a root that did not exist before.
    write_skill(&tmp.path().join("project/.claude/skills/b"), "B");
    let added = cache.get_or_load(&roots);
    assert_eq!(
        descriptions(&added),
        vec![
            ("a".to_string(), "A, edited".to_string()),
            ("b".to_string(), "B".to_string())
        ]
    );

    // Add a SKILL.toml.
    fs::write(
        home.join("skills/a/SKILL.toml"),
        "[interface]\ndisplay_name = \"Alpha\"\n",
    )
    .expect("write");
    let with_interface = cache.get_or_load(&roots);
    let interface = with_interface.skills[0]
        .interface
        .clone()
        .expect("interface");
    assert_eq!(interface.display_name.as_deref(), Some("Alpha"));

    // Remove a skill.
    fs::remove_dir_all(home.join("skills/a")).expect("rm");
    let removed = cache.get_or_load(&roots);
    assert_eq!(
        descriptions(&removed),
        vec![("b".to_string(), "B".to_string())]
    );
    assert!(Arc::ptr_eq(&removed, &cache.get_or_load(&roots)));
}

#[test]
fn entries_are_keyed_by_load_context() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write_skill(&tmp.path().join("home/skills/a"), "A");
    write_skill(&tmp.path().join("p1/.agentctx/skills/one"), "One");
    write_skill(&tmp.path().join("p2/.agentctx/skills/two"), "Two");
    let roots1 = SkillRoots::new(tmp.path().join("home"), tmp.path().join("p1"));
    let roots2 = SkillRoots::new(tmp.path().join("home"), tmp.path().join("p2"));
    let cache = SkillCache::new();
    let one = cache.get_or_load(&roots1);
    let two = cache.get_or_load(&roots2);
    assert_eq!(descriptions(&one)[1].0, "one");
    assert_eq!(descriptions(&two)[1].0, "two");
    // Both stay cached side by side.
    assert!(Arc::ptr_eq(&one, &cache.get_or_load(&roots1)));
    assert!(Arc::ptr_eq(&two, &cache.get_or_load(&roots2)));
}

#[test]
fn invalidate_and_clear_force_a_reload() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write_skill(&tmp.path().join("home/skills/a"), "A");
    let roots = SkillRoots::new(tmp.path().join("home"), tmp.path().join("project"));
    let cache = SkillCache::new();
    let first = cache.get_or_load(&roots);
    cache.invalidate(&roots);
    let second = cache.get_or_load(&roots);
    assert!(!Arc::ptr_eq(&first, &second));
    assert_eq!(*first, *second);
    cache.clear();
    assert!(!Arc::ptr_eq(&second, &cache.get_or_load(&roots)));
}
