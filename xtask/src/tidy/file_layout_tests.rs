use pretty_assertions::assert_eq;

use super::MAX_LINES;
use super::WARN_LINES;
use super::check_mod_rs;
use super::check_size;
use crate::finding::Severity;

#[test]
fn mod_rs_files_fail_anywhere() {
    assert_eq!(check_mod_rs("crates/a/src/foo.rs"), None);
    assert_eq!(check_mod_rs("crates/a/src/my_mod.rs"), None);
    for path in ["crates/a/src/foo/mod.rs", "crates/a/tests/common/mod.rs"] {
        let finding = check_mod_rs(path).unwrap();
        assert_eq!(finding.check, "mod-rs");
        assert_eq!(finding.path, path);
    }
}

fn lines(count: usize) -> String {
    "let x = 1;\n".repeat(count)
}

#[test]
fn size_budget_warns_then_fails() {
    assert_eq!(check_size("a.rs", &lines(WARN_LINES), true), None);
    let warning = check_size("a.rs", &lines(WARN_LINES + 1), true).unwrap();
    assert_eq!(warning.severity, Severity::Warning);
    assert_eq!(
        warning.to_string(),
        "warning[file-size] a.rs: 801 lines, over 800; it probably holds two ideas"
    );
    let at_max = check_size("a.rs", &lines(MAX_LINES), true).unwrap();
    assert_eq!(at_max.severity, Severity::Warning);
    let error = check_size("a.rs", &lines(MAX_LINES + 1), true).unwrap();
    assert_eq!(
        error.to_string(),
        "error[file-size] a.rs: 1501 lines, over the budget of 1500; split it by idea"
    );
}

#[test]
fn unbudgeted_files_are_never_reported() {
    assert_eq!(check_size("a_tests.rs", &lines(MAX_LINES * 2), false), None);
}
