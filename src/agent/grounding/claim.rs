//! What a report can claim as done (`Work`) and one claim of it (`Claim`): the types the traces keep, apart
//! from the check that reads the traces.

use serde::{Deserialize, Serialize};

/// A kind of work a report can claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    Load,
    Filter,
    Reference,
    Resample,
    Spectrum,
    Epochs,
    Heart,
    /// A value no step measured and the task does not give.
    Value,
}

impl Work {
    pub fn name(self) -> &'static str {
        match self {
            Work::Load => "loading the data",
            Work::Filter => "filtering",
            Work::Reference => "re-referencing",
            Work::Resample => "resampling",
            Work::Spectrum => "a spectral computation (PSD, band power)",
            Work::Epochs => "epoching",
            Work::Heart => "R-peak / heart-rate analysis",
            Work::Value => "a value nothing measured",
        }
    }
}

/// A sentence of a report that claims `work` as done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub work: Work,
    pub sentence: String,
}
