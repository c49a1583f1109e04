//! A problem found by `tidy` or `deps`: which check, how bad, where, and why.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Finding {
    pub(crate) severity: Severity,
    /// The short name of the check, e.g. `floors` or `file-size`.
    pub(crate) check: &'static str,
    /// Path relative to the workspace root, `/`-separated.
    pub(crate) path: String,
    pub(crate) line: Option<usize>,
    pub(crate) message: String,
}

impl Finding {
    pub(crate) fn error(check: &'static str, path: impl Into<String>, message: String) -> Self {
        Self {
            severity: Severity::Error,
            check,
            path: path.into(),
            line: None,
            message,
        }
    }

    pub(crate) fn warning(check: &'static str, path: impl Into<String>, message: String) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(check, path, message)
        }
    }

    pub(crate) fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{severity}[{}] {}", self.check, self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}
