use pretty_assertions::assert_eq;

use super::check;

#[test]
fn a_crate_doc_first_passes_even_after_blank_lines() {
    assert_eq!(check("src/lib.rs", "//! The crate.\n\nmod a;\n"), None);
    assert_eq!(check("src/lib.rs", "\n\n//! The crate.\n"), None);
}

#[test]
fn anything_before_the_crate_doc_fails() {
    for text in [
        "",
        "mod a;\n",
        "// a plain comment\n//! The crate.\n",
        "/// an item doc\nfn f() {}\n",
        "#![expect(dead_code)]\n//! The crate.\n",
    ] {
        let finding = check("crates/a/src/lib.rs", text).unwrap();
        assert_eq!(
            finding.to_string(),
            "error[crate-doc] crates/a/src/lib.rs: the crate root must start with a `//!` doc: what the crate is for, its floor and an example",
            "{text:?}"
        );
    }
}
