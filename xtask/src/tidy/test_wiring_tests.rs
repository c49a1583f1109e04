use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::check;
use super::declared_modules;
use super::path_attributes;
use crate::tidy::source_files;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn findings(root: &Path) -> Vec<String> {
    let package = root.join("crates/a");
    let files = source_files::list(&package).unwrap();
    check(root, &package, &files)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn attributes_and_module_declarations_are_read() {
    assert_eq!(
        path_attributes(
            "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n  #[path=\"x/b.rs\"] mod b;\n"
        ),
        vec!["a_tests.rs".to_owned(), "x/b.rs".to_owned()]
    );
    let modules: Vec<String> = declared_modules(
        "mod suite {\n    mod a;\n    pub(crate) mod support;\n    pub mod c;\n    mod inline {}\n}\n",
    )
    .into_iter()
    .collect();
    assert_eq!(modules, vec!["a", "c", "support"]);
}

#[test]
fn a_wired_package_passes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "crates/a/src/lib.rs",
        "mod x;\n#[cfg(test)]\n#[path = \"lib_tests.rs\"]\nmod tests;\n",
    );
    write(root, "crates/a/src/lib_tests.rs", "");
    write(
        root,
        "crates/a/src/gen/x.rs",
        "#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\n",
    );
    write(root, "crates/a/src/gen/x_tests.rs", "");
    write(
        root,
        "crates/a/tests/all.rs",
        "mod suite {\n    mod one;\n    pub(crate) mod support;\n}\n",
    );
    write(root, "crates/a/tests/suite/one.rs", "");
    write(root, "crates/a/tests/suite/support.rs", "");
    write(root, "crates/a/tests/fixtures/data_tests.rs", "");
    assert_eq!(findings(root), Vec::<String>::new());
}

#[test]
fn an_undeclared_suite_file_and_an_unreferenced_unit_test_file_fail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // `x.rs` names `x_tests.rs` but from another directory, so it does not reach it.
    write(
        root,
        "crates/a/src/lib.rs",
        "#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\n",
    );
    write(root, "crates/a/src/lib_tests.rs", "");
    write(root, "crates/a/src/gen/x_tests.rs", "");
    write(
        root,
        "crates/a/tests/all.rs",
        "mod suite {\n    mod one;\n}\n",
    );
    write(root, "crates/a/tests/suite/one.rs", "");
    write(root, "crates/a/tests/suite/two.rs", "");
    assert_eq!(
        findings(root),
        vec![
            "error[test-wiring] crates/a/src/gen/x_tests.rs: not compiled: `x.rs` beside it must end with `#[cfg(test)] #[path = \"x_tests.rs\"] mod tests;`",
            "error[test-wiring] crates/a/src/lib_tests.rs: not compiled: `lib.rs` beside it must end with `#[cfg(test)] #[path = \"lib_tests.rs\"] mod tests;`",
            "error[test-wiring] crates/a/tests/suite/two.rs: not compiled: declare `mod two;` in the `mod suite { .. }` of tests/all.rs",
        ]
    );
}

#[test]
fn suite_files_without_any_all_rs_fail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "crates/a/src/lib.rs", "");
    write(root, "crates/a/tests/suite/lonely.rs", "");
    assert_eq!(
        findings(root),
        vec![
            "error[test-wiring] crates/a/tests/suite/lonely.rs: not compiled: declare `mod lonely;` in the `mod suite { .. }` of tests/all.rs"
        ]
    );
}
