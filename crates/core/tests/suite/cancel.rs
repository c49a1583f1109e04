//! A turn cancelled before the model answers ends as cancelled, even when the model's answer
//! is ready at once: cancellation wins every race with the stream.

use std::sync::Arc;

use agentctx_core::Session;
use agentctx_core::SessionOptions;
use agentctx_model::ScriptedModelClient;
use agentctx_model::ScriptedResponse;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_turn_cancelled_before_the_answer_never_completes_even_with_an_instant_model() {
    // The scripted model answers at once; before the fix the stream and the cancellation were
    // polled in random order, so about half of these turns completed.
    for attempt in 0..20 {
        let cwd = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let model = ScriptedModelClient::new("test-model");
        model.push(ScriptedResponse::text("Hello!"));
        let options = SessionOptions::new(cwd.path(), home.path(), Arc::new(model.clone()));
        let (mut session, _events) = Session::new(options).unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let outcome = session.run_turn("say hello", &cancel).await.unwrap();
        assert!(outcome.aborted, "attempt {attempt}: the turn completed");
        assert_eq!(outcome.last_message, None, "attempt {attempt}");
    }
}
