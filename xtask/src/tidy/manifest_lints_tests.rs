use pretty_assertions::assert_eq;

use super::check;

#[test]
fn a_manifest_inheriting_workspace_lints_passes() {
    let text = "[package]\nname = \"a\"\n\n[lints]\nworkspace = true\n";
    assert_eq!(check("crates/a/Cargo.toml", text), None);
}

#[test]
fn missing_or_false_lints_fail() {
    for text in [
        "[package]\nname = \"a\"\n",
        "[package]\nname = \"a\"\n[lints]\nworkspace = false\n",
        "[package]\nname = \"a\"\n[lints.clippy]\nunwrap_used = \"deny\"\n",
    ] {
        let finding = check("crates/a/Cargo.toml", text).unwrap();
        assert_eq!(
            finding.to_string(),
            "error[workspace-lints] crates/a/Cargo.toml: missing `[lints] workspace = true`; every crate inherits the workspace lints"
        );
    }
}

#[test]
fn an_unparsable_manifest_is_reported_not_panicked_on() {
    let finding = check("crates/a/Cargo.toml", "[package\n").unwrap();
    assert!(
        finding.to_string().starts_with(
            "error[workspace-lints] crates/a/Cargo.toml: could not parse the manifest: "
        ),
        "{finding}"
    );
}
