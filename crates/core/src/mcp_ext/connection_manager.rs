//! [`McpConnectionManager`]: the configured servers, started together, with their tools,
//! resources and state. See docs/design/mcp.md, "Lifecycle".

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::model::CallToolResult;
use rmcp::model::JsonObject;
use rmcp::model::ReadResourceRequestParams;
use rmcp::model::ReadResourceResult;
use rmcp::model::Resource;
use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use serde::Serialize;
use std::sync::Arc;

use super::server_config::McpServerConfig;
use super::server_config::McpTransport;
use super::stdio_process::spawn_stdio_server;

/// A connected client (no client-side handler: this host answers no server requests).
type McpClient = RunningService<RoleClient, ()>;

/// The MCP error code of a resource that does not exist (MCP specification, "Resources",
/// error handling: `-32002`).
const RESOURCE_NOT_FOUND: i32 = -32002;

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerState {
    /// Connected; its tools are offered.
    Ready,
    /// `enabled = false`.
    Disabled,
    /// It did not start, or it died; its tools are withdrawn.
    Failed {
        /// Why.
        reason: String,
    },
}

/// A server's state and tools, for `agentctx mcp list` and hosts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpServerStatus {
    /// The name in `[mcp_servers.<name>]`.
    pub name: String,
    /// `stdio: <command> <args>` or `http: <url>`.
    pub transport: String,
    /// Its state.
    #[serde(flatten)]
    pub state: McpServerState,
    /// Its tools' own names (the model sees `mcp__<server>__<tool>`).
    pub tools: Vec<String>,
    /// Its resources' URIs.
    pub resources: Vec<String>,
}

/// A call or read that did not reach an answer.
#[derive(Debug, thiserror::Error)]
pub enum McpCallError {
    /// No such server, or it is not connected.
    #[error("MCP server `{server}` is not available: {reason}")]
    Unavailable {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// The server did not answer within its tool timeout.
    #[error("MCP server `{server}` did not answer within {}s", timeout.as_secs_f64())]
    Timeout {
        /// The server.
        server: String,
        /// The timeout.
        timeout: Duration,
    },
    /// The server answered with an error, or the connection broke.
    #[error("MCP server `{server}`: {source}")]
    Service {
        /// The server.
        server: String,
        /// The SDK's error.
        #[source]
        source: ServiceError,
    },
}

enum Connection {
    Ready {
        client: Arc<McpClient>,
        tools: Vec<Tool>,
        resources: Vec<Resource>,
    },
    Disabled,
    Failed {
        reason: String,
        tools: Vec<Tool>,
    },
}

struct ServerEntry {
    name: String,
    transport: String,
    tool_timeout: Duration,
    connection: Connection,
    /// Whether the failure was reported (a failure is reported once).
    reported: bool,
}

/// The session's MCP servers.
pub struct McpConnectionManager {
    servers: Mutex<Vec<ServerEntry>>,
}

impl std::fmt::Debug for McpConnectionManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.statuses().iter().map(|status| &status.name))
            .finish()
    }
}

