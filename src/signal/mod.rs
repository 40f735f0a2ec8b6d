//! Recordings and their analysis: EDF/BDF and BrainVision files, channels, montages, display filters, overview pyramid.

pub mod annotations;
pub mod bands;
pub mod brainvision;
pub mod channel;
pub mod channel_stats;
pub mod connectivity;
pub mod edf;
pub mod error;
pub mod filter;
pub mod info;
pub mod montage;
pub mod page;
pub mod physio;
pub mod pyramid;
pub mod recording;
pub mod resample;
pub mod sleep;
pub mod spectrum;
pub mod topomap;
pub mod view;

pub use error::SignalError;
pub use recording::{Channel, ChannelData, Recording, Segment};
