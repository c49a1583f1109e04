use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;

const CWD: &str = "/work/app";

fn prejudge(permissions: &SessionPermissions, tool: &str, input: &Value) -> Prejudged {
    permissions.prejudge(Subject {
        tool,
        input,
        cwd: Path::new(CWD),
    })
}

/// The reference's example entries ("Permission update entries").
#[test]
fn rules_of_every_behavior_are_added_replaced_and_removed() {
    let mut permissions = SessionPermissions::default();
    let unapplied = permissions.apply(&[
        json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
               "behavior": "allow", "destination": "session"}),
        json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "git push:*"}],
               "behavior": "deny", "destination": "localSettings"}),
        json!({"type": "addRules", "rules": [{"toolName": "Edit", "ruleContent": "src/**"}],
               "behavior": "ask", "destination": "projectSettings"}),
    ]);
    assert_eq!(unapplied, Vec::<String>::new());
    let bash = |command: &str| json!({ "command": command });
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("npm test")),
        Prejudged::Approved
    );
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("git push origin main")),
        Prejudged::Denied
    );
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("npm install")),
        Prejudged::Undecided
    );
    // An `Edit` rule covers `Write`; paths resolve against the working directory.
    let write = json!({"file_path": "/work/app/src/lib/a.rs"});
    assert_eq!(
        permissions.rule(Subject {
            tool: "Write",
            input: &write,
            cwd: Path::new(CWD),
        }),
        Some(RuleBehavior::Ask)
    );

    permissions.apply(&[
        json!({"type": "replaceRules", "rules": [{"toolName": "Bash", "ruleContent": "npm run *"}],
               "behavior": "allow", "destination": "session"}),
        json!({"type": "removeRules", "rules": [{"toolName": "Bash", "ruleContent": "git push:*"}],
               "behavior": "deny", "destination": "session"}),
    ]);
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("npm test")),
        Prejudged::Undecided
    );
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("npm run lint")),
        Prejudged::Approved
    );
    assert_eq!(
        prejudge(&permissions, "Bash", &bash("git push")),
        Prejudged::Undecided
    );
}

#[test]
fn deny_beats_ask_beats_allow_and_a_bare_tool_name_covers_the_tool() {
    let mut permissions = SessionPermissions::default();
    permissions.apply(&[
        json!({"type": "addRules", "rules": [{"toolName": "Write"}], "behavior": "allow", "destination": "session"}),
        json!({"type": "addRules", "rules": [{"toolName": "Write", "ruleContent": "//etc/**"}], "behavior": "deny", "destination": "session"}),
        json!({"type": "addRules", "rules": [{"toolName": "Write", "ruleContent": "./docs/*.md"}], "behavior": "ask", "destination": "session"}),
    ]);
    let write = |path: &str| json!({ "file_path": path });
    assert_eq!(
        prejudge(&permissions, "Write", &write("notes.txt")),
        Prejudged::Approved
    );
    assert_eq!(
        prejudge(&permissions, "Write", &write("/etc/hosts")),
        Prejudged::Denied
    );
    assert_eq!(
        prejudge(&permissions, "Write", &write("docs/a.md")),
        Prejudged::Undecided
    );
    // `*` stays within a folder.
    assert_eq!(
        prejudge(&permissions, "Write", &write("docs/deep/a.md")),
        Prejudged::Approved
    );
    // Another tool is not covered.
    assert_eq!(
        prejudge(&permissions, "Bash", &json!({"command": "ls"})),
        Prejudged::Undecided
    );
}

#[test]
fn modes_map_to_what_asks_and_unmapped_entries_are_reported() {
    let mut permissions = SessionPermissions::default();
    let edit = json!({"file_path": "/work/app/a.rs"});
    let bash = json!({"command": "make"});
    permissions
        .apply(&[json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]);
    assert_eq!(prejudge(&permissions, "Edit", &edit), Prejudged::Approved);
    assert_eq!(prejudge(&permissions, "Bash", &bash), Prejudged::Undecided);
    permissions.apply(&[
        json!({"type": "setMode", "mode": "bypassPermissions", "destination": "session"}),
    ]);
    assert_eq!(prejudge(&permissions, "Bash", &bash), Prejudged::Approved);
    permissions.apply(&[
        json!({"type": "setMode", "mode": "dontAsk", "destination": "session"}),
        json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "make"}], "behavior": "allow", "destination": "session"}),
    ]);
    assert_eq!(prejudge(&permissions, "Bash", &bash), Prejudged::Approved);
    assert_eq!(prejudge(&permissions, "Edit", &edit), Prejudged::Denied);
    permissions.apply(&[json!({"type": "setMode", "mode": "default", "destination": "session"})]);
    assert_eq!(prejudge(&permissions, "Edit", &edit), Prejudged::Undecided);

    let unapplied = permissions.apply(&[
        json!({"type": "setMode", "mode": "plan", "destination": "session"}),
        json!({"type": "addDirectories", "directories": ["/tmp"], "destination": "session"}),
        json!({"type": "addRules", "rules": [], "destination": "session"}),
    ]);
    assert_eq!(
        unapplied,
        vec![
            "the permission mode `plan` has no counterpart in agentctx".to_owned(),
            "`addDirectories` is not applied: agentctx's file tools work inside the working directory only".to_owned(),
            r#"`addRules` without a valid `behavior`: {"destination":"session","rules":[],"type":"addRules"}"#.to_owned(),
        ]
    );
}