impl McpConnectionManager {
    /// Starts every enabled server of `servers` concurrently, each within its startup timeout
    /// (a stdio server runs in its `cwd`, else in `cwd`). A server that fails is kept in the
    /// [`McpServerState::Failed`] state: starting never fails as a whole.
    pub async fn start(servers: &BTreeMap<String, McpServerConfig>, cwd: &Path) -> Self {
        let starts = servers
            .iter()
            .map(|(name, config)| start_one(name, config, cwd));
        let entries = futures::future::join_all(starts).await;
        Self {
            servers: Mutex::new(entries),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<ServerEntry>> {
        self.servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every server's name, transport, state, tools and resources, by name.
    pub fn statuses(&self) -> Vec<McpServerStatus> {
        self.lock()
            .iter()
            .map(|entry| {
                let (state, tools, resources) = match &entry.connection {
                    Connection::Ready {
                        tools, resources, ..
                    } => (
                        McpServerState::Ready,
                        tools.as_slice(),
                        resources.iter().map(|r| r.uri.clone()).collect(),
                    ),
                    Connection::Disabled => (McpServerState::Disabled, &[][..], Vec::new()),
                    Connection::Failed { reason, tools } => (
                        McpServerState::Failed {
                            reason: reason.clone(),
                        },
                        tools.as_slice(),
                        Vec::new(),
                    ),
                };
                McpServerStatus {
                    name: entry.name.clone(),
                    transport: entry.transport.clone(),
                    state,
                    tools: tools.iter().map(|tool| tool.name.to_string()).collect(),
                    resources,
                }
            })
            .collect()
    }

    /// The tools of the connected servers, as `(server, tool)`.
    pub(crate) fn ready_tools(&self) -> Vec<(String, Tool)> {
        let mut out = Vec::new();
        for entry in self.lock().iter() {
            if let Connection::Ready { tools, .. } = &entry.connection {
                out.extend(tools.iter().map(|tool| (entry.name.clone(), tool.clone())));
            }
        }
        out
    }

    /// Whether `server` is connected.
    pub(crate) fn is_ready(&self, server: &str) -> bool {
        self.lock().iter().any(|entry| {
            entry.name == server && matches!(entry.connection, Connection::Ready { .. })
        })
    }

    /// Marks servers whose connection closed as failed, then hands over each failure not yet
    /// reported, as `(server, reason)`, a single time.
    pub(crate) fn take_new_failures(&self) -> Vec<(String, String)> {
        let mut servers = self.lock();
        let mut out = Vec::new();
        for entry in servers.iter_mut() {
            if let Connection::Ready { client, .. } = &entry.connection
                && client.is_transport_closed()
            {
                fail(entry, "the server exited".to_string());
            }
            if let Connection::Failed { reason, .. } = &entry.connection
                && !entry.reported
            {
                entry.reported = true;
                out.push((entry.name.clone(), reason.clone()));
            }
        }
        out
    }

    fn client(&self, server: &str) -> Result<(Arc<McpClient>, Duration), McpCallError> {
        let servers = self.lock();
        let entry = servers.iter().find(|entry| entry.name == server);
        match entry.map(|entry| (&entry.connection, entry.tool_timeout)) {
            Some((Connection::Ready { client, .. }, timeout)) => Ok((Arc::clone(client), timeout)),
            Some((Connection::Failed { reason, .. }, _)) => Err(McpCallError::Unavailable {
                server: server.to_string(),
                reason: reason.clone(),
            }),
            Some((Connection::Disabled, _)) => Err(McpCallError::Unavailable {
                server: server.to_string(),
                reason: "it is disabled".to_string(),
            }),
            None => Err(McpCallError::Unavailable {
                server: server.to_string(),
                reason: "no such server".to_string(),
            }),
        }
    }

    /// After a failed request: a closed connection means the server died (an MCP error is a
    /// live server's answer and says nothing about the connection).
    fn note_broken(&self, server: &str, client: &McpClient, error: Option<&ServiceError>) {
        let broken = matches!(
            error,
            Some(
                ServiceError::TransportClosed
                    | ServiceError::TransportSend(_)
                    | ServiceError::Cancelled { .. }
            )
        );
        if broken || client.is_transport_closed() {
            let mut servers = self.lock();
            if let Some(entry) = servers.iter_mut().find(|entry| entry.name == server) {
                fail(entry, "the server exited".to_string());
            }
        }
    }

    /// Calls `tool` of `server` with `arguments`, within the server's tool timeout.
    pub(crate) async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, McpCallError> {
        let (client, timeout) = self.client(server)?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let result = tokio::time::timeout(timeout, client.call_tool(params)).await;
        self.finish(server, &client, timeout, result)
    }

    /// Reads the resource `uri` of `server`; `Ok(None)` when the server has no such resource.
    pub(crate) async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Option<(Option<Resource>, ReadResourceResult)>, McpCallError> {
        let (client, timeout) = self.client(server)?;
        let listed = {
            let servers = self.lock();
            servers
                .iter()
                .find(|entry| entry.name == server)
                .and_then(|entry| match &entry.connection {
                    Connection::Ready { resources, .. } => {
                        resources.iter().find(|r| r.uri == uri).cloned()
                    }
                    _ => None,
                })
        };
        let result = tokio::time::timeout(
            timeout,
            client.read_resource(ReadResourceRequestParams::new(uri)),
        )
        .await;
        match self.finish(server, &client, timeout, result) {
            Ok(read) => Ok(Some((listed, read))),
            Err(McpCallError::Service {
                source: ServiceError::McpError(error),
                ..
            }) if error.code.0 == RESOURCE_NOT_FOUND => Ok(None),
            Err(error) => Err(error),
        }
    }

    fn finish<T>(
        &self,
        server: &str,
        client: &McpClient,
        timeout: Duration,
        result: Result<Result<T, ServiceError>, tokio::time::error::Elapsed>,
    ) -> Result<T, McpCallError> {
        match result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(source)) => {
                self.note_broken(server, client, Some(&source));
                Err(McpCallError::Service {
                    server: server.to_string(),
                    source,
                })
            }
            Err(_) => {
                self.note_broken(server, client, None);
                Err(McpCallError::Timeout {
                    server: server.to_string(),
                    timeout,
                })
            }
        }
    }
}

fn fail(entry: &mut ServerEntry, reason: String) {
    let tools = match std::mem::replace(&mut entry.connection, Connection::Disabled) {
        Connection::Ready { tools, .. } | Connection::Failed { tools, .. } => tools,
        Connection::Disabled => Vec::new(),
    };
    tracing::warn!(server = %entry.name, %reason, "mcp server unavailable");
    entry.connection = Connection::Failed { reason, tools };
}

async fn start_one(name: &str, config: &McpServerConfig, cwd: &Path) -> ServerEntry {
    let mut entry = ServerEntry {
        name: name.to_string(),
        transport: describe(config),
        tool_timeout: super::server_config::DEFAULT_TOOL_TIMEOUT,
        connection: Connection::Disabled,
        reported: false,
    };
    if !config.enabled {
        return entry;
    }
    let settings = config.transport(name).and_then(|transport| {
        Ok((
            transport,
            config.startup_timeout(name)?,
            config.tool_timeout(name)?,
        ))
    });
    let (transport, startup, tool_timeout) = match settings {
        Ok(settings) => settings,
        Err(error) => {
            entry.connection = Connection::Failed {
                reason: error.to_string(),
                tools: Vec::new(),
            };
            return entry;
        }
    };
    entry.tool_timeout = tool_timeout;
    let cwd = config.cwd.as_deref().unwrap_or(cwd);
    entry.connection =
        match tokio::time::timeout(startup, connect(name, config, &transport, cwd)).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(reason)) => Connection::Failed {
                reason,
                tools: Vec::new(),
            },
            Err(_) => Connection::Failed {
                reason: format!("did not start within {}s", startup.as_secs_f64()),
                tools: Vec::new(),
            },
        };
    if let Connection::Failed { reason, .. } = &entry.connection {
        tracing::warn!(server = %name, %reason, "mcp server failed to start");
    }
    entry
}

