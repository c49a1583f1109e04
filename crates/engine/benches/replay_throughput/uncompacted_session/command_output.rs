//! What the generated session's shell calls print: source listings, test runs, clippy's
//! errors, diffs, searches and listings, from the generated files of the project.

use std::fmt::Write as _;

use super::CWD;
use super::FIELDS;
use super::HEX;
use super::MODULES;
use super::Rng;
use super::TYPES;
use super::VERBS;

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// A Rust source file of about `lines` lines.
pub(super) fn source_file(rng: &mut Rng, module: &str, lines: usize) -> String {
    let mut out = format!(
        "//! {}: the `{}` of a `{}`, and what `{}_{}` does with it.\n\n\
        use std::collections::BTreeMap;\n\nuse crate::money::Cents;\n",
        capitalised(module),
        rng.pick(&FIELDS),
        rng.pick(&TYPES),
        rng.pick(&VERBS),
        rng.pick(&FIELDS),
    );
    while out.lines().count() < lines {
        let ty = format!("{}{}", rng.pick(&TYPES), rng.between(1, 9));
        let _ = write!(
            out,
            "\n/// A {} of the {module}.\n#[derive(Debug, Clone, PartialEq)]\npub struct {ty} {{\n",
            rng.pick(&FIELDS)
        );
        for _ in 0..rng.between(2, 6) {
            let _ = writeln!(
                out,
                "    pub {}: {},",
                rng.pick(&FIELDS),
                rng.pick(&["Cents", "String", "Option<Date>", "Vec<Tag>", "u32", "bool"])
            );
        }
        out.push_str("}\n\n");
        let _ = writeln!(out, "impl {ty} {{");
        for _ in 0..rng.between(2, 5) {
            let (verb, field, other) = (rng.pick(&VERBS), rng.pick(&FIELDS), rng.pick(&FIELDS));
            let _ = write!(
                out,
                "    /// The {field} of every entry on or after `since`.\n    pub fn \
                {verb}_{field}(&self, since: Date, ledger: &Ledger) -> Result<BTreeMap<String, \
                Cents>, {}Error> {{\n        let mut totals = BTreeMap::new();\n",
                capitalised(module),
            );
            for _ in 0..rng.between(3, 12) {
                let line = match rng.between(0, 5) {
                    0 => format!(
                        "        for entry in ledger.entries().filter(|entry| entry.date >= \
                        since) {{\n            \
                        *totals.entry(entry.{field}.to_string()).or_insert(Cents(0)) += \
                        entry.amount;\n        }}\n"
                    ),
                    1 => format!(
                        "        if self.{other}.is_empty() {{\n            return \
                        Err({}Error::Missing(\"{other}\".into()));\n        }}\n",
                        capitalised(module)
                    ),
                    2 => format!(
                        "        let {other} = {}(&self.{field}, since)?;\n",
                        rng.pick(&VERBS)
                    ),
                    3 => format!(
                        "        tracing::debug!(count = totals.len(), \"{verb} {field}\");\n"
                    ),
                    4 => format!(
                        "        // A {field} with no {other} keeps the ledger's default.\n"
                    ),
                    _ => format!(
                        "        let {field}: Vec<_> = ledger.{other}().iter().map(|x| \
                        x.{field}.clone()).collect();\n"
                    ),
                };
                out.push_str(&line);
            }
            out.push_str("        Ok(totals)\n    }\n\n");
        }
        out.push_str("}\n");
    }
    let _ = write!(
        out,
        "\n#[cfg(test)]\n#[path = \"{module}_tests.rs\"]\nmod tests;\n"
    );
    out
}

