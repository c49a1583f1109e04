use pretty_assertions::assert_eq;

use super::*;

#[test]
fn identity_is_the_wire_api_and_the_host_with_its_port() {
    let openai = ProviderIdentity::new(WireApi::Responses, "https://API.openai.com/v1");
    assert_eq!(openai.host, "api.openai.com");
    assert_eq!(openai.to_string(), "responses@api.openai.com");
    let local = ProviderIdentity::new(WireApi::Chat, "http://localhost:11434/v1");
    assert_eq!(local.host, "localhost:11434");
}

#[test]
fn only_the_same_api_at_the_same_host_reads_an_opaque_item() {
    let writer = ProviderIdentity::new(WireApi::Responses, "https://api.openai.com/v1");
    let same = ProviderIdentity::new(WireApi::Responses, "https://api.openai.com/v1/");
    let chat_same_host = ProviderIdentity::new(WireApi::Chat, "https://api.openai.com/v1");
    let azure = ProviderIdentity::new(WireApi::Responses, "https://x.openai.azure.com/openai");
    let anthropic = ProviderIdentity::new(WireApi::Anthropic, "https://api.anthropic.com");
    assert!(same.can_read(&writer));
    assert!(!chat_same_host.can_read(&writer));
    assert!(!azure.can_read(&writer));
    assert!(!anthropic.can_read(&writer));
}

#[test]
fn an_unparsable_url_has_no_host() {
    let identity = ProviderIdentity::new(WireApi::Responses, "not a url");
    assert_eq!(identity.host, "");
    assert_eq!(identity.to_string(), "responses");
}

#[test]
fn no_support_does_nothing() {
    assert!(!RemoteCompactionSupport::NONE.any());
    assert_eq!(
        RemoteCompactionSupport::default(),
        RemoteCompactionSupport::NONE
    );
    let endpoint = RemoteCompactionSupport {
        endpoint: true,
        ..RemoteCompactionSupport::NONE
    };
    assert!(endpoint.any());
}
