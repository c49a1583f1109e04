use pretty_assertions::assert_eq;

use super::write_atomically;

#[test]
fn creates_the_folder_and_replaces_the_whole_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/summary.md");
    write_atomically(&path, b"first, longer content").unwrap();
    write_atomically(&path, b"second").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names,
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
}
