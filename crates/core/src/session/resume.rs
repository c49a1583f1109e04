//! [`Session::resume`]: a session continued from its rollout, with the history, reminder state,
//! todo list and plan mode the file implies, and the model switch when the caller's model is
//! not the recorded one.

use std::path::PathBuf;

use agentctx_context::ContextManager;
use agentctx_engine::StopPoint;
use agentctx_protocol::ResponseItem;
use agentctx_rollout::RolloutRecorder;
use tokio::sync::mpsc::UnboundedReceiver;

use super::Session;
use super::SessionOptions;
use crate::error::CoreError;
use crate::event::SessionEvent;

impl Session {
    /// Resumes the session recorded at `path`: its history, the reminder state its history
    /// implies, its todo list and plan mode. New turns append to the same file.
    pub fn resume(
        options: SessionOptions,
        path: &std::path::Path,
    ) -> Result<(Self, UnboundedReceiver<SessionEvent>), CoreError> {
        // The history as the session had it: compactions (with or without a recorded
        // replacement history) and rollbacks applied, as codex rebuilds it (see
        // `agentctx_engine::read_recorded_session`).
        let reader = agentctx_rollout::RolloutReader::open(path)?;
        let recorded = agentctx_engine::read_recorded_session(reader, StopPoint::End)?;
        for skipped in &recorded.skipped {
            tracing::warn!(path = %path.display(), %skipped, "unreadable rollout line skipped");
        }
        let session_id = recorded
            .session_id
            .clone()
            .ok_or_else(|| CoreError::NotASession {
                path: path.to_path_buf(),
            })?;
        let mut history = ContextManager::new();
        history.replace(recorded.items);
        history.set_reference_context_item(recorded.reference_context_item);
        // One turn per `turn_context` line; one request per model request that reported usage.
        let turns = i32::try_from(recorded.turns).unwrap_or(i32::MAX);
        let requests = i32::try_from(recorded.requests).unwrap_or(i32::MAX);
        let recorder = RolloutRecorder::resume(path, session_id.clone())?;
        let options = SessionOptions {
            session_id: Some(session_id),
            ..options
        };
        let (mut session, events) = Self::with_recorder(options, recorder, history);
        // The files the session read and wrote, as its file tools would have reported them: the
        // changed-file reminder, the restoration cache and the read ledger go on from there.
        let cwd = session.options.cwd.clone();
        session
            .engine
            .observe_recorded_reads(&cwd, session.engine.history());
        let resumed = session.engine.resume_reminders();
        {
            let mut state = session.state();
            state.turn = turns;
            state.requests = requests;
            state.todos = resumed.todos;
            state.last_todo_write_turn = resumed.last_todo_write_turn;
            if resumed.plan_mode {
                state.plan.active = true;
            }
            let recorded = resumed
                .plan_file
                .or_else(|| recorded_plan_file(session.engine.history()));
            // Only a file of the plans folder is trusted as the plan file (plan mode lets it be
            // written); a recorded path elsewhere is dropped and a new plan file is chosen.
            let plans_dir = session.options.plans_dir.clone();
            if let Some((path, slug)) = recorded.and_then(|path| {
                let slug = crate::plan_slug::plan_slug_of(&plans_dir, &path);
                if slug.is_none() {
                    tracing::warn!(path = %path.display(), "recorded plan file is not in the plans folder; ignored");
                }
                slug.map(|slug| (path, slug))
            }) {
                state.plan.plan_file = Some(path);
                state.plan.slug = Some(slug);
                state.plan.entered_before = !state.plan.active;
            } else if state.plan.active {
                let slug = crate::plan_slug::generate_plan_slug(&mut rand::rng());
                state.plan.plan_file = Some(crate::plan_slug::plan_file_path(&plans_dir, &slug));
                state.plan.slug = Some(slug);
            }
        }
        // The model of the last recorded turn: a resume with another one is a model switch
        // (announced, and compacted for first when the new window is smaller), as codex does.
        let current = session.options.model.slug().to_string();
        let recorded_model = recorded
            .last_turn_context
            .as_ref()
            .and_then(|context| context.model.clone())
            .filter(|model| !model.is_empty());
        session.engine.set_previous_model(Some(
            recorded_model.clone().unwrap_or_else(|| current.clone()),
        ));
        if let Some(previous) = recorded_model.filter(|model| *model != current) {
            session.pending_switch = Some(crate::model_switch::PendingSwitch::on_resume(
                &previous, &current,
            ));
            session.emit(SessionEvent::Warning {
                message: crate::model_switch::resume_warning(&previous, &current),
            });
        }
        Ok((session, events))
    }
}

/// The plan file the last `enter_plan_mode` of `items` announced.
fn recorded_plan_file(items: &[ResponseItem]) -> Option<PathBuf> {
    let calls: Vec<&str> = items
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { name, call_id, .. } if name == "enter_plan_mode" => {
                Some(call_id.as_str())
            }
            _ => None,
        })
        .collect();
    items.iter().rev().find_map(|item| match item {
        ResponseItem::FunctionCallOutput {
            call_id, output, ..
        } if calls.contains(&call_id.as_str()) => {
            crate::tools::plan_file_from_output(&output.text_content())
        }
        _ => None,
    })
}
