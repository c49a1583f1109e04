//! Reminder types: [`SystemReminder`], [`AttachmentType`] and [`ReminderTier`].

use std::fmt;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::XmlTag;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// The three tiers of the catalogue, in the order their output is injected.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ReminderTier {
    /// Runs only when the turn has user input (`@file`, `@server:uri`, `@agent-x`).
    UserPrompt,
    /// Always checked, for the main agent and sub-agents alike.
    Core,
    /// Only for the main agent, never for sub-agents.
    MainAgentOnly,
}

impl ReminderTier {
    /// All tiers in injection order.
    pub const ALL: [ReminderTier; 3] = [Self::UserPrompt, Self::Core, Self::MainAgentOnly];

    /// The snake_case name of the tier.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UserPrompt => "user_prompt",
            Self::Core => "core",
            Self::MainAgentOnly => "main_agent_only",
        }
    }
}

impl fmt::Display for ReminderTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! attachment_types {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $tier:ident, $tag:ident; )+) => {
        /// Every attachment type of the catalogue.
        ///
        /// Variants are declared in catalogue order: [`AttachmentType::order`] is the position in
        /// [`AttachmentType::ALL`], and the orchestrator sorts its output by (tier, order).
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
            JsonSchema,
        )]
        #[serde(rename_all = "snake_case")]
        pub enum AttachmentType {
            $( $(#[$doc])* $variant, )+
        }

        impl AttachmentType {
            /// All attachment types in catalogue order.
            pub const ALL: &'static [AttachmentType] = &[ $( Self::$variant, )+ ];

            /// The snake_case name used in config keys, telemetry and snapshots.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $name, )+
                }
            }

            /// The tier this type belongs to.
            pub fn tier(self) -> ReminderTier {
                match self {
                    $( Self::$variant => ReminderTier::$tier, )+
                }
            }

            /// The XML tag this type's content is wrapped in (see docs/design/reminders.md, "Tags").
            pub fn xml_tag(self) -> XmlTag {
                match self {
                    $( Self::$variant => XmlTag::$tag, )+
                }
            }

            /// Parses a snake_case name.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( $name => Some(Self::$variant), )+
                    _ => None,
                }
            }
        }
    };
}

attachment_types! {
    // === User prompt tier ===
    /// Files and directories the user mentioned with `@path`.
    AtMentionedFiles => "at_mentioned_files", UserPrompt, SystemReminder;
    /// MCP resources the user mentioned with `@server:uri`.
    McpResources => "mcp_resources", UserPrompt, SystemReminder;
    /// Agents the user mentioned with `@agent-<type>`.
    AgentMentions => "agent_mentions", UserPrompt, SystemReminder;

    // === Core tier ===
    /// Previously read files that changed on disk.
    ChangedFiles => "changed_files", Core, SystemReminder;
    /// Instruction files (AGENTS.md, CLAUDE.md, …) near files that were read.
    NestedMemory => "nested_memory", Core, SystemReminder;
    /// Re-entering plan mode after having left it; before the plan mode reminder, which it
    /// introduces.
    PlanModeReentry => "plan_mode_reentry", Core, SystemReminder;
    /// Plan mode instructions (full or sparse, main agent or sub-agent).
    PlanMode => "plan_mode", Core, SystemReminder;
    /// Just left plan mode.
    PlanModeExit => "plan_mode_exit", Core, SystemReminder;
    /// Delegate (team lead) mode is active.
    DelegateMode => "delegate_mode", Core, SystemReminder;
    /// Just left delegate mode.
    DelegateModeExit => "delegate_mode_exit", Core, SystemReminder;
    /// The todo list has not been touched for a while.
    TodoReminder => "todo_reminder", Core, SystemReminder;
    /// Unread teammate messages.
    CollabNotification => "collab_notification", Core, SystemReminder;
    /// The user's always-on critical instruction.
    CriticalInstruction => "critical_instruction", Core, SystemReminder;
    /// Tool calls of the last turn failed.
    ToolResult => "tool_result", Core, SystemReminder;
    /// Skills invoked in this session.
    InvokedSkills => "invoked_skills", Core, SystemReminder;
    /// A file read before compaction that was too large to re-include.
    CompactFileReference => "compact_file_reference", Core, SystemReminder;
    /// A plan file left by a previous session.
    PlanFileReference => "plan_file_reference", Core, SystemReminder;
    /// Micro-compaction cleared old tool results.
    MicroCompact => "micro_compact", Core, SystemReminder;
    /// A hook blocked an action.
    HookBlockingError => "hook_blocking_error", Core, SystemReminder;
    /// A hook succeeded with output for the model.
    HookSuccess => "hook_success", Core, SystemReminder;
    /// A hook added context.
    HookAdditionalContext => "hook_additional_context", Core, SystemReminder;
    /// A hook stopped continuation.
    HookStoppedContinuation => "hook_stopped_continuation", Core, SystemReminder;

    // === Main agent tier ===
    /// Text the user selected in the IDE.
    IdeSelection => "ide_selection", MainAgentOnly, SystemReminder;
    /// A file the user opened in the IDE.
    IdeOpenedFile => "ide_opened_file", MainAgentOnly, SystemReminder;
    /// A non-default output style.
    OutputStyle => "output_style", MainAgentOnly, SystemReminder;
    /// Commands the user queued while the agent worked.
    QueuedCommands => "queued_commands", MainAgentOnly, SystemReminder;
    /// Messages from teammates; the content carries its own `<teammate-message …>` tags.
    TeammateMessage => "teammate_message", MainAgentOnly, None;
    /// New diagnostics from the diagnostics system.
    Diagnostics => "diagnostics", MainAgentOnly, NewDiagnostics;
    /// New diagnostics from an LSP server.
    LspDiagnostics => "lsp_diagnostics", MainAgentOnly, NewDiagnostics;
    /// Background shell task status (Claude Code's `task_status`).
    BackgroundTask => "background_task", MainAgentOnly, SystemReminder;
    /// Background task progress, throttled.
    TaskProgress => "task_progress", MainAgentOnly, SystemReminder;
    /// An async agent finished.
    AsyncAgentStatus => "async_agent_status", MainAgentOnly, SystemNotification;
    /// Responses of async hooks.
    AsyncHookResponses => "async_hook_responses", MainAgentOnly, SystemReminder;
    /// Summaries of past sessions (Claude Code's `memory`).
    SessionMemory => "session_memory", MainAgentOnly, SessionMemory;
    /// Ultra memory content.
    Ultramemory => "ultramemory", MainAgentOnly, SystemReminder;
    /// Context window token usage.
    TokenUsage => "token_usage", MainAgentOnly, SystemReminder;
    /// Spend against the configured budget.
    BudgetUsd => "budget_usd", MainAgentOnly, SystemReminder;
    /// The plan is implemented: verify it.
    VerifyPlanReminder => "verify_plan_reminder", MainAgentOnly, SystemReminder;
}

