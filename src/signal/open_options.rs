//! What a file may not say about itself and the user supplies when opening it: the sampling rate of an array
//! (`.npy`, `.csv`, …) and the sample width of a Neuroscan CNT file whose header leaves it open. The CLI sets
//! process-wide defaults from `--rate` and `--cnt-format`; the GUI passes its dialog's choice per file.

use super::edf::EdfError;
use std::sync::RwLock;

/// Bytes per sample of a Neuroscan CNT file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CntFormat {
    Int16,
    Int32,
}

impl CntFormat {
    pub fn bytes(self) -> usize {
        match self {
            CntFormat::Int16 => 2,
            CntFormat::Int32 => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CntFormat::Int16 => "int16",
            CntFormat::Int32 => "int32",
        }
    }

    /// `int16` or `int32`.
    pub fn parse(s: &str) -> Option<CntFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "int16" => Some(CntFormat::Int16),
            "int32" => Some(CntFormat::Int32),
            _ => None,
        }
    }
}

/// Choices for opening a file; `None` leaves each to the file.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpenOptions {
    /// Samples per second, for a file that records none (an array); ignored by files that record one.
    pub rate: Option<f64>,
    /// The sample width of a Neuroscan CNT file; `None` detects it as MNE does, and refuses to guess.
    pub cnt_format: Option<CntFormat>,
}

/// The error field of a file that needs a sampling rate ([`OpenOptions::rate`]).
pub const NEEDS_RATE: &str = "sampling rate";
/// The error field of a CNT file whose sample width cannot be decided ([`OpenOptions::cnt_format`]).
pub const NEEDS_CNT_FORMAT: &str = "sample width";

/// True when opening failed only for want of a sampling rate.
pub fn needs_rate(e: &EdfError) -> bool {
    e.field == NEEDS_RATE
}

/// True when opening failed only for want of a CNT sample width.
pub fn needs_cnt_format(e: &EdfError) -> bool {
    e.field == NEEDS_CNT_FORMAT
}

static DEFAULTS: RwLock<OpenOptions> = RwLock::new(OpenOptions { rate: None, cnt_format: None });

/// Sets the choices [`crate::signal::Recording::open`] uses (the CLI's `--rate` and `--cnt-format`).
pub fn set_defaults(options: OpenOptions) {
    *DEFAULTS.write().unwrap_or_else(|e| e.into_inner()) = options;
}

/// The choices [`crate::signal::Recording::open`] uses.
pub fn defaults() -> OpenOptions {
    *DEFAULTS.read().unwrap_or_else(|e| e.into_inner())
}
