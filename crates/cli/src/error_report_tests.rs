use pretty_assertions::assert_eq;

use super::one_line;

/// A library error in our crates' style: the cause in its message and as its source.
#[derive(Debug)]
struct ReadError {
    path: String,
    source: std::io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read {}: {}", self.path, self.source)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[test]
fn a_cause_the_message_already_holds_is_printed_once() {
    let error = anyhow::Error::new(ReadError {
        path: "a.toml".to_string(),
        source: std::io::Error::other("permission denied"),
    })
    .context("invalid settings");
    assert_eq!(
        one_line(&error),
        "invalid settings: cannot read a.toml: permission denied"
    );
}

#[test]
fn causes_not_in_the_message_are_all_printed() {
    let error = anyhow::Error::new(std::io::Error::other("disk full"))
        .context("cannot save")
        .context("memory build failed");
    assert_eq!(
        one_line(&error),
        "memory build failed: cannot save: disk full"
    );
}
