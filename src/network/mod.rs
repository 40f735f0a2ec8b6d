//! Brain networks: connectome matrices with atlas labels, file formats, thresholding and graph metrics
//! with the Brain Connectivity Toolbox's (bctpy 0.6.1) definitions and names.

pub mod atlas;
pub mod cohort;
pub mod community;
pub mod connectome;
pub mod describe;
pub mod error;
pub mod features;
pub mod io;
pub mod metrics;
pub mod plot;
pub mod smallworld;
pub mod surface;
pub mod threshold;
pub mod timeseries;

pub use connectome::Connectome;
