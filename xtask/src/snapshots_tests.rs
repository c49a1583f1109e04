use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::accept_pending;
use super::find_pending;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn relative(root: &Path, paths: &[std::path::PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn finds_pending_snapshots_outside_target_and_hidden_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "crates/a/src/snapshots/a__x.snap", "old");
    write(root, "crates/a/src/snapshots/a__x.snap.new", "new");
    write(root, "crates/a/tests/suite/.a.rs.pending-snap", "{}");
    write(root, "target/debug/z.snap.new", "ignored");
    write(root, ".git/y.snap.new", "ignored");
    assert_eq!(
        relative(root, &find_pending(root).unwrap()),
        vec![
            "crates/a/src/snapshots/a__x.snap.new",
            "crates/a/tests/suite/.a.rs.pending-snap"
        ]
    );
}

#[test]
fn accept_moves_new_files_over_old_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "crates/a/src/snapshots/a__x.snap", "old");
    write(root, "crates/a/src/snapshots/a__x.snap.new", "new");
    write(root, "crates/a/src/snapshots/a__y.snap.new", "first");
    let accepted = accept_pending(root).unwrap();
    assert_eq!(
        relative(root, &accepted),
        vec![
            "crates/a/src/snapshots/a__x.snap",
            "crates/a/src/snapshots/a__y.snap"
        ]
    );
    let snapshots = root.join("crates/a/src/snapshots");
    assert_eq!(
        fs::read_to_string(snapshots.join("a__x.snap")).unwrap(),
        "new"
    );
    assert_eq!(
        fs::read_to_string(snapshots.join("a__y.snap")).unwrap(),
        "first"
    );
    assert_eq!(
        find_pending(root).unwrap(),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn only_inline_snapshots_pending_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/.a.rs.pending-snap", "{}");
    let err = accept_pending(dir.path()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "only inline snapshots are pending; they cannot be accepted by renaming"
    );
}
