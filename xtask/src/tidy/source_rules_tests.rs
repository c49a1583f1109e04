use pretty_assertions::assert_eq;

use super::Rules;
use super::check;

// Placeholder macro names are assembled so that this file passes its own check.
const TODO: &str = concat!("to", "do!");
const UNIMPLEMENTED: &str = concat!("unimple", "mented!");

const ALL: Rules = Rules {
    no_print: true,
    no_placeholders: true,
    no_process_command: true,
};

fn found(text: &str, rules: Rules) -> Vec<String> {
    check("src/a.rs", text, rules)
        .iter()
        .map(|f| format!("{}:{}", f.check, f.line.unwrap_or_default()))
        .collect()
}

#[test]
fn print_macros_are_found_with_their_lines() {
    let text = "fn f() {\n    println!(\"a\");\n    eprintln!(\"b\");\n    print!(\"c\");\n    eprint!(\"d\");\n    let x = dbg!(1);\n    std::println!(\"e\");\n}\n";
    assert_eq!(
        found(text, ALL),
        vec![
            "print:2", "print:3", "print:4", "print:5", "print:6", "print:7"
        ]
    );
}

#[test]
fn similar_names_comments_and_docs_are_not_prints() {
    let text = "//! ```\n//! println!(\"doc example\");\n//! ```\n/// println!(\"x\")\n// dbg!(x)\nfn f() {\n    my_println!(\"a\");\n    tracing::info!(\"println!\");\n    writeln!(out, \"a\")?;\n}\n";
    // The string on line 8 holds `println!"` (no opening bracket after the `!`), so it passes.
    assert_eq!(found(text, ALL), Vec::<String>::new());
}

#[test]
fn print_rule_is_off_when_not_asked() {
    let rules = Rules {
        no_print: false,
        ..ALL
    };
    assert_eq!(
        found("fn f() { println!(\"a\"); }\n", rules),
        Vec::<String>::new()
    );
}

#[test]
fn inline_test_modules_may_print_but_not_hold_placeholders() {
    let text = format!(
        "fn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{ println!(\"x\"); }}\n    fn u() {{ {TODO}() }}\n}}\n"
    );
    assert_eq!(found(&text, ALL), vec!["placeholder:7"]);
}

#[test]
fn a_path_test_module_declaration_does_not_exempt_what_follows() {
    let text = "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\nfn f() { println!(\"a\"); }\n";
    assert_eq!(found(text, ALL), vec!["print:4"]);
}

#[test]
fn placeholders_are_found() {
    let text = format!(
        "fn f() {{ {TODO}() }}\nfn g() {{ {UNIMPLEMENTED}(\"later\") }}\nfn h() {{ let {TODO}x; }}\n"
    );
    assert_eq!(found(&text, ALL), vec!["placeholder:1", "placeholder:2"]);
    let rules = Rules {
        no_placeholders: false,
        ..ALL
    };
    assert_eq!(found(&text, rules), Vec::<String>::new());
}

#[test]
fn std_command_new_is_found_by_path_or_import() {
    let by_path = "fn f() { let c = std::process::Command::new(\"git\"); }\n";
    assert_eq!(found(by_path, ALL), vec!["process:1"]);
    let by_import =
        "use std::process::Command;\n\nfn f() {\n    let c = Command::new(\"git\");\n}\n";
    assert_eq!(found(by_import, ALL), vec!["process:4"]);
    let grouped = "use std::process::{Command, Stdio};\nfn f() { Command::new(\"git\"); }\n";
    assert_eq!(found(grouped, ALL), vec!["process:2"]);
}

#[test]
fn other_commands_are_not_std_commands() {
    let tokio = "use tokio::process::Command;\nfn f() { Command::new(\"git\"); }\n";
    assert_eq!(found(tokio, ALL), Vec::<String>::new());
    let qualified = "use std::process::Command;\nfn f() { tokio::process::Command::new(\"git\"); MyCommand::new(); }\n";
    assert_eq!(found(qualified, ALL), Vec::<String>::new());
    let ext = "use std::process::CommandExt;\nfn f() { Command::new(\"git\"); }\n";
    assert_eq!(found(ext, ALL), Vec::<String>::new());
    let rules = Rules {
        no_process_command: false,
        ..ALL
    };
    assert_eq!(
        found("fn f() { std::process::Command::new(\"git\"); }\n", rules),
        Vec::<String>::new()
    );
}

#[test]
fn messages_name_the_file_line_and_reason() {
    let findings = check("crates/a/src/b.rs", "fn f() {\n    dbg!(1);\n}\n", ALL);
    assert_eq!(
        findings[0].to_string(),
        "error[print] crates/a/src/b.rs:2: `dbg!` in library code; libraries never print (return the data or log with `tracing`)"
    );
}