impl AttachmentType {
    /// Position in the catalogue ordering; lower comes first within a tier.
    pub fn order(self) -> usize {
        Self::ALL
            .iter()
            .position(|candidate| *candidate == self)
            .unwrap_or(usize::MAX)
    }

    /// The injection sort key: tier first, then catalogue order.
    pub fn sort_key(self) -> (ReminderTier, usize) {
        (self.tier(), self.order())
    }

    /// Whether this type is a *standing* reminder: it restates state the model already has
    /// (the todo list, plan mode, the output style, the budget…), as opposed to an *event*
    /// reminder that reports something new (a changed file, a failed tool, a queued prompt).
    /// The orchestrator does not send a standing reminder again unchanged within one user turn
    /// (see docs/design/reminders.md, "Standing reminders"); event reminders always go out.
    ///
    /// The match lists every type, so a new type must be classified here.
    pub fn is_standing(self) -> bool {
        match self {
            Self::PlanMode
            | Self::DelegateMode
            | Self::TodoReminder
            | Self::CriticalInstruction
            | Self::InvokedSkills
            | Self::PlanFileReference
            | Self::OutputStyle
            | Self::TaskProgress
            | Self::SessionMemory
            | Self::Ultramemory
            | Self::TokenUsage
            | Self::BudgetUsd => true,
            Self::AtMentionedFiles
            | Self::McpResources
            | Self::AgentMentions
            | Self::ChangedFiles
            | Self::NestedMemory
            | Self::PlanModeReentry
            | Self::PlanModeExit
            | Self::DelegateModeExit
            | Self::CollabNotification
            | Self::ToolResult
            | Self::CompactFileReference
            | Self::MicroCompact
            | Self::HookBlockingError
            | Self::HookSuccess
            | Self::HookAdditionalContext
            | Self::HookStoppedContinuation
            | Self::IdeSelection
            | Self::IdeOpenedFile
            | Self::QueuedCommands
            | Self::TeammateMessage
            | Self::Diagnostics
            | Self::LspDiagnostics
            | Self::BackgroundTask
            | Self::AsyncAgentStatus
            | Self::AsyncHookResponses
            | Self::VerifyPlanReminder => false,
        }
    }
}

impl fmt::Display for AttachmentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reminder produced by a generator, before XML wrapping.
///
/// `is_meta` is always true (Claude Code's `isMeta: true`): the struct cannot be built otherwise,
/// and deserialising forces it back to true.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "SystemReminderWire")]
pub struct SystemReminder {
    /// The type of this attachment.
    pub attachment_type: AttachmentType,
    /// The content, before wrapping.
    pub content: String,
    tier: ReminderTier,
    is_meta: bool,
}

#[derive(Deserialize)]
struct SystemReminderWire {
    attachment_type: AttachmentType,
    content: String,
}

impl From<SystemReminderWire> for SystemReminder {
    fn from(wire: SystemReminderWire) -> Self {
        Self::new(wire.attachment_type, wire.content)
    }
}

impl SystemReminder {
    /// A reminder of `attachment_type`; its tier is the type's tier.
    pub fn new(attachment_type: AttachmentType, content: impl Into<String>) -> Self {
        Self {
            attachment_type,
            content: content.into(),
            tier: attachment_type.tier(),
            is_meta: true,
        }
    }

    /// The tier, derived from the attachment type.
    pub fn tier(&self) -> ReminderTier {
        self.tier
    }

    /// Always true: reminders are metadata, not user-visible content.
    pub fn is_meta(&self) -> bool {
        self.is_meta
    }

    /// The tag the content is wrapped in.
    pub fn xml_tag(&self) -> XmlTag {
        self.attachment_type.xml_tag()
    }

    /// The content wrapped in the type's XML tag, exactly as the model sees it.
    pub fn wrap_xml(&self) -> String {
        self.xml_tag().wrap(&self.content)
    }

    /// The user message that carries this reminder.
    pub fn to_response_item(&self) -> ResponseItem {
        ResponseItem::user_text(self.wrap_xml())
    }
}

impl From<SystemReminder> for ResponseItem {
    fn from(reminder: SystemReminder) -> Self {
        reminder.to_response_item()
    }
}

impl From<&SystemReminder> for ResponseItem {
    fn from(reminder: &SystemReminder) -> Self {
        reminder.to_response_item()
    }
}
