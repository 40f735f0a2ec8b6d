//! Sleep: hypnograms, YASA's sleep statistics, scorer agreement.

pub mod agreement;
pub mod epoch_power;
pub mod hypnogram;
pub mod stage_power;
pub mod stats;

pub use agreement::{Agreement, agreement};
pub use hypnogram::{Codes, Hypnogram, Scale, Stage};
pub use stats::{SleepStats, sleep_statistics};
