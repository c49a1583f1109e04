use pretty_assertions::assert_eq;

use super::TEMP_FILE_PREFIX;
use super::remove_stale_temp_files;
use super::write_atomically;

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn creates_the_folder_and_replaces_the_whole_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/summary.md");
    write_atomically(&path, b"first, longer content").unwrap();
    write_atomically(&path, b"second").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    assert_eq!(
        names_in(path.parent().unwrap()),
        vec!["summary.md".to_string()],
        "no temp file left behind"
    );
}

#[test]
fn a_target_that_is_a_folder_is_an_error_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("taken");
    std::fs::create_dir(&path).unwrap();
    assert!(
        write_atomically(&path, b"x").is_err_and(|err| err.kind() != std::io::ErrorKind::NotFound)
    );
    assert!(path.is_dir());
    assert_eq!(names_in(dir.path()), vec!["taken".to_string()]);
}

#[test]
fn a_symlink_at_the_target_is_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "untouched").unwrap();
    let path = dir.path().join("result.txt");
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    write_atomically(&path, b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    assert!(!path.is_symlink());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
}

#[test]
fn leftovers_of_killed_writers_are_removed_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("deep/er")).unwrap();
    std::fs::write(dir.path().join(format!("{TEMP_FILE_PREFIX}a1")), "half").unwrap();
    std::fs::write(
        dir.path().join(format!("deep/er/{TEMP_FILE_PREFIX}b2")),
        "half",
    )
    .unwrap();
    std::fs::write(dir.path().join("deep/keep.md"), "whole").unwrap();
    assert_eq!(remove_stale_temp_files(dir.path()), 2);
    assert_eq!(names_in(&dir.path().join("deep/er")), Vec::<String>::new());
    assert_eq!(
        names_in(&dir.path().join("deep")),
        vec!["er".to_string(), "keep.md".to_string()]
    );
    assert_eq!(remove_stale_temp_files(&dir.path().join("missing")), 0);
}
