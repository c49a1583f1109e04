//! The crate's process helper: every external program core starts goes through here.
//!
//! The `shell` tool runs `bash -c <command>` in the working directory, in the foreground with a
//! timeout, or in the background with its output collected for `bash_output` and a kill switch
//! for `kill_shell`. Children are killed when dropped, so a cancelled turn or a timeout never
//! leaves one running.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::AsyncRead;
use tokio::io::AsyncReadExt;
use tokio::process::Command;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// What a foreground command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellOutput {
    /// The exit code; `None` when killed by a signal, the timeout or cancellation.
    pub exit_code: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
    /// The timeout killed it.
    pub timed_out: bool,
    /// The turn was cancelled and killed it.
    pub cancelled: bool,
}

fn shell_command(command: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// Runs `command` with `bash -c` in `cwd`, killed after `timeout` or when `cancel` fires.
pub(crate) async fn run_shell(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    cancel: &CancellationToken,
) -> std::io::Result<ShellOutput> {
    let child = shell_command(command, cwd).spawn()?;
    let output = child.wait_with_output();
    tokio::select! {
        result = tokio::time::timeout(timeout, output) => match result {
            Ok(output) => {
                let output = output?;
                Ok(ShellOutput {
                    exit_code: output.status.code(),
                    stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                    timed_out: false,
                    cancelled: false,
                })
            }
            // Dropping the future drops the child, which kills it (`kill_on_drop`).
            Err(_) => Ok(ShellOutput {
                exit_code: None,
                stdout: String::new(),
                stderr: String::new(),
                timed_out: true,
                cancelled: false,
            }),
        },
        () = cancel.cancelled() => Ok(ShellOutput {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            cancelled: true,
        }),
    }
}

/// The state of a background command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackgroundStatus {
    /// Still running.
    Running,
    /// Exited with this code (`None`: killed by a signal).
    Exited(Option<i32>),
    /// Killed through [`BackgroundProcess::kill`].
    Killed,
    /// Waiting on it failed.
    Failed,
}

impl BackgroundStatus {
    /// The status word the tools and reminders use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Exited(Some(0)) => "completed",
            Self::Exited(_) | Self::Failed => "failed",
            Self::Killed => "killed",
        }
    }
}

#[derive(Debug)]
struct Shared {
    output: String,
    status: BackgroundStatus,
}

/// A command running in the background; its output accumulates until read.
#[derive(Debug)]
pub(crate) struct BackgroundProcess {
    shared: Arc<Mutex<Shared>>,
    kill: Option<oneshot::Sender<()>>,
    read_offset: usize,
}

impl BackgroundProcess {
    /// Starts `command` with `bash -c` in `cwd`; stdout and stderr are collected interleaved
    /// as they arrive.
    pub(crate) fn spawn(command: &str, cwd: &Path) -> std::io::Result<Self> {
        let mut child = shell_command(command, cwd).spawn()?;
        let shared = Arc::new(Mutex::new(Shared {
            output: String::new(),
            status: BackgroundStatus::Running,
        }));
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let readers = [
            stdout.map(|s| spawn_reader(s, Arc::clone(&shared))),
            stderr.map(|s| spawn_reader(s, Arc::clone(&shared))),
        ];
        let waiter = Arc::clone(&shared);
        tokio::spawn(async move {
            let status = tokio::select! {
                result = child.wait() => match result {
                    Ok(status) => BackgroundStatus::Exited(status.code()),
                    Err(_) => BackgroundStatus::Failed,
                },
                _ = kill_rx => {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                    BackgroundStatus::Killed
                }
            };
            for reader in readers.into_iter().flatten() {
                let _ = reader.await;
            }
            if let Ok(mut shared) = waiter.lock() {
                shared.status = status;
            }
        });
        Ok(Self {
            shared,
            kill: Some(kill_tx),
            read_offset: 0,
        })
    }

    /// The output added since the last call, and the status now.
    pub(crate) fn read_new_output(&mut self) -> (String, BackgroundStatus) {
        let Ok(shared) = self.shared.lock() else {
            return (String::new(), BackgroundStatus::Failed);
        };
        let new = shared
            .output
            .get(self.read_offset..)
            .unwrap_or_default()
            .to_string();
        self.read_offset = shared.output.len();
        (new, shared.status)
    }

