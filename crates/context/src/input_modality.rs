//! What kinds of input a model accepts.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// A kind of input a model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InputModality {
    /// Text.
    Text,
    /// Images.
    Image,
}

impl InputModality {
    /// What most models accept: text and images.
    pub const TEXT_AND_IMAGE: [Self; 2] = [Self::Text, Self::Image];
    /// Text only.
    pub const TEXT_ONLY: [Self; 1] = [Self::Text];
}
