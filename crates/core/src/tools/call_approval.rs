//! One tool call's approval, shared by the registry, its interceptors and the tool through
//! [`ToolContext::approve`](crate::tools::ToolContext::approve): a hook may approve the call
//! before it runs (`PreToolUse` `allow`, or the user's yes to its `ask`), approve it with other
//! input (a `PermissionRequest` hook's `updatedInput`: the tool is told no, and the registry
//! runs it again with that input, approved), or deny it with a message for the model. See
//! docs/design/hooks.md, "Decision control".

use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;

use serde_json::Value;

/// The approval state of the call running in a [`ToolContext`](crate::tools::ToolContext);
/// each call gets its own ([`ToolRegistry::dispatch`](crate::tools::ToolRegistry::dispatch)).
#[derive(Debug, Default)]
pub(crate) struct CallApproval {
    approved: AtomicBool,
    rerun: Mutex<Option<Value>>,
    denial: Mutex<Option<String>>,
}

impl CallApproval {
    /// The call is approved: the tool's approval request is answered yes without asking
    /// (the policy [`ApprovalPolicy::Never`](crate::approval::ApprovalPolicy::Never) still
    /// refuses).
    pub(crate) fn approve(&self) {
        self.approved.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_approved(&self) -> bool {
        self.approved.load(Ordering::SeqCst)
    }

    /// Approved with `input` instead (as hooks see a tool's input): the running tool was told
    /// no and stops; the registry runs it again with `input`, approved.
    pub(crate) fn rerun_with(&self, input: Value) {
        self.approve();
        *self.rerun.lock().unwrap_or_else(PoisonError::into_inner) = Some(input);
    }

    pub(crate) fn take_rerun(&self) -> Option<Value> {
        self.rerun
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Denied, with `message` for the model (added to the tool's refusal).
    pub(crate) fn deny_with(&self, message: String) {
        *self.denial.lock().unwrap_or_else(PoisonError::into_inner) = Some(message);
    }

    pub(crate) fn take_denial(&self) -> Option<String> {
        self.denial
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// The arguments a call runs with once a hook replaced its input with `input` (Claude Code's
/// `updatedInput`), `original` being the model's arguments; `None` when `input` is not a JSON
/// object.
///
/// Hooks see a file tool's `path` also as Claude Code's `file_path`; a `file_path` the hook
/// changed (or gave alone) becomes `path`, and `file_path` is dropped again unless the tool's
/// own arguments had it. With `keep_missing` the keys of `original` that `input` lacks keep
/// their values: a `PermissionRequest` hook saw only part of the input (the command, the file),
/// so its `updatedInput` replaces what it saw. Without it (`PreToolUse`, which saw the whole
/// input) `input` replaces the arguments, as the reference says.
pub(crate) fn updated_arguments(
    original: &str,
    input: &Value,
    keep_missing: bool,
) -> Option<String> {
    let Value::Object(input) = input else {
        return None;
    };
    let original = match serde_json::from_str::<Value>(original) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let shown_path = original
        .get("file_path")
        .or_else(|| original.get("path"))
        .cloned();
    let mut arguments = if keep_missing {
        original.clone()
    } else {
        serde_json::Map::new()
    };
    arguments.extend(input.clone());
    if !original.contains_key("file_path")
        && let Some(file_path) = arguments.remove("file_path")
        && (Some(&file_path) != shown_path.as_ref() || !arguments.contains_key("path"))
    {
        arguments.insert("path".to_owned(), file_path);
    }
    serde_json::to_string(&Value::Object(arguments)).ok()
}

#[cfg(test)]
#[path = "call_approval_tests.rs"]
mod tests;
