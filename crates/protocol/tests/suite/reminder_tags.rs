use agentctx_protocol::ResponseItem;
use agentctx_protocol::XmlTag;
use agentctx_protocol::is_system_reminder_message;
use agentctx_protocol::is_system_reminder_text;
use pretty_assertions::assert_eq;

#[test]
fn wrapping_follows_the_spec_per_tag() {
    assert_eq!(
        XmlTag::SystemReminder.wrap("x"),
        "<system-reminder>\nx\n</system-reminder>"
    );
    assert_eq!(
        XmlTag::SystemNotification.wrap("x"),
        "<system-notification>x</system-notification>"
    );
    assert_eq!(
        XmlTag::NewDiagnostics.wrap("x"),
        "<new-diagnostics>x</new-diagnostics>"
    );
    assert_eq!(
        XmlTag::SessionMemory.wrap("x"),
        "<session-memory>\nx\n</session-memory>"
    );
    assert_eq!(XmlTag::None.wrap("x"), "x");
}

#[test]
fn reminder_messages_are_recognised_only_for_user_role() {
    let reminder = ResponseItem::user_text(XmlTag::SystemReminder.wrap("hi"));
    assert!(is_system_reminder_message(&reminder));
    assert!(!is_system_reminder_message(&ResponseItem::user_text("hi")));
    assert!(!is_system_reminder_message(&ResponseItem::developer_text(
        XmlTag::SystemReminder.wrap("hi")
    )));
    assert!(is_system_reminder_text("  <session-memory>\nx"));
    assert!(!is_system_reminder_text("<environment_context>"));
}
