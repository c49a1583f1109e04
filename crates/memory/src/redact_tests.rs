use pretty_assertions::assert_eq;

use super::*;

/// Samples: `kind<TAB>text` per line; `\n` in a text stands for a line break.
const SECRETS: &str = include_str!("../tests/fixtures/redaction/secrets.txt");

fn samples() -> Vec<(&'static str, String)> {
    SECRETS
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (kind, text) = line.split_once('\t').expect("kind<TAB>text");
            (kind, text.replace("\\n", "\n"))
        })
        .collect()
}

#[test]
fn every_pattern_compiles() {
    assert_eq!(compiled_patterns(), PATTERN_COUNT);
}

#[test]
fn every_sample_is_redacted_by_its_own_kind() {
    let samples = samples();
    let required = [
        "openai",
        "anthropic",
        "github",
        "aws_access_key_id",
        "aws_secret_access_key",
        "google",
        "slack",
        "slack_webhook",
        "stripe",
        "jwt",
        "url_password",
        "env_assignment",
        "password_assignment",
        "password_flag",
        "bearer",
        "private_key",
    ];
    for kind in required {
        assert!(
            samples.iter().any(|(k, _)| *k == kind),
            "the corpus has no sample of {kind}"
        );
    }
    for (kind, text) in &samples {
        assert!(
            secret_kinds(text).contains(kind),
            "{kind} not detected in {text:?}: {:?}",
            secret_kinds(text)
        );
        let redacted = redact_secrets(text);
        assert!(
            redacted.contains(REDACTED_SECRET),
            "{kind}: nothing redacted in {text:?}"
        );
        assert!(
            secret_kinds(&redacted).is_empty(),
            "{kind}: still a secret after redaction: {redacted:?}"
        );
    }
}

#[test]
fn redaction_keeps_the_non_secret_context() {
    assert_eq!(
        redact_secrets("DATABASE_URL=postgres://admin:hunter2hunter2@db.internal:5432/app"),
        "DATABASE_URL=postgres://admin:[REDACTED_SECRET]@db.internal:5432/app"
    );
    assert_eq!(
        redact_secrets("export GITHUB_TOKEN=abcdef1234567890 && make"),
        "export GITHUB_TOKEN=[REDACTED_SECRET] && make"
    );
    assert_eq!(
        redact_secrets("run with sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123 then stop"),
        "run with [REDACTED_SECRET] then stop"
    );
}

/// Ordinary code and prose: this crate's own sources (so the test travels with a vendored
/// crate), and snippets full of words like token, password and key.
#[test]
fn ordinary_code_is_left_alone() {
    let corpus = [
        include_str!("state_db.rs"),
        include_str!("phase1.rs"),
        include_str!("phase2.rs"),
        include_str!("storage.rs"),
        include_str!("thread_sync.rs"),
        include_str!("usage.rs"),
        include_str!("offline_extraction.rs"),
        include_str!("../tests/fixtures/redaction/ordinary.txt"),
    ];
    for text in corpus {
        let redacted = redact_secrets(text);
        if redacted != text {
            let changed: Vec<(&str, &str)> = text
                .lines()
                .zip(redacted.lines())
                .filter(|(a, b)| a != b)
                .collect();
            panic!("false positive: {changed:?}");
        }
    }
}
