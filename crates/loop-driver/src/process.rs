//! The one place the loop driver (and so the workspace) starts `git`.
//!
//! Every command runs in a given directory with stdin closed (or fed from bytes), its stdout and
//! stderr captured, extra environment set on the child only, and every failure mapped to a typed
//! [`GitCommandError`] that names the whole command line, its exit status and its stderr.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Stdio;

/// A failure to run a git command.
#[derive(Debug, thiserror::Error)]
pub enum GitCommandError {
    /// The program could not be started (not installed, not executable).
    #[error("could not start `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// Writing stdin or reading the output failed.
    #[error("i/o with `{command}` failed: {source}")]
    Io {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The command ran and exited unsuccessfully.
    #[error("`{command}` failed ({status}): {stderr}")]
    Failed {
        /// The command line.
        command: String,
        /// The exit status as the OS reports it.
        status: String,
        /// The exit code, when the process exited normally.
        code: Option<i32>,
        /// Its standard error, trimmed.
        stderr: String,
        /// Its standard output, trimmed (git prints some failures there, e.g. "nothing to
        /// commit").
        stdout: String,
    },
}

/// The captured result of a git command that exited successfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitOutput {
    /// Standard output, raw bytes (porcelain `-z` output is NUL-separated and may hold any
    /// path bytes).
    pub stdout: Vec<u8>,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

impl GitOutput {
    /// Standard output decoded lossily and trimmed.
    pub fn stdout_trimmed(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_owned()
    }
}

/// One `git` invocation: arguments, extra child environment, working directory and stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitCommand {
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    dir: PathBuf,
    stdin: Option<Vec<u8>>,
}

impl GitCommand {
    /// `git` run in `dir`.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            args: Vec::new(),
            envs: Vec::new(),
            dir: dir.as_ref().to_path_buf(),
            stdin: None,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets environment variables on the child process only; the caller's own environment is
    /// never changed.
    pub fn envs<I, K, V>(mut self, envs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.envs
            .extend(envs.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Feeds `bytes` to the child's stdin (closed otherwise).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// The command as a shell would show it, for error messages and logs.
    pub fn display(&self) -> String {
        let words = std::iter::once("git".to_owned())
            .chain(self.args.iter().map(|arg| quote(&arg.to_string_lossy())));
        let line = words.collect::<Vec<_>>().join(" ");
        format!("cd {} && {line}", quote(&self.dir.to_string_lossy()))
    }

    /// Runs the command and returns its output, or a typed error when it cannot start or exits
    /// unsuccessfully.
    pub fn run(&self) -> Result<GitOutput, GitCommandError> {
        let mut command = self.command();
        command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|source| GitCommandError::Spawn {
            command: self.display(),
            source,
        })?;
        if let (Some(bytes), Some(mut stdin)) = (&self.stdin, child.stdin.take()) {
            // Git reads all of stdin before writing much output for the commands we feed
            // (`hash-object --stdin`, `commit -F -`), so writing first cannot deadlock.
            stdin
                .write_all(bytes)
                .map_err(|source| GitCommandError::Io {
                    command: self.display(),
                    source,
                })?;
        }
        let output = child
            .wait_with_output()
            .map_err(|source| GitCommandError::Io {
                command: self.display(),
                source,
            })?;
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        if !output.status.success() {
            return Err(GitCommandError::Failed {
                command: self.display(),
                status: output.status.to_string(),
                code: output.status.code(),
                stderr,
                stdout: String::from_utf8_lossy(&output.stdout).trim().to_owned(),
            });
        }
        Ok(GitOutput {
            stdout: output.stdout,
            stderr,
        })
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "this is the loop driver's process helper, the one place allowed to build a Command"
    )]
    fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new("git");
        command.args(&self.args).current_dir(&self.dir);
        // Git must never stop to ask for anything (an editor, a credential): the loop runs
        // unattended, and a prompt would hang it.
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_EDITOR", "true");
        for (key, value) in &self.envs {
            command.env(key, value);
        }
        command
    }
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