async fn connect(
    name: &str,
    config: &McpServerConfig,
    transport: &McpTransport,
    cwd: &Path,
) -> Result<Connection, String> {
    let client = match transport {
        McpTransport::Stdio { command, args } => {
            let process = spawn_stdio_server(name, command, args, &config.env, cwd)
                .map_err(|err| format!("cannot start `{command}`: {err}"))?;
            ().serve(process).await.map_err(|err| err.to_string())?
        }
        McpTransport::StreamableHttp { url } => {
            ensure_tls_crypto_provider();
            let http = StreamableHttpClientTransport::from_uri(url.as_str());
            ().serve(http).await.map_err(|err| err.to_string())?
        }
    };
    let tools = client
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list failed: {err}"))?;
    let has_resources = client
        .peer_info()
        .is_some_and(|info| info.capabilities.resources.is_some());
    let resources = if has_resources {
        client.list_all_resources().await.unwrap_or_else(|err| {
            tracing::warn!(server = %name, %err, "resources/list failed");
            Vec::new()
        })
    } else {
        Vec::new()
    };
    Ok(Connection::Ready {
        client: Arc::new(client),
        tools,
        resources,
    })
}

/// rmcp's HTTP client is reqwest with rustls but no crypto provider of its own
/// (`reqwest-tls-no-provider`, which keeps `aws-lc-sys` out of the build), and reqwest panics
/// when it builds a client while no process-wide provider is installed. So before the first
/// HTTP connection the `ring` provider is installed, unless the host installed one already
/// (then `install_default` fails and the host's stays), as codex does at start-up.
fn ensure_tls_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

fn describe(config: &McpServerConfig) -> String {
    match (&config.command, &config.url) {
        (Some(command), _) => {
            let mut out = format!("stdio: {command}");
            for arg in &config.args {
                out.push(' ');
                out.push_str(arg);
            }
            out
        }
        (None, Some(url)) => format!("http: {url}"),
        (None, None) => "none".to_string(),
    }
}