    /// The status now.
    pub(crate) fn status(&self) -> BackgroundStatus {
        self.shared
            .lock()
            .map_or(BackgroundStatus::Failed, |shared| shared.status)
    }

    /// The last non-empty line of the output so far (read or not; the read position does not
    /// move), for progress reports.
    pub(crate) fn last_output_line(&self) -> Option<String> {
        let shared = self.shared.lock().ok()?;
        shared
            .output
            .lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(str::to_string)
    }

    /// Bytes of output collected so far.
    pub(crate) fn output_len(&self) -> usize {
        self.shared.lock().map_or(0, |shared| shared.output.len())
    }

    /// Asks the process to stop; `false` when it had already finished or was killed before.
    pub(crate) fn kill(&mut self) -> bool {
        if self.status() != BackgroundStatus::Running {
            return false;
        }
        self.kill.take().is_some_and(|tx| tx.send(()).is_ok())
    }
}

fn spawn_reader<R>(mut source: R, shared: Arc<Mutex<Shared>>) -> tokio::task::JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match source.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let text =
                        String::from_utf8_lossy(buf.get(..n).unwrap_or_default()).into_owned();
                    if let Ok(mut shared) = shared.lock() {
                        shared.output.push_str(&text);
                    }
                }
            }
        }
    })
}

/// What a command run with [`run_with_input`] did; each stream keeps at most the cap.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct CapturedOutput {
    /// The exit code; `None` when killed by a signal or the timeout.
    pub exit_code: Option<i32>,
    /// Standard output (the first `cap` bytes), lossily decoded.
    pub stdout: String,
    /// Standard error (the first `cap` bytes), lossily decoded.
    pub stderr: String,
    /// The timeout killed it.
    pub timed_out: bool,
    /// A stream was longer than the cap; the rest was read and dropped.
    pub truncated: bool,
}

/// Runs `command` with `bash -c` in `cwd` with `env` added to the environment and `input` on
/// its stdin, killed after `timeout`. Each output stream is drained to the end but only its
/// first `cap` bytes are kept, so a command that prints megabytes costs no memory; one that
/// does not read its stdin is no error.
pub(crate) async fn run_with_input(
    command: &str,
    cwd: &Path,
    env: &[(String, String)],
    input: &[u8],
    timeout: Duration,
    cap: usize,
) -> std::io::Result<CapturedOutput> {
    let mut cmd = shell_command(command, cwd);
    cmd.stdin(Stdio::piped());
    for (name, value) in env {
        cmd.env(name, value);
    }
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let input = input.to_vec();
    let run = async move {
        let write = async move {
            if let Some(mut stdin) = stdin {
                use tokio::io::AsyncWriteExt;
                // A command that exits without reading its input closes the pipe: not an error.
                let _ = stdin.write_all(&input).await;
                let _ = stdin.shutdown().await;
            }
        };
        let ((), out, err, status) = tokio::join!(
            write,
            read_capped(stdout, cap),
            read_capped(stderr, cap),
            child.wait()
        );
        Ok::<_, std::io::Error>((out, err, status?))
    };
    match tokio::time::timeout(timeout, run).await {
        Ok(result) => {
            let ((stdout, out_cut), (stderr, err_cut), status) = result?;
            Ok(CapturedOutput {
                exit_code: status.code(),
                stdout,
                stderr,
                timed_out: false,
                truncated: out_cut || err_cut,
            })
        }
        // Dropping the future drops the child, which kills it (`kill_on_drop`).
        Err(_) => Ok(CapturedOutput {
            timed_out: true,
            ..CapturedOutput::default()
        }),
    }
}

/// Reads `reader` to its end, keeping the first `cap` bytes; `true` when more were dropped.
async fn read_capped<R: AsyncRead + Unpin>(reader: Option<R>, cap: usize) -> (String, bool) {
    let Some(mut reader) = reader else {
        return (String::new(), false);
    };
    let mut kept = Vec::new();
    let mut dropped = false;
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                let chunk = buf.get(..n).unwrap_or_default();
                if chunk.len() > room {
                    dropped = true;
                }
                kept.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
            }
        }
    }
    (String::from_utf8_lossy(&kept).into_owned(), dropped)
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
