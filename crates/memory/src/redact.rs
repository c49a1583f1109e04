//! Secret redaction: API keys and tokens of the common providers, JWTs, private key blocks,
//! passwords in URLs and secret-looking environment assignments become
//! [`REDACTED_SECRET`]. Phase 1 runs it on everything it stores. The patterns and why each is
//! shaped as it is are in docs/design/memory.md, "Redaction".

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// What a secret is replaced with.
pub const REDACTED_SECRET: &str = "[REDACTED_SECRET]";

/// A pattern and what of its match is replaced.
struct SecretPattern {
    /// Which kind of secret (for tests and docs).
    kind: &'static str,
    regex: Regex,
    /// Replacement; `$keep` groups keep the non-secret part of the match.
    replacement: &'static str,
}

/// Pattern sources. A pattern that fails to compile is left out (and caught by the unit test
/// that counts them), never a panic.
const PATTERNS: [(&str, &str, &str); 16] = [
    // Private key blocks (PEM and OpenSSH), whole.
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        "[REDACTED_SECRET]",
    ),
    // Anthropic keys (sk-ant-api03-..., sk-ant-admin01-...).
    (
        "anthropic",
        r"\bsk-ant-[a-z]+\d{0,3}-[A-Za-z0-9_\-]{20,}",
        "[REDACTED_SECRET]",
    ),
    // OpenAI keys: sk-..., sk-proj-..., sk-svcacct-..., sk-admin-....
    (
        "openai",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}",
        "[REDACTED_SECRET]",
    ),
    // GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained PATs.
    (
        "github",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        "[REDACTED_SECRET]",
    ),
    // AWS access key ids.
    (
        "aws_access_key_id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b",
        "[REDACTED_SECRET]",
    ),
    // AWS secret access keys next to their name, in any assignment style.
    (
        "aws_secret_access_key",
        r#"(?i)(?P<keep>aws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}"#,
        "${keep}[REDACTED_SECRET]",
    ),
    // Google API keys and OAuth client secrets / access tokens.
    (
        "google",
        r"\b(?:AIza[0-9A-Za-z_\-]{35}|GOCSPX-[0-9A-Za-z_\-]{20,}|ya29\.[0-9A-Za-z_\-]{20,})",
        "[REDACTED_SECRET]",
    ),
    // Slack tokens and incoming-webhook URLs.
    (
        "slack",
        r"\b(?:xox[abprse]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})",
        "[REDACTED_SECRET]",
    ),
    (
        "slack_webhook",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]+",
        "[REDACTED_SECRET]",
    ),
    // Stripe secret and restricted keys, and webhook signing secrets.
    (
        "stripe",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}",
        "[REDACTED_SECRET]",
    ),
    // JSON Web Tokens (three base64url parts, the first two JSON objects).
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        "[REDACTED_SECRET]",
    ),
    // Passwords in URLs: scheme://user:password@host keeps the user.
    (
        "url_password",
        r"(?P<keep>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^@\s/\[]+@",
        "${keep}[REDACTED_SECRET]@",
    ),
    // Environment assignments of secret-named variables: NAME=value, export NAME="value".
    // The name must end in the secret word, so MAX_TOKENS=4096 or TOKEN_LIMIT=5 are left alone,
    // and a value that references another variable ($X, ${X}) is not a secret.
    (
        "env_assignment",
        r#"(?P<keep>\b[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|CREDENTIALS)\s*=\s*["']?)[^\s"'$\[][^\s"']{5,}"#,
        "${keep}[REDACTED_SECRET]",
    ),
    // `password=...` / `password: "..."` in config and command lines (lowercase keys).
    (
        "password_assignment",
        r#"(?i)(?P<keep>\b(?:password|passwd|pwd)["']?\s*[=:]\s*["'])[^"'\s\[]{4,}(?P<close>["'])"#,
        "${keep}[REDACTED_SECRET]${close}",
    ),
    // `--password value` / `--password=value` / `-p'value'`-free forms on command lines.
    (
        "password_flag",
        r#"(?P<keep>--(?:password|passwd|token|api-key|secret)(?:=|\s+)["']?)[^\s"'$\[-][^\s"']{3,}"#,
        "${keep}[REDACTED_SECRET]",
    ),
    // Bearer tokens in Authorization headers.
    (
        "bearer",
        r"(?P<keep>(?i:authorization:\s*bearer|bearer)\s+)[A-Za-z0-9_\-\.=:/+]{20,}",
        "${keep}[REDACTED_SECRET]",
    ),
];

static COMPILED: LazyLock<Vec<SecretPattern>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .filter_map(|(kind, source, replacement)| match Regex::new(source) {
            Ok(regex) => Some(SecretPattern {
                kind,
                regex,
                replacement,
            }),
            Err(error) => {
                tracing::error!(kind, %error, "secret pattern does not compile; left out");
                None
            }
        })
        .collect()
});

/// `text` with every secret replaced by [`REDACTED_SECRET`].
pub fn redact_secrets(text: &str) -> String {
    let mut current: Cow<'_, str> = Cow::Borrowed(text);
    for pattern in COMPILED.iter() {
        if let Cow::Owned(replaced) = pattern.regex.replace_all(&current, pattern.replacement) {
            current = Cow::Owned(replaced);
        }
    }
    current.into_owned()
}

/// The kinds of secret `text` contains (for tests and diagnostics).
pub fn secret_kinds(text: &str) -> Vec<&'static str> {
    COMPILED
        .iter()
        .filter(|pattern| pattern.regex.is_match(text))
        .map(|pattern| pattern.kind)
        .collect()
}

#[cfg(test)]
/// How many patterns compiled (all of them, unless a pattern is broken).
pub(crate) fn compiled_patterns() -> usize {
    COMPILED.len()
}

#[cfg(test)]
/// How many patterns there are.
pub(crate) const PATTERN_COUNT: usize = PATTERNS.len();

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
