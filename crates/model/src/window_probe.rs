//! Asking a local server how large a context window it serves: [`probe_context_window`].
//!
//! An OpenAI-compatible local server runs a model with a window it chose at start-up (`-c` of
//! llama.cpp, Ollama's `num_ctx`, LM Studio's context length), which no model table can know.
//! Three servers say it:
//!
//! - llama.cpp server, `GET /props`: `default_generation_settings.n_ctx`, the window of one
//!   slot, which is what one request may fill (the top-level `n_ctx` is the total of all
//!   slots). ggml-org/llama.cpp `tools/server/README.md`, "GET `/props`".
//! - Ollama, `POST /api/show` with `{"model": "<slug>"}`: `parameters` (a text of
//!   `name value` lines) may set `num_ctx`, the window the model is run with; else
//!   `model_info["<general.architecture>.context_length"]`, the model's own window (Ollama may
//!   run it with a smaller default; set `context_window` to be sure). ollama/ollama
//!   `docs/api.md`, "Show Model Information".
//! - LM Studio, `GET /api/v0/models`: per model `loaded_context_length` when loaded, and
//!   `max_context_length`. lmstudio-ai/docs `1_developer/2_rest/endpoints.mdx`, "GET
//!   /api/v0/models".
//!
//! llama-cpp-python's server has neither `/props` nor a window in its `/v1/models` (abetlen/
//! llama-cpp-python `llama_cpp/server/app.py`, `get_models` lists ids only): its window must be
//! configured. Nothing is cached on disk; every outcome is logged at debug level. See
//! docs/design/model-providers.md, "Windows".

use std::time::Duration;

use serde_json::Value;

use crate::provider_config::ProviderConfig;
use crate::provider_config::WireApi;

/// How long the whole probe may take before the window stays unknown.
pub const WINDOW_PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// A window a server reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbedWindow {
    /// Tokens one request may fill.
    pub tokens: i64,
    /// The URL that said so.
    pub url: String,
}

/// Which server's way of saying its window to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProbeKind {
    LlamaCppProps,
    OllamaShow,
    LmStudioModels,
}

/// Asks the server of a Chat Completions `provider` for the window it serves `slug` with:
/// Ollama's way for the `ollama` preset, LM Studio's for `lmstudio`, and for any other chat
/// provider llama.cpp's, then Ollama's, then LM Studio's. `None` for other wire APIs, when no
/// endpoint answers with a window, or after [`WINDOW_PROBE_TIMEOUT`].
pub async fn probe_context_window(
    provider_id: &str,
    provider: &ProviderConfig,
    slug: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<ProbedWindow> {
    if provider.wire_api != WireApi::Chat {
        return None;
    }
    let kinds: &[ProbeKind] = match provider_id {
        "ollama" => &[ProbeKind::OllamaShow],
        "lmstudio" => &[ProbeKind::LmStudioModels],
        _ => &[
            ProbeKind::LlamaCppProps,
            ProbeKind::OllamaShow,
            ProbeKind::LmStudioModels,
        ],
    };
    let root = server_root(&provider.base_url);
    let key = provider.api_key(env).ok().flatten();
    let http = reqwest::Client::new();
    let probe = async {
        for kind in kinds {
            if let Some(found) = probe_one(&http, *kind, &root, slug, key.as_deref()).await {
                return Some(found);
            }
        }
        None
    };
    match tokio::time::timeout(WINDOW_PROBE_TIMEOUT, probe).await {
        Ok(found) => found,
        Err(_) => {
            tracing::debug!(server = %root, "window probe timed out");
            None
        }
    }
}

/// The server's root: the base URL without a trailing `/v1` (the OpenAI-compatible prefix),
/// where the servers' own endpoints live.
fn server_root(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base).to_string()
}

async fn probe_one(
    http: &reqwest::Client,
    kind: ProbeKind,
    root: &str,
    slug: &str,
    key: Option<&str>,
) -> Option<ProbedWindow> {
    let (url, request) = match kind {
        ProbeKind::LlamaCppProps => {
            let url = format!("{root}/props");
            (url.clone(), http.get(url))
        }
        ProbeKind::OllamaShow => {
            let url = format!("{root}/api/show");
            (
                url.clone(),
                http.post(url).json(&serde_json::json!({ "model": slug })),
            )
        }
        ProbeKind::LmStudioModels => {
            let url = format!("{root}/api/v0/models");
            (url.clone(), http.get(url))
        }
    };
    let request = match key {
        Some(key) => request.bearer_auth(key),
        None => request,
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) => {
            tracing::debug!(%url, error = %err, "window probe: no answer");
            return None;
        }
    };
    if !response.status().is_success() {
        tracing::debug!(%url, status = response.status().as_u16(), "window probe: refused");
        return None;
    }
    let body: Value = match response.json().await {
        Ok(body) => body,
        Err(err) => {
            tracing::debug!(%url, error = %err, "window probe: not JSON");
            return None;
        }
    };
    let tokens = match kind {
        ProbeKind::LlamaCppProps => llama_cpp_window(&body),
        ProbeKind::OllamaShow => ollama_window(&body),
        ProbeKind::LmStudioModels => lmstudio_window(&body, slug),
    };
    match tokens {
        Some(tokens) => {
            tracing::debug!(%url, tokens, "window probe: the server reported its window");
            Some(ProbedWindow { tokens, url })
        }
        None => {
            tracing::debug!(%url, "window probe: the answer names no window");
            None
        }
    }
}

fn positive(value: &Value) -> Option<i64> {
    value.as_i64().filter(|tokens| *tokens > 0)
}

/// llama.cpp `/props`: the window of one slot.
pub(crate) fn llama_cpp_window(body: &Value) -> Option<i64> {
    positive(&body["default_generation_settings"]["n_ctx"])
}

/// Ollama `/api/show`: `num_ctx` of the parameters, else the architecture's context length.
pub(crate) fn ollama_window(body: &Value) -> Option<i64> {
    let num_ctx = body["parameters"].as_str().and_then(|parameters| {
        parameters.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("num_ctx"), Some(value)) => value.parse::<i64>().ok().filter(|n| *n > 0),
                _ => None,
            }
        })
    });
    num_ctx.or_else(|| {
        let info = &body["model_info"];
        let arch = info["general.architecture"].as_str()?;
        positive(&info[format!("{arch}.context_length").as_str()])
    })
}

/// LM Studio `/api/v0/models`: the entry of `slug`, its loaded window before its maximum.
pub(crate) fn lmstudio_window(body: &Value, slug: &str) -> Option<i64> {
    let model = body["data"]
        .as_array()?
        .iter()
        .find(|model| model["id"].as_str() == Some(slug))?;
    positive(&model["loaded_context_length"]).or_else(|| positive(&model["max_context_length"]))
}

#[cfg(test)]
#[path = "window_probe_tests.rs"]
mod tests;
