//! What a host feeds the session from outside it, for the reminders whose source is not the
//! session itself: the IDE the user works in (`ide_selection`, `ide_opened_file`), a team the
//! session leads (`delegate_mode`, `delegate_mode_exit`), teammates (`teammate_message`,
//! `collab_notification`) and a host memory (`ultramemory`).
//!
//! A host (a Codex fork, an IDE integration that relays the editor's events over MCP) takes the
//! handle with [`crate::Session::host_inputs`], keeps it, and calls the setter matching each of
//! its events; the next model request carries the reminder. The table of which host event feeds
//! which reminder is in docs/design/reminders.md, "Who feeds each reminder".

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;

use agentctx_reminders::CollabChat;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::IdeOpenedFile;
use agentctx_reminders::IdeProvider;
use agentctx_reminders::IdeSelection;
use agentctx_reminders::TeammateMailbox;
use agentctx_reminders::TeammateMessage;

/// The host's inputs of one session; clones share them.
#[derive(Debug, Clone, Default)]
pub struct HostInputs(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    selection: Option<IdeSelection>,
    opened_file: Option<IdeOpenedFile>,
    delegate: Option<Delegate>,
    delegate_exited: bool,
    messages: Vec<TeammateMessage>,
    unread: Vec<CollabChat>,
    ultramemory: Option<String>,
}

#[derive(Debug, Clone)]
struct Delegate {
    team_name: String,
    task_list_path: PathBuf,
}

impl HostInputs {
    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The IDE's selection changed (`None`: nothing selected). A new selection is reported once
    /// (`ide_selection`).
    pub fn set_ide_selection(&self, selection: Option<IdeSelection>) {
        self.state().selection = selection;
    }

    /// The file focused in the IDE changed (`None`: none). Reported once, while nothing is
    /// selected (`ide_opened_file`).
    pub fn set_ide_opened_file(&self, file: Option<IdeOpenedFile>) {
        self.state().opened_file = file;
    }

    /// The session leads the team `team_name` now: it delegates the work to teammates and
    /// coordinates through the task list at `task_list_path` (`delegate_mode`, told when entered
    /// or when the team changes).
    pub fn enter_delegate_mode(
        &self,
        team_name: impl Into<String>,
        task_list_path: impl Into<PathBuf>,
    ) {
        let mut state = self.state();
        state.delegate = Some(Delegate {
            team_name: team_name.into(),
            task_list_path: task_list_path.into(),
        });
        state.delegate_exited = false;
    }

    /// The session no longer leads the team (`delegate_mode_exit`, once).
    pub fn exit_delegate_mode(&self) {
        let mut state = self.state();
        if state.delegate.take().is_some() {
            state.delegate_exited = true;
        }
    }

    /// A teammate's message arrived (`teammate_message`; each message is shown once).
    pub fn push_teammate_message(&self, message: TeammateMessage) {
        self.state().messages.push(message);
    }

    /// The chats with unread messages now (`collab_notification`; an empty list clears them).
    pub fn set_unread_chats(&self, chats: Vec<CollabChat>) {
        self.state().unread = chats;
    }

    /// The host memory to show the model (`ultramemory`; `None` clears it).
    pub fn set_ultramemory(&self, content: Option<String>) {
        self.state().ultramemory = content;
    }

    /// Gives `ctx` what the host fed: the IDE and mailbox providers, delegate mode and the
    /// memory. A delegate-mode exit is handed over once.
    pub(crate) fn apply(&self, ctx: &mut GeneratorContext) {
        let mut state = self.state();
        if let Some(delegate) = &state.delegate {
            ctx.delegate.active = true;
            ctx.delegate.team_name = Some(delegate.team_name.clone());
            ctx.delegate.task_list_path = Some(delegate.task_list_path.clone());
        }
        ctx.delegate.just_exited = std::mem::take(&mut state.delegate_exited);
        if state.ultramemory.is_some() {
            ctx.ultramemory.clone_from(&state.ultramemory);
        }
        drop(state);
        ctx.providers.ide = Arc::new(self.clone());
        ctx.providers.mailbox = Arc::new(self.clone());
    }
}

impl IdeProvider for HostInputs {
    fn selection(&self) -> Option<IdeSelection> {
        self.state().selection.clone()
    }

    fn opened_file(&self) -> Option<IdeOpenedFile> {
        self.state().opened_file.clone()
    }
}

impl TeammateMailbox for HostInputs {
    fn unread_chats(&self) -> Vec<CollabChat> {
        self.state().unread.clone()
    }

    fn take_messages(&self) -> Vec<TeammateMessage> {
        std::mem::take(&mut self.state().messages)
    }
}
