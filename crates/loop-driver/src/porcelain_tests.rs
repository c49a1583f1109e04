use pretty_assertions::assert_eq;

use super::StatusEntry;
use super::parse_porcelain_z;

fn entry(index: char, worktree: char, path: &str, original: Option<&str>) -> StatusEntry {
    StatusEntry {
        index,
        worktree,
        path: path.to_owned(),
        original_path: original.map(str::to_owned),
    }
}

#[test]
fn parses_modified_untracked_spaces_and_renames() {
    let output =
        b" M src/lib.rs\0?? notes with spaces.md\0R  new name.rs\0old -> name.rs\0D  gone.txt\0";
    assert_eq!(
        parse_porcelain_z(output).unwrap(),
        vec![
            entry(' ', 'M', "src/lib.rs", None),
            entry('?', '?', "notes with spaces.md", None),
            entry('R', ' ', "new name.rs", Some("old -> name.rs")),
            entry('D', ' ', "gone.txt", None),
        ]
    );
}

#[test]
fn empty_output_is_no_entries() {
    assert_eq!(parse_porcelain_z(b"").unwrap(), Vec::new());
}

#[test]
fn a_rename_without_its_old_path_is_an_error() {
    let error = parse_porcelain_z(b"R  new.rs\0").unwrap_err();
    assert_eq!(error.offset, 0);
}

#[test]
fn a_short_record_is_an_error_not_a_panic() {
    let error = parse_porcelain_z(b" M a\0X\0").unwrap_err();
    assert_eq!(error.offset, 5);
    assert_eq!(error.record, "X");
}

#[test]
fn paths_lists_both_sides_of_a_rename() {
    let rename = entry('R', ' ', "b.rs", Some("a.rs"));
    assert_eq!(rename.paths().collect::<Vec<_>>(), vec!["b.rs", "a.rs"]);
}
