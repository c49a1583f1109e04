//! The texts of the generated sessions: source files as `Read` shows them, build and test
//! logs, grep hits, prose; and the seeded generator every choice is drawn from.

use std::fmt::Write as _;

use super::BYTES_PER_TOKEN;

/// Knuth's MMIX linear congruential generator, its high bits taken.
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// Uniform in `low..=high`.
    pub(super) fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    /// Skewed towards `low`: the smaller of two draws.
    pub(super) fn low_range(&mut self, low: u64, high: u64) -> u64 {
        self.range(low, high).min(self.range(low, high))
    }

    pub(super) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }

    pub(super) fn hex(&mut self, digits: usize) -> String {
        let mut out = String::with_capacity(digits);
        for _ in 0..digits {
            let digit = (self.next() % 16) as u32;
            out.push(char::from_digit(digit, 16).unwrap());
        }
        out
    }

    pub(super) fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-{}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.pick(&["8", "9", "a", "b"]),
            self.hex(3),
            self.hex(12)
        )
    }

    pub(super) fn base62(&mut self, length: usize) -> String {
        const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..length)
            .map(|_| char::from(DIGITS[(self.next() % 62) as usize]))
            .collect()
    }
}

/// Files a session reads and edits.
pub(super) const FILES: [&str; 14] = [
    "src/ledger/mod.rs",
    "src/ledger/journal.rs",
    "src/ledger/posting.rs",
    "src/import/csv.rs",
    "src/import/ofx.rs",
    "src/report/balance.rs",
    "src/report/register.rs",
    "src/cli.rs",
    "src/config.rs",
    "src/money.rs",
    "tests/import_csv.rs",
    "tests/balance.rs",
    "Cargo.toml",
    "docs/design.md",
];
pub(super) const WORDS: [&str; 24] = [
    "amount",
    "posting",
    "account",
    "journal",
    "balance",
    "currency",
    "entry",
    "ledger",
    "date",
    "payee",
    "commodity",
    "rate",
    "total",
    "parse",
    "line",
    "record",
    "error",
    "result",
    "value",
    "report",
    "import",
    "config",
    "period",
    "budget",
];
pub(super) const TYPES: [&str; 8] = [
    "Posting", "Journal", "Amount", "Account", "Money", "Entry", "Report", "Period",
];

/// `tokens` worth of source code as Claude Code's `Read` shows it: numbered lines.
pub(super) fn file_text(rng: &mut Lcg, tokens: u64) -> String {
    let bytes = (tokens as f64 * BYTES_PER_TOKEN) as usize;
    let mut out = String::with_capacity(bytes + 80);
    let mut number = 1;
    while out.len() < bytes {
        let indent = "    ".repeat(rng.range(0, 3) as usize);
        let line = match rng.range(0, 7) {
            0 => format!(
                "{indent}pub fn {}_{}(&self, {}: &{}) -> Result<{}, Error> {{",
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&TYPES),
                rng.pick(&TYPES)
            ),
            1 => format!(
                "{indent}let {} = self.{}.get(&{}).ok_or(Error::Missing{})?;",
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&TYPES)
            ),
            2 => format!(
                "{indent}// The {} of the {}, in the {}'s {}.",
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&WORDS)
            ),
            3 => format!("{indent}}}"),
            4 => String::new(),
            5 => format!(
                "{indent}if {}.{} > {} {{",
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.range(0, 10_000)
            ),
            _ => format!(
                "{indent}{}.push({}::new({}, {}));",
                rng.pick(&WORDS),
                rng.pick(&TYPES),
                rng.pick(&WORDS),
                rng.pick(&WORDS)
            ),
        };
        let _ = writeln!(out, "{number:>6}→{line}");
        number += 1;
    }
    out
}

/// `tokens` worth of a shell command's output: a build and test log.
pub(super) fn shell_text(rng: &mut Lcg, tokens: u64) -> String {
    let bytes = (tokens as f64 * BYTES_PER_TOKEN) as usize;
    let mut out = String::with_capacity(bytes + 80);
    while out.len() < bytes {
        match rng.range(0, 4) {
            0 => {
                let _ = writeln!(
                    out,
                    "   Compiling {}-{} v0.{}.{} (/home/mira/src/ledgerd/crates/{})",
                    rng.pick(&WORDS),
                    rng.pick(&WORDS),
                    rng.range(1, 9),
                    rng.range(0, 20),
                    rng.pick(&WORDS)
                );
            }
            1 | 2 => {
                let _ = writeln!(
                    out,
                    "test {}::tests::{}_{}_{} ... ok",
                    rng.pick(&WORDS),
                    rng.pick(&WORDS),
                    rng.pick(&WORDS),
                    rng.pick(&WORDS)
                );
            }
            3 => {
                let _ = writeln!(
                    out,
                    "warning: unused variable: `{}`\n  --> {}:{}:{}",
                    rng.pick(&WORDS),
                    rng.pick(&FILES),
                    rng.range(1, 900),
                    rng.range(1, 60)
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{} | {} {} {:>10}.{:02} {}",
                    rng.range(2019, 2026),
                    rng.pick(&WORDS),
                    rng.pick(&WORDS),
                    rng.range(0, 99_999),
                    rng.range(0, 99),
                    rng.pick(&["EUR", "USD", "GBP"])
                );
            }
        }
    }
    out.push_str("test result: ok. 214 passed; 0 failed; 0 ignored; 0 measured\n");
    out
}

/// `tokens` worth of `Grep` output: `path:line:text`.
pub(super) fn grep_text(rng: &mut Lcg, tokens: u64) -> String {
    let bytes = (tokens as f64 * BYTES_PER_TOKEN) as usize;
    let mut out = String::with_capacity(bytes + 80);
    while out.len() < bytes {
        let _ = writeln!(
            out,
            "{}:{}:        let {} = {}.{}({});",
            rng.pick(&FILES),
            rng.range(1, 1_200),
            rng.pick(&WORDS),
            rng.pick(&WORDS),
            rng.pick(&WORDS),
            rng.pick(&WORDS)
        );
    }
    out
}

/// Prose of `tokens` tokens: a user's prompt, an answer, a summary.
pub(super) fn prose(rng: &mut Lcg, tokens: u64) -> String {
    let bytes = (tokens as f64 * BYTES_PER_TOKEN) as usize;
    let mut out = String::with_capacity(bytes + 80);
    while out.len() < bytes {
        let _ = write!(
            out,
            "The {} in `{}` should keep the {} of each {} when the {} changes. ",
            rng.pick(&WORDS),
            rng.pick(&FILES),
            rng.pick(&WORDS),
            rng.pick(&WORDS),
            rng.pick(&WORDS)
        );
    }
    out
}

/// The provider's count of `text`.
pub(super) fn tokens_of(text: &str) -> u64 {
    (text.len() as f64 / BYTES_PER_TOKEN).ceil() as u64
}
