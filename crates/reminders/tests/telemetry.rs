#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code fails loudly"
)]

//! Orchestrator telemetry through `tracing`, in a test binary of its own.
//!
//! tracing caches per callsite whether any subscriber is interested. When another test of the
//! same binary hits the telemetry callsite first, on another thread, while this test's scoped
//! subscriber is being registered, the callsite can stay cached as "never" and the events are
//! lost (seen under `cargo test`, which runs a binary's tests on threads; nextest runs each test
//! in its own process). Alone in its binary, this test has no such neighbour.

use std::sync::Arc;
use std::sync::Mutex;

use agentctx_reminders::AttachmentGenerator;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::GeneratorError;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use tracing_subscriber::layer::SubscriberExt;

/// A generator that replies with `reply`, or stays silent.
#[derive(Debug)]
struct Fixed {
    name: &'static str,
    attachment_type: AttachmentType,
    reply: Option<&'static str>,
}

#[async_trait]
impl AttachmentGenerator for Fixed {
    fn name(&self) -> &str {
        self.name
    }

    fn attachment_type(&self) -> AttachmentType {
        self.attachment_type
    }

    async fn generate(
        &self,
        _ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        Ok(self
            .reply
            .map(|text| SystemReminder::new(self.attachment_type, text)))
    }
}

/// Records the telemetry events' fields, `duration_ms` left out (it varies).
#[derive(Clone, Default)]
struct TelemetryEvents(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for TelemetryEvents {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if event.metadata().target() != agentctx_reminders::TELEMETRY_TARGET {
            return;
        }
        let mut fields = FieldText::default();
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

#[derive(Default)]
struct FieldText(String);

impl tracing::field::Visit for FieldText {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "duration_ms" {
            return;
        }
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(&format!("{}={value:?}", field.name()));
    }
}

#[test]
fn sampled_runs_emit_attachment_compute_duration_through_tracing() {
    let events = TelemetryEvents::default();
    let subscriber = tracing_subscriber::registry().with(events.clone());
    let config = SystemReminderConfig {
        telemetry_sample_rate: 1.0,
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::with_generators(
        config,
        vec![
            Arc::new(Fixed {
                name: "quiet",
                attachment_type: AttachmentType::ChangedFiles,
                reply: None,
            }),
            Arc::new(Fixed {
                name: "chatty",
                attachment_type: AttachmentType::TodoReminder,
                reply: Some("x"),
            }),
        ],
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(orchestrator.generate_all(&GeneratorContext::new("/p")));
    });
    assert_eq!(
        *events.0.lock().unwrap(),
        vec![
            "message=attachment_compute_duration generator=quiet attachment_count=0".to_string(),
            "message=attachment_compute_duration generator=chatty attachment_count=1".to_string(),
        ]
    );
}
