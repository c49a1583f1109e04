//! The git operations of the loop: HEAD, uncommitted changes, changed files since the base,
//! commit-if-needed, a fingerprint of an iteration's diff, and the latest plan file. Every one
//! goes through the `git` binary via [`crate::process`]; see docs/design/loop-driver.md, "Git".

use std::ffi::OsString;
use std::path::Path;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::porcelain::PorcelainError;
use crate::porcelain::StatusEntry;
use crate::porcelain::parse_porcelain_z;
use crate::process::GitCommand;
use crate::process::GitCommandError;

/// A failed git operation.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The path is not inside a git work tree.
    #[error("{path} is not inside a git work tree: {source}")]
    NotARepository {
        /// The path the loop was given.
        path: PathBuf,
        /// What git said.
        source: Box<GitCommandError>,
    },
    /// A git command failed.
    #[error(transparent)]
    Command(Box<GitCommandError>),
    /// `git status` wrote a record this crate cannot parse.
    #[error(transparent)]
    Porcelain(#[from] PorcelainError),
    /// The blocking task that ran git did not finish (the runtime is shutting down).
    #[error("the git task did not finish: {0}")]
    Task(String),
    /// `git commit` refused to commit: a hook rejected it, no identity is configured, or
    /// signing failed. The changes stay staged in the work tree.
    #[error("git commit failed: {stderr}")]
    CommitFailed {
        /// The command line.
        command: String,
        /// The exit code, when git exited normally.
        code: Option<i32>,
        /// What git (or the hook) wrote to stderr.
        stderr: String,
        /// What it wrote to stdout (hooks often print their reasons there).
        stdout: String,
    },
}

// Boxed: the command error carries the command line and its output, and every `Result` of
// this module would otherwise be that large.
impl From<GitCommandError> for GitError {
    fn from(error: GitCommandError) -> Self {
        Self::Command(Box::new(error))
    }
}

/// A plan file found for the loop: its path and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// Where it was read.
    pub path: PathBuf,
    /// Its text.
    pub content: String,
}

/// A git work tree the loop operates on, with the extra environment every git child gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRepo {
    root: PathBuf,
    envs: Vec<(OsString, OsString)>,
}

impl GitRepo {
    /// The work tree containing `path` (its top level), or [`GitError::NotARepository`].
    /// `envs` are set on every git child process (never on this process), e.g.
    /// `GIT_CONFIG_GLOBAL` to isolate the loop from the user's configuration.
    pub fn discover(path: &Path, envs: Vec<(OsString, OsString)>) -> Result<Self, GitError> {
        let output = GitCommand::new(path)
            .envs(envs.iter().cloned())
            .args(["rev-parse", "--show-toplevel"])
            .run()
            .map_err(|source| GitError::NotARepository {
                path: path.to_path_buf(),
                source: Box::new(source),
            })?;
        Ok(Self {
            root: PathBuf::from(output.stdout_trimmed()),
            envs,
        })
    }

    /// The top level of the work tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A git command in the work tree's top level with the repository's environment.
    pub fn command(&self) -> GitCommand {
        GitCommand::new(&self.root).envs(self.envs.iter().cloned())
    }

