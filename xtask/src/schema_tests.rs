use pretty_assertions::assert_eq;

use super::changed_files;

#[test]
fn porcelain_lines_give_their_paths() {
    let porcelain = " M docs/schema/config.json\n?? docs/schema/protocol.json\nR  docs/schema/a.json -> docs/schema/b.json\n";
    assert_eq!(
        changed_files(porcelain),
        vec![
            "docs/schema/config.json",
            "docs/schema/protocol.json",
            "docs/schema/b.json"
        ]
    );
    assert_eq!(changed_files(""), Vec::<String>::new());
}
