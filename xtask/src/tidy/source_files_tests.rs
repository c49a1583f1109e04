use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::list;

fn touch(root: &Path, relative: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "").unwrap();
}

#[test]
fn lists_package_files_but_not_target_hidden_or_nested_packages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "src/a/b.rs",
        "tests/all.rs",
        "tests/suite/x.rs",
        "target/debug/build.rs",
        ".hidden/x.rs",
        "tests/common/Cargo.toml",
        "tests/common/src/lib.rs",
    ] {
        touch(root, file);
    }
    let listed: Vec<String> = list(root)
        .unwrap()
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        listed,
        vec![
            "Cargo.toml",
            "src/a/b.rs",
            "src/lib.rs",
            "tests/all.rs",
            "tests/suite/x.rs",
        ]
    );
}

#[test]
fn a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = list(&dir.path().join("absent")).unwrap_err();
    assert!(err.to_string().starts_with("could not list "), "{err}");
}