    /// The full id of the commit HEAD points at, or `None` in a repository with no commits
    /// yet. A detached HEAD is fine: it names a commit.
    pub fn head_commit(&self) -> Result<Option<String>, GitError> {
        let result = self
            .command()
            .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            .run();
        match result {
            Ok(output) => Ok(Some(output.stdout_trimmed())),
            // `--verify --quiet` exits 1 without a word when HEAD names no commit (an unborn
            // branch); anything else is a real failure.
            Err(GitCommandError::Failed {
                code: Some(1),
                ref stderr,
                ..
            }) if stderr.is_empty() => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// The repository's private folder for this work tree (`.git`, or the per-worktree folder
    /// of a linked worktree), absolute.
    pub fn git_dir(&self) -> Result<PathBuf, GitError> {
        let output = self
            .command()
            .args(["rev-parse", "--absolute-git-dir"])
            .run()?;
        Ok(PathBuf::from(output.stdout_trimmed()))
    }

    /// Every uncommitted change: staged, unstaged and untracked files (each file of an
    /// untracked folder listed), never ignored ones. Porcelain v1 with `-z`, so paths with
    /// spaces and renames are exact.
    pub fn uncommitted_changes(&self) -> Result<Vec<StatusEntry>, GitError> {
        let output = self
            .command()
            .args(["status", "--porcelain=v1", "-z", "--untracked-files=all"])
            .run()?;
        Ok(parse_porcelain_z(&output.stdout)?)
    }

    /// Files that differ between `base` and HEAD (`None` as base: since the empty tree, i.e. all
    /// files of HEAD). Empty when there is no HEAD yet.
    pub fn changed_files_since(&self, base: Option<&str>) -> Result<Vec<String>, GitError> {
        let Some(head) = self.head_commit()? else {
            return Ok(Vec::new());
        };
        let base = match base {
            Some(base) => base.to_owned(),
            None => self.empty_tree()?,
        };
        let output = self
            .command()
            .args(["diff", "--name-only", "-z", "--no-renames"])
            .arg(base)
            .arg(head)
            .arg("--")
            .run()?;
        Ok(output
            .stdout
            .split(|byte| *byte == 0)
            .filter(|path| !path.is_empty())
            .map(|path| String::from_utf8_lossy(path).into_owned())
            .collect())
    }

    /// Stages exactly `paths` (additions, modifications and deletions) and nothing else.
    /// Pathspecs are literal, so a file named `*.rs` is that file, not a glob.
    pub fn stage(&self, paths: &[String]) -> Result<(), GitError> {
        if paths.is_empty() {
            return Ok(());
        }
        self.command()
            .args(["--literal-pathspecs", "add", "-A", "--"])
            .args(paths)
            .run()?;
        Ok(())
    }

    /// A fingerprint of the staged diff of `paths`: the git blob id of the binary diff text.
    /// Two iterations that made the same change (say, re-adding what an earlier one added and
    /// a later one removed) get the same id.
    pub fn staged_diff_id(&self, paths: &[String]) -> Result<String, GitError> {
        let diff = self
            .command()
            .args([
                "--literal-pathspecs",
                "diff",
                "--cached",
                "--binary",
                "--no-color",
                "--no-ext-diff",
                "--no-renames",
                "--",
            ])
            .args(paths)
            .run()?;
        let id = self
            .command()
            .args(["hash-object", "--stdin"])
            .stdin(diff.stdout)
            .run()?;
        Ok(id.stdout_trimmed())
    }

    /// Commits exactly `paths` (already staged with [`GitRepo::stage`]) with `message` and
    /// returns the new commit id, or `None` when there was nothing to commit. Anything else the
    /// user staged stays staged and out of the commit. Hooks run; a rejection is
    /// [`GitError::CommitFailed`].
    pub fn commit_paths(
        &self,
        message: &str,
        paths: &[String],
    ) -> Result<Option<String>, GitError> {
        if paths.is_empty() {
            return Ok(None);
        }
        let command = self
            .command()
            .args([
                "--literal-pathspecs",
                "commit",
                "--quiet",
                "--file=-",
                "--cleanup=strip",
                "--only",
                "--",
            ])
            .args(paths)
            .stdin(message.as_bytes().to_vec());
        match command.run() {
            Ok(_) => self.head_commit(),
            Err(GitCommandError::Failed {
                command,
                code,
                stderr,
                stdout,
                ..
            }) => {
                if is_nothing_to_commit(&stdout) || is_nothing_to_commit(&stderr) {
                    return Ok(None);
                }
                Err(GitError::CommitFailed {
                    command,
                    code,
                    stderr,
                    stdout,
                })
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Stages and commits the paths of `changes` when there are any; `None` when there is
    /// nothing to commit.
    pub fn commit_if_needed(
        &self,
        message: &str,
        changes: &[StatusEntry],
    ) -> Result<Option<String>, GitError> {
        let paths = paths_of(changes);
        self.stage(&paths)?;
        self.commit_paths(message, &paths)
    }

    /// The most recently modified `*.md` file in `dirs` (relative ones are taken from the work
    /// tree's top level), or `None`. Folders or files that cannot be read are skipped and
    /// logged: a missing plan never stops the loop.
    pub fn latest_plan_file(&self, dirs: &[PathBuf]) -> Option<PlanFile> {
        let mut latest: Option<(PathBuf, SystemTime)> = None;
        for dir in dirs {
            let dir = self.root.join(dir);
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => {
                    tracing::warn!(dir = %dir.display(), %error, "cannot list the plan folder");
                    continue;
                }
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_none_or(|ext| ext != "md") {
                    continue;
                }
                let Ok(modified) = entry.metadata().and_then(|meta| meta.modified()) else {
                    continue;
                };
                // Ties go to the larger path, so the choice never depends on listing order.
                let newer = latest.as_ref().is_none_or(|(best, time)| {
                    modified > *time || (modified == *time && path > *best)
                });
                if newer {
                    latest = Some((path, modified));
                }
            }
        }
        let (path, _) = latest?;
        match std::fs::read_to_string(&path) {
            Ok(content) => Some(PlanFile { path, content }),
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "cannot read the plan file");
                None
            }
        }
    }

    /// The id of the empty tree in this repository's hash (SHA-1 or SHA-256).
    fn empty_tree(&self) -> Result<String, GitError> {
        let output = self
            .command()
            .args(["hash-object", "-t", "tree", "--stdin"])
            .stdin(Vec::new())
            .run()?;
        Ok(output.stdout_trimmed())
    }
}

/// Every path of `changes`, both sides of renames, without duplicates, in order.
pub fn paths_of(changes: &[StatusEntry]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for path in changes.iter().flat_map(StatusEntry::paths) {
        if !paths.iter().any(|seen| seen == path) {
            paths.push(path.to_owned());
        }
    }
    paths
}

fn is_nothing_to_commit(text: &str) -> bool {
    text.contains("nothing to commit") || text.contains("no changes added to commit")
}

#[cfg(test)]
#[path = "git_ops_tests.rs"]
mod tests;
