// The offending texts are assembled from pieces so this file does not report itself: `^`
// stands for a parent-directory step (`up`).

use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::FileKind;
use super::acceptance_id;
use super::check_repository;
use super::check_text;
use super::cites_spec_section;
use super::leaves_root;
use super::markdown_links;
use super::relative_paths;

const SHARED: &str = concat!("..", "/shared");
const SECTION: &str = "\u{a7}";

/// `text` with each `^` replaced by a parent-directory step, dot dot slash.
fn up(text: &str) -> String {
    text.replace('^', concat!("..", "/"))
}

fn ac(n: u32) -> String {
    format!("{}-{n}", "AC")
}

fn found(path: &str, text: &str, kind: FileKind, bases: &[usize]) -> Vec<String> {
    check_text(path, text, kind, bases)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn relative_paths_start_at_a_path_boundary() {
    assert_eq!(
        relative_paths(&up(
            "see ^^docs/a.md and (`^x`) but not a/^b or https://h/^c"
        )),
        vec![up("^^docs/a.md"), up("^x")]
    );
    assert_eq!(
        relative_paths(&up("include_str!(\"^fixtures/x.jsonl\")")),
        vec![up("^fixtures/x.jsonl")]
    );
}

#[test]
fn markdown_link_targets_drop_urls_anchors_and_titles() {
    assert_eq!(
        markdown_links(&up(
            "[a](^a.md#top) [b](https://example.invalid/x) [c](<d e.md>) [f](#local) [g](docs/g.md \"title\")"
        )),
        vec![up("^a.md"), "d".to_owned(), "docs/g.md".to_owned()]
    );
    assert_eq!(markdown_links(&up("[ref]: ^^x.md")), vec![up("^^x.md")]);
    assert_eq!(markdown_links("[mail](mailto:a@b.c)"), Vec::<String>::new());
}

#[test]
fn resolution_fails_only_above_the_root() {
    assert!(!leaves_root(0, "docs/a.md"));
    assert!(leaves_root(0, &up("^a.md")));
    assert!(!leaves_root(2, &up("^^README.md")));
    assert!(leaves_root(2, &up("^^^README.md")));
    assert!(leaves_root(1, &up("a/^^^b")));
    assert!(!leaves_root(1, &up("./x/^y")));
}

#[test]
fn the_design_sources_beside_the_repository_are_named() {
    let text = format!(
        "# Title\nThe design is in `{SHARED}/ARCHITECTURE.md`.\nAnd in {}/x.md\n",
        concat!("shared", "/spec")
    );
    assert_eq!(
        found("README.md", &text, FileKind::Markdown, &[0]),
        vec![
            format!(
                "error[outside-ref] README.md:2: `{SHARED}` is outside the repository; explain it in docs/design/ and point there"
            ),
            format!(
                "error[outside-ref] README.md:3: `{}` is outside the repository; explain it in docs/design/ and point there",
                concat!("shared", "/spec")
            ),
        ]
    );
}

#[test]
fn links_and_paths_above_the_root_fail_and_those_inside_pass() {
    let text = up(
        "[ok](^^README.md) [bad](^^^other/x.md)\nsee `^^^^elsewhere`\n[root](/docs/a.md) [url](https://example.invalid/^^x)\n",
    );
    assert_eq!(
        found("crates/a/README.md", &text, FileKind::Markdown, &[2]),
        vec![
            up(
                "error[outside-ref] crates/a/README.md:1: `^^^other/x.md` resolves outside the repository"
            ),
            up(
                "error[outside-ref] crates/a/README.md:2: `^^^^elsewhere` resolves outside the repository"
            ),
        ]
    );
}

#[test]
fn rust_paths_fail_when_they_leave_from_the_file_or_the_package_directory() {
    // From crates/a/common/src/deep (depth 5) four levels up stays inside; joined to the
    // package directory crates/a/common (depth 3) the same path leaves.
    let text = up("let p = dir.join(\"^^^^docs/schema\");
include_str!(\"^fixtures/x\");
");
    assert_eq!(
        found(
            "crates/a/common/src/deep/lib.rs",
            &text,
            FileKind::Rust,
            &[5, 3]
        ),
        vec![up(
            "error[outside-ref] crates/a/common/src/deep/lib.rs:1: `^^^^docs/schema` resolves outside the repository"
        )]
    );
}

#[test]
fn spec_section_and_acceptance_citations_fail_outside_docs_design() {
    let text = format!(
        "// see spec {SECTION}4.2\n// the {SECTION} sign alone\n// pins {} and {}\n// TRAC-12 and FAC-1 are words\n// {SECTION} 6.2 pushes it first\n",
        ac(3),
        ac(14)
    );
    assert_eq!(
        found("crates/a/src/x.rs", &text, FileKind::Rust, &[3, 2]),
        vec![
            "error[citation] crates/a/src/x.rs:1: cites a section of a spec the repository does not ship; cite docs/design/<page>.md and its heading".to_owned(),
            format!(
                "error[citation] crates/a/src/x.rs:3: `{}` cites an acceptance criterion; name the behaviour (docs/design/ keeps the criteria)",
                ac(3)
            ),
            "error[citation] crates/a/src/x.rs:5: cites a section of a spec the repository does not ship; cite docs/design/<page>.md and its heading".to_owned(),
        ]
    );
    let table = format!(
        "| {} | the reminder fires once | `suite::x::fires_once` |\n",
        ac(1)
    );
    assert_eq!(
        found("docs/design/reminders.md", &table, FileKind::Markdown, &[2]),
        Vec::<String>::new()
    );
}

#[test]
fn citation_helpers_match_their_shapes() {
    assert!(cites_spec_section(&format!("SPEC.md {SECTION}2")));
    assert!(!cites_spec_section(&format!("a {SECTION} sign")));
    assert!(cites_spec_section(&format!("({SECTION}10.3)")));
    assert_eq!(acceptance_id(&format!("({})", ac(7))), Some(ac(7)));
    assert_eq!(acceptance_id("AC-x"), None);
}

#[test]
fn the_repository_walk_skips_target_and_hidden_directories() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    let bad = format!("see {SHARED}/x\n");
    write("README.md", &bad);
    write("crates/a/Cargo.toml", "[package]\n");
    write("crates/a/src/lib.rs", &format!("//! {bad}"));
    write("target/debug/x.md", &bad);
    write(".git/x.md", &bad);
    write("examples/data.jsonl", &bad);
    let paths: Vec<String> = check_repository(Path::new(root))
        .unwrap()
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(paths, vec!["README.md", "crates/a/src/lib.rs"]);
}
