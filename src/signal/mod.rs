//! Recordings and their analysis: EDF/BDF, BrainVision, Neuroscan CNT, EEGLAB, FIF, GDF and array files, channels, montages, display filters, overview pyramid.

pub mod annotations;
pub mod arrays;
pub mod bands;
pub mod bids;
pub mod brainvision;
pub mod channel;
pub mod channel_kind;
pub mod channel_stats;
pub mod cnt;
pub mod connectivity;
pub mod continuous;
pub mod edf;
pub mod eeglab;
pub mod error;
pub mod fif;
pub mod filter;
pub mod gdf;
pub mod info;
pub mod matrix;
pub mod montage;
pub mod open_options;
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
