use pretty_assertions::assert_eq;

use super::*;

/// Runs turns 1..=last and returns the turns on which the type fired.
fn fired_turns(
    manager: &ThrottleManager,
    attachment_type: AttachmentType,
    last: i32,
    trigger: impl Fn(i32) -> Option<i32>,
) -> Vec<i32> {
    let config = default_throttle_config(attachment_type);
    let mut fired = Vec::new();
    for turn in 1..=last {
        if manager.should_generate(attachment_type, &config, turn, trigger(turn)) {
            manager.mark_generated(attachment_type, turn);
            fired.push(turn);
        }
    }
    fired
}

#[test]
fn todo_reminder_ten_message_min_interval() {
    let manager = ThrottleManager::new();
    // TodoWrite never used: the trigger is the session start (message 0).
    let fired = fired_turns(&manager, AttachmentType::TodoReminder, 40, |_| Some(0));
    assert_eq!(fired, vec![10, 20, 30, 40]);
    assert_eq!(TURNS_BETWEEN_TODO_REMINDERS, 10);
}

#[test]
fn todo_reminder_needs_ten_messages_since_todo_write() {
    let manager = ThrottleManager::new();
    let config = default_throttle_config(AttachmentType::TodoReminder);
    // TodoWrite after message 10.
    for message in 10..20 {
        assert!(
            !manager.should_generate(AttachmentType::TodoReminder, &config, message, Some(10)),
            "message {message} is fewer than 10 messages after the TodoWrite"
        );
    }
    assert!(manager.should_generate(AttachmentType::TodoReminder, &config, 20, Some(10)));
    assert_eq!(TURNS_SINCE_TODO_WRITE, 10);
}

#[test]
fn plan_mode_first_always_then_every_five_turns() {
    let manager = ThrottleManager::new();
    let fired = fired_turns(&manager, AttachmentType::PlanMode, 16, |_| None);
    assert_eq!(fired, vec![1, 6, 11, 16]);
    // Entering plan mode late: the first reminder still fires at once.
    let late = ThrottleManager::new();
    let config = default_throttle_config(AttachmentType::PlanMode);
    assert!(late.should_generate(AttachmentType::PlanMode, &config, 37, None));
}

#[test]
fn plan_mode_full_reminder_every_fifth_attachment() {
    let full: Vec<bool> = (0..11).map(is_full_plan_reminder).collect();
    assert_eq!(
        full,
        vec![
            true, false, false, false, false, true, false, false, false, false, true
        ]
    );
}

#[test]
fn task_progress_every_three_turns() {
    let manager = ThrottleManager::new();
    let fired = fired_turns(&manager, AttachmentType::TaskProgress, 7, |_| None);
    assert_eq!(fired, vec![1, 4, 7]);
}

#[test]
fn reset_clears_state() {
    let manager = ThrottleManager::new();
    let config = default_throttle_config(AttachmentType::PlanMode);
    manager.mark_generated(AttachmentType::PlanMode, 1);
    manager.mark_generated(AttachmentType::TodoReminder, 1);
    assert!(!manager.should_generate(AttachmentType::PlanMode, &config, 2, None));
    manager.reset();
    assert_eq!(manager.state(AttachmentType::PlanMode), None);
    assert_eq!(manager.session_count(AttachmentType::TodoReminder), 0);
    assert!(manager.should_generate(AttachmentType::PlanMode, &config, 2, None));
}

#[test]
fn unthrottled_types_fire_every_turn() {
    let manager = ThrottleManager::new();
    let fired = fired_turns(&manager, AttachmentType::ChangedFiles, 3, |_| None);
    assert_eq!(fired, vec![1, 2, 3]);
    assert_eq!(manager.session_count(AttachmentType::ChangedFiles), 3);
    assert_eq!(
        manager.last_generated_turn(AttachmentType::ChangedFiles),
        Some(3)
    );
}

#[test]
fn max_per_session_caps_the_count() {
    let manager = ThrottleManager::new();
    let config = ThrottleConfig {
        max_per_session: Some(2),
        ..ThrottleConfig::default()
    };
    let fired: Vec<i32> = (1..=5)
        .filter(|turn| {
            let ok = manager.should_generate(AttachmentType::HookSuccess, &config, *turn, None);
            if ok {
                manager.mark_generated(AttachmentType::HookSuccess, *turn);
            }
            ok
        })
        .collect();
    assert_eq!(fired, vec![1, 2]);
}

#[test]
fn state_is_shared_across_threads() {
    let manager = std::sync::Arc::new(ThrottleManager::new());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let manager = std::sync::Arc::clone(&manager);
            std::thread::spawn(move || manager.mark_generated(AttachmentType::ChangedFiles, 1))
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(manager.session_count(AttachmentType::ChangedFiles), 4);
}

#[test]
fn each_type_keeps_its_own_state_whatever_its_turn_and_count() {
    let manager = ThrottleManager::new();
    for attachment_type in AttachmentType::ALL {
        assert_eq!(manager.state(*attachment_type), None);
    }
    // A negative turn and a count at its ceiling survive the packing.
    manager.mark_generated(AttachmentType::PlanMode, -7);
    manager.mark_generated(AttachmentType::PlanMode, i32::MIN);
    manager.mark_generated(AttachmentType::TodoReminder, i32::MAX);
    let last = *AttachmentType::ALL.last().unwrap();
    manager.mark_generated(last, 3);
    assert_eq!(
        manager.state(AttachmentType::PlanMode),
        Some(ThrottleState {
            last_generated_turn: i32::MIN,
            session_count: 2,
        })
    );
    assert_eq!(
        manager.last_generated_turn(AttachmentType::TodoReminder),
        Some(i32::MAX)
    );
    assert_eq!(manager.session_count(last), 1);
    let touched = [AttachmentType::PlanMode, AttachmentType::TodoReminder, last];
    for attachment_type in AttachmentType::ALL {
        if !touched.contains(attachment_type) {
            assert_eq!(manager.state(*attachment_type), None, "{attachment_type}");
        }
    }
    let saturated = ThrottleState {
        last_generated_turn: 4,
        session_count: i32::MAX,
    };
    assert_eq!(ThrottleState::unpack(saturated.pack()), Some(saturated));
    manager.reset();
    assert!(
        AttachmentType::ALL
            .iter()
            .all(|t| manager.state(*t).is_none())
    );
}
