use std::borrow::Cow;

use agentctx_compact::CompactConfig;
use agentctx_compact::ContextWindow;
use agentctx_model::ProviderIdentity;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::ScriptedModelClient;
use agentctx_model::WireApi;
use agentctx_protocol::CompactMode;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn openai() -> ProviderIdentity {
    ProviderIdentity::new(WireApi::Responses, "https://api.openai.com/v1")
}

fn anthropic() -> ProviderIdentity {
    ProviderIdentity::new(WireApi::Anthropic, "https://api.anthropic.com")
}

fn compaction() -> ResponseItem {
    serde_json::from_value(json!({"type": "compaction", "encrypted_content": "gAAAA-opaque"}))
        .unwrap()
}

fn window() -> ContextWindow {
    ContextWindow::new(200_000, None, &CompactConfig::default())
}

#[test]
fn the_mode_and_the_client_decide_where_full_compaction_runs() {
    let endpoint = ScriptedModelClient::new("m").with_remote_compaction(RemoteCompactionSupport {
        endpoint: true,
        ..RemoteCompactionSupport::NONE
    });
    let none = ScriptedModelClient::new("m");
    assert_eq!(
        decide(CompactMode::Local, Some(&endpoint)),
        FullCompactionPath::Local
    );
    assert_eq!(
        decide(CompactMode::Auto, Some(&endpoint)),
        FullCompactionPath::Remote
    );
    assert_eq!(
        decide(CompactMode::Remote, Some(&endpoint)),
        FullCompactionPath::Remote
    );
    // `auto` settles for local silently; `remote` says why it could not.
    assert_eq!(
        decide(CompactMode::Auto, Some(&none)),
        FullCompactionPath::Local
    );
    assert_eq!(decide(CompactMode::Auto, None), FullCompactionPath::Local);
    assert_eq!(
        decide(CompactMode::Remote, Some(&none)),
        FullCompactionPath::LocalInstead(
            "remote compaction asked for, but provider `responses` has no compaction endpoint"
                .to_string()
        )
    );
    assert!(matches!(
        decide(CompactMode::Remote, None),
        FullCompactionPath::LocalInstead(_)
    ));
}

#[test]
fn a_provider_reads_only_its_own_opaque_items() {
    let mut item = compaction();
    // No recorded writer (a codex-rs rollout): the Responses API reads it, nobody else.
    assert!(can_read(&openai(), &item));
    assert!(!can_read(&anthropic(), &item));
    item.set_compaction_writer(serde_json::to_value(openai()).unwrap());
    assert!(can_read(&openai(), &item));
    assert!(!can_read(
        &ProviderIdentity::new(WireApi::Responses, "https://my-proxy.example/v1"),
        &item
    ));
    assert!(!can_read(&anthropic(), &item));
    // Anything else goes everywhere.
    assert!(can_read(&anthropic(), &ResponseItem::user_text("hi")));
}

#[test]
fn an_unreadable_item_goes_as_its_copy_or_not_at_all() {
    let mut item = compaction();
    item.set_compaction_writer(serde_json::to_value(openai()).unwrap());
    // Without a copy the provider would only reject it: left out.
    assert_eq!(
        portable_item(Cow::Borrowed(&item), Some(&anthropic())),
        None
    );
    item.set_readable_copy("READABLE");
    let sent = portable_item(Cow::Borrowed(&item), Some(&anthropic())).unwrap();
    assert_eq!(sent.into_owned(), item.readable_copy_message().unwrap());
    // The writer and an unknown reader get the item itself, borrowed.
    assert!(matches!(
        portable_item(Cow::Borrowed(&item), Some(&openai())),
        Some(Cow::Borrowed(_))
    ));
    assert!(matches!(
        portable_item(Cow::Borrowed(&item), None),
        Some(Cow::Borrowed(_))
    ));
}

#[test]
fn a_streamed_compaction_item_gets_the_digest_of_what_preceded_it() {
    let history = vec![
        ResponseItem::user_text("Port the parser to nom"),
        ResponseItem::assistant_text("I'll start with the lexer."),
    ];
    let plain = [ResponseItem::assistant_text("Done.")];
    assert!(matches!(
        with_readable_copies(&history, &plain, Some(&openai()), window()),
        Cow::Borrowed(_)
    ));
    let items = [ResponseItem::assistant_text("Lexer done."), compaction()];
    let annotated = with_readable_copies(&history, &items, Some(&openai()), window());
    let copy = annotated[1].readable_copy().unwrap();
    assert!(copy.contains("Port the parser to nom"), "{copy}");
    // The items of the same response before it count too.
    assert!(copy.contains("Lexer done."), "{copy}");
    assert_eq!(
        annotated[1].compaction_writer(),
        Some(&serde_json::to_value(openai()).unwrap())
    );
    // An item that has its copy keeps it.
    let again = with_readable_copies(&history, &annotated, Some(&anthropic()), window());
    assert!(matches!(again, Cow::Borrowed(_)));
}