/// Lines `from..=to` of `file`, numbered as `nl -ba` numbers them when `numbered`.
pub(super) fn line_range(file: &str, from: usize, to: usize, numbered: bool) -> String {
    let mut out = String::new();
    for (index, line) in file.lines().enumerate().skip(from - 1).take(to + 1 - from) {
        if numbered {
            let _ = writeln!(out, "{:>6}\t{line}", index + 1);
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `rg -n` over the generated files: the lines holding one of the pattern's words.
pub(super) fn search(rng: &mut Rng, files: &[String], pattern: &str) -> String {
    let word = pattern.split('_').next_back().unwrap_or(pattern);
    let mut out = String::new();
    let limit = rng.between(300, 4_000);
    for (module, file) in MODULES.iter().zip(files) {
        for (index, line) in file.lines().enumerate() {
            if line.contains(word) && rng.chance(25) {
                let _ = writeln!(out, "src/{module}.rs:{}:{line}", index + 1);
                if out.len() > limit {
                    return out;
                }
            }
        }
    }
    out
}

/// `cargo test`'s output, and whether a test failed.
pub(super) fn test_run(rng: &mut Rng) -> (String, bool) {
    let mut out = format!(
        "   Compiling tally v0.9.{} ({CWD})\n    Finished `test` profile [unoptimized + \
        debuginfo] target(s) in {}.{:02}s\n     Running unittests src/lib.rs \
        (target/debug/deps/tally-{})\n\
        \n",
        rng.between(0, 9),
        rng.between(2, 40),
        rng.between(0, 99),
        rng.word(HEX, 16),
    );
    let tests = rng.between(20, 220);
    let failing = if rng.chance(30) {
        Some(rng.between(0, tests - 1))
    } else {
        None
    };
    let _ = writeln!(out, "running {tests} tests");
    for index in 0..tests {
        let status = if failing == Some(index) {
            "FAILED"
        } else {
            "ok"
        };
        let _ = writeln!(
            out,
            "test {}::tests::{}_{}_{} ... {status}",
            rng.pick(&MODULES),
            rng.pick(&VERBS),
            rng.pick(&FIELDS),
            rng.pick(&[
                "on_an_empty_ledger",
                "keeps_order",
                "across_months",
                "with_tags",
                "rejects_bad_input",
                "at_the_boundary"
            ]),
        );
    }
    if failing.is_some() {
        let module = rng.pick(&MODULES);
        let _ = write!(
            out,
            "\nfailures:\n\n---- {module}::tests::totals stdout ----\n\n\
            thread '{module}::tests::totals' panicked at src/{module}_tests.rs:{}:5:\n\
            assertion `left == right` failed\n  left: Cents({})\n right: Cents({})\n\
            note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\n\
            failures:\n    {module}::tests::totals\n\n",
            rng.between(10, 400),
            rng.between(100, 99_999),
            rng.between(100, 99_999),
        );
    }
    let _ = writeln!(
        out,
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; 0 filtered out; \
        finished in 0.{:02}s",
        if failing.is_some() { "FAILED" } else { "ok" },
        tests - usize::from(failing.is_some()),
        usize::from(failing.is_some()),
        rng.between(1, 99),
    );
    (out, failing.is_some())
}

/// `cargo clippy`'s warnings, denied.
pub(super) fn clippy(rng: &mut Rng) -> String {
    let mut out = String::from("    Checking tally v0.9.0 (/home/mira/src/tally)\n");
    let warnings = rng.between(1, 12);
    for _ in 0..warnings {
        let (module, line, field) = (rng.pick(&MODULES), rng.between(10, 800), rng.pick(&FIELDS));
        let (was, now) = (
            format!("self.{field}.map_or(false, |value| value.is_empty())"),
            format!("self.{field}.is_some_and(|value| value.is_empty())"),
        );
        let lines = [
            "error: this `map_or` can be simplified".to_string(),
            format!("  --> src/{module}.rs:{line}:9"),
            "   |".to_string(),
            format!("{line:>3} |         {was}"),
            format!("   |         {}", "^".repeat(was.len())),
            "   |".to_string(),
            "   = help: for further information visit \
                https://rust-lang.github.io/rust-clippy/master/index.html#unnecessary_map_or"
                .to_string(),
            "   = note: `-D clippy::unnecessary-map-or` implied by `-D warnings`".to_string(),
            "help: use `is_some_and` instead".to_string(),
            "   |".to_string(),
            format!("{line:>3} -         {was}"),
            format!("{line:>3} +         {now}"),
            "   |".to_string(),
            String::new(),
        ];
        for text in lines {
            let _ = writeln!(out, "{text}");
        }
    }
    let _ = writeln!(
        out,
        "error: could not compile `tally` (lib) due to {warnings} previous errors"
    );
    out
}

/// `git diff` of a few hunks of the generated files.
pub(super) fn diff(rng: &mut Rng, files: &[String]) -> String {
    let mut out = String::new();
    for _ in 0..rng.between(1, 4) {
        let index = rng.between(0, files.len() - 1);
        let module = MODULES[index];
        let lines: Vec<&str> = files[index].lines().collect();
        let _ = write!(
            out,
            "diff --git a/src/{module}.rs b/src/{module}.rs\nindex {}..{} 100644\n\
            --- a/src/{module}.rs\n+++ b/src/{module}.rs\n",
            rng.word(HEX, 7),
            rng.word(HEX, 7),
        );
        for _ in 0..rng.between(1, 5) {
            let at = rng.between(0, lines.len().saturating_sub(30));
            let length = rng.between(6, 24).min(lines.len() - at);
            let _ = writeln!(
                out,
                "@@ -{},{length} +{},{} @@ impl {} {{",
                at + 1,
                at + 1,
                length + 1,
                rng.pick(&TYPES)
            );
            for (offset, line) in lines.iter().skip(at).take(length).enumerate() {
                if offset == length / 2 {
                    let _ = writeln!(
                        out,
                        "-{line}\n+{}\n+        // {} stays sorted.",
                        line.replace("since", "until"),
                        rng.pick(&FIELDS)
                    );
                } else {
                    let _ = writeln!(out, " {line}");
                }
            }
        }
    }
    out
}

/// `git status --short && ls src`.
pub(super) fn listing(rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..rng.between(1, 5) {
        let _ = writeln!(out, " M src/{}.rs", rng.pick(&MODULES));
    }
    for module in MODULES {
        let _ = writeln!(out, "{module}.rs\n{module}_tests.rs");
    }
    out.push_str("lib.rs\nmain.rs\n");
    out
}
