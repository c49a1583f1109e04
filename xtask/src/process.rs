//! The one place xtask starts external programs.
//!
//! Every command runs in the workspace root, is echoed before it runs, and a failure names the
//! full command line and its exit status (plus its stderr when the output was captured).

use std::path::Path;
use std::path::PathBuf;
use std::process::Stdio;

use anyhow::Context;
use anyhow::Result;
use anyhow::bail;

/// An external command: program, arguments and extra environment for the child only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    program: String,
    args: Vec<String>,
    envs: Vec<(String, String)>,
    /// Where the command runs; the workspace root when `None`.
    dir: Option<PathBuf>,
}

impl Cmd {
    pub(crate) fn new(program: impl Into<String>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            envs: Vec::new(),
            dir: None,
        }
    }

    /// `cargo` with its first arguments, e.g. `Cmd::cargo(["test", "--workspace"])`.
    pub(crate) fn cargo<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new("cargo").args(args)
    }

    pub(crate) fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child process only; xtask's own environment is
    /// never changed.
    pub(crate) fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// [`Cmd::env`] for each pair.
    pub(crate) fn envs<'a>(mut self, vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        for (key, value) in vars {
            self = self.env(key, value);
        }
        self
    }

    /// Runs the command in `dir` instead of the workspace root.
    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The command as a shell would show it: `KEY=value program arg 'arg with space'`.
    pub(crate) fn display(&self) -> String {
        let envs = self.envs.iter().map(|(k, v)| format!("{k}={}", quote(v)));
        let words = std::iter::once(quote(&self.program)).chain(self.args.iter().map(|a| quote(a)));
        let line = envs.chain(words).collect::<Vec<_>>().join(" ");
        match &self.dir {
            Some(dir) => format!("cd {} && {line}", quote(&dir.to_string_lossy())),
            None => line,
        }
    }

    /// Runs with inherited stdio; fails when the command cannot start or exits unsuccessfully.
    pub(crate) fn run(&self) -> Result<()> {
        println!("$ {}", self.display());
        let status = self
            .command()
            .status()
            .with_context(|| format!("could not start `{}`", self.display()))?;
        if !status.success() {
            bail!("`{}` failed: {status}", self.display());
        }
        Ok(())
    }

    /// Runs with captured output and returns stdout; a failure carries the captured stderr.
    pub(crate) fn read_stdout(&self) -> Result<String> {
        let output = self
            .command()
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("could not start `{}`", self.display()))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            bail!(
                "`{}` failed: {}\n{}",
                self.display(),
                output.status,
                stderr.trim_end()
            );
        }
        String::from_utf8(output.stdout)
            .with_context(|| format!("`{}` wrote stdout that is not UTF-8", self.display()))
    }

    /// Runs with stderr shown and stdout captured; returns whether it succeeded and its stdout.
    /// For commands whose report is read (`cargo test` result lines) but whose progress the
    /// user still sees.
    pub(crate) fn run_capturing_stdout(&self) -> Result<(bool, String)> {
        println!("$ {}", self.display());
        let output = self
            .command()
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("could not start `{}`", self.display()))?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        Ok((output.status.success(), stdout))
    }

    /// Runs with stdout shown and stderr captured; returns whether it succeeded and its stderr.
    /// For programs that report on stderr (libFuzzer's final statistics).
    pub(crate) fn run_capturing_stderr(&self) -> Result<(bool, String)> {
        println!("$ {}", self.display());
        let output = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .output()
            .with_context(|| format!("could not start `{}`", self.display()))?;
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        Ok((output.status.success(), stderr))
    }

    /// Whether the command starts and exits successfully; all output is discarded. Used to
    /// probe for tools (`cargo deny --version`).
    pub(crate) fn succeeds_quietly(&self) -> bool {
        self.command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "this is xtask's process helper, the one place allowed to build a Command"
    )]
    fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command
            .args(&self.args)
            .current_dir(self.dir.as_deref().unwrap_or(crate::workspace::root()));
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
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
