use pretty_assertions::assert_eq;

use super::browser_requested;
use super::selected;

#[test]
fn tools_are_chosen_by_package_or_subcommand_name() {
    let packages = |names: &[&str]| -> Vec<&str> {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        selected(&names)
            .unwrap()
            .into_iter()
            .map(|t| t.package)
            .collect()
    };
    assert_eq!(
        packages(&[]),
        vec!["cargo-deny", "cargo-nextest", "cargo-insta", "cargo-fuzz"]
    );
    assert_eq!(
        packages(&["insta", "cargo-deny"]),
        vec!["cargo-insta", "cargo-deny"]
    );
    assert_eq!(
        selected(&["cargo-afl".to_owned()]).unwrap_err().to_string(),
        "unknown tool `cargo-afl`; known: cargo-deny, cargo-nextest, cargo-insta, cargo-fuzz"
    );
}

#[test]
fn the_browser_is_installed_when_named_or_when_every_tool_is() {
    let names = |names: &[&str]| -> Vec<String> { names.iter().map(|n| (*n).to_owned()).collect() };
    assert!(browser_requested(&names(&[])));
    assert!(browser_requested(&names(&["cargo-deny", "chromium"])));
    assert!(!browser_requested(&names(&["cargo-deny"])));
}
