//! Spectra: Welch PSD (scipy's definition), band power, peak frequency, spectral edge and entropy.

pub mod bandpower;
pub mod file;
pub mod multitaper;
pub mod spectrogram;
pub mod welch;
pub mod window;

pub use bandpower::{Integration, band_power, peak_frequency, spectral_edge, spectral_entropy};
pub use welch::{Average, Detrend, Psd, Scaling, WelchParams, WelchStream, welch};
pub use window::Window;
