use pretty_assertions::assert_eq;

use super::changed_schemas;

#[test]
fn porcelain_lines_give_the_changed_schema_paths_only() {
    let porcelain = " M crates/reminders/config.schema.json\n\
        ?? crates/protocol/schema/loop-event.schema.json\n\
        R  crates/model/a.schema.json -> crates/model/config.schema.json\n \
        M crates/reminders/src/config.rs\n";
    assert_eq!(
        changed_schemas(porcelain),
        vec![
            "crates/reminders/config.schema.json",
            "crates/protocol/schema/loop-event.schema.json",
            "crates/model/config.schema.json",
        ]
    );
    assert_eq!(changed_schemas(""), Vec::<String>::new());
}
