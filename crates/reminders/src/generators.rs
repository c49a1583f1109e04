//! The attachment generators of the catalogue, one module each, and [`default_generators`].
//!
//! Keep one line per module and one line per entry: two people edit this file.

use std::sync::Arc;

use crate::generator::AttachmentGenerator;

/// Every generator of the catalogue, in catalogue order. The orchestrator sorts output by
/// (tier, order) anyway, so the order here only affects telemetry.
pub fn default_generators() -> Vec<Arc<dyn AttachmentGenerator>> {
    vec![]
}
