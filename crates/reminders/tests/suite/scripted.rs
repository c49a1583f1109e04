//! A generator whose behaviour a test scripts: reply, sleep, fail, panic or stay silent.

use std::time::Duration;

use agentctx_reminders::AttachmentGenerator;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::GeneratorError;
use agentctx_reminders::SystemReminder;
use async_trait::async_trait;

#[derive(Debug, Clone)]
pub(crate) enum Behaviour {
    Reply(&'static str),
    SleepThenReply(Duration, &'static str),
    Fail,
    Panic,
    Silent,
}

#[derive(Debug, Clone)]
pub(crate) struct Scripted {
    pub(crate) name: &'static str,
    pub(crate) attachment_type: AttachmentType,
    pub(crate) behaviour: Behaviour,
}

pub(crate) fn scripted(
    name: &'static str,
    attachment_type: AttachmentType,
    behaviour: Behaviour,
) -> std::sync::Arc<dyn AttachmentGenerator> {
    std::sync::Arc::new(Scripted {
        name,
        attachment_type,
        behaviour,
    })
}

#[async_trait]
impl AttachmentGenerator for Scripted {
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
        match &self.behaviour {
            Behaviour::Reply(text) => Ok(Some(SystemReminder::new(self.attachment_type, *text))),
            Behaviour::SleepThenReply(duration, text) => {
                tokio::time::sleep(*duration).await;
                Ok(Some(SystemReminder::new(self.attachment_type, *text)))
            }
            Behaviour::Fail => Err(GeneratorError::Invalid {
                generator: self.name.to_string(),
                message: "scripted failure".to_string(),
            }),
            Behaviour::Panic => panic!("scripted panic in {}", self.name),
            Behaviour::Silent => Ok(None),
        }
    }
}
