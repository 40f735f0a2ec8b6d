//! Spectra: Welch PSD (scipy's definition), band power, peak frequency, spectral edge and entropy.

pub mod bandpower;
pub mod file;
pub mod multitaper;
pub mod preset;
pub mod spectrogram;
pub mod welch;
pub mod window;

pub use bandpower::{
    Integration, band_power, bands_power, peak_frequency, relative_band_power, spectral_edge, spectral_entropy,
};
pub use preset::yasa;
pub use welch::{Average, Detrend, Psd, Scaling, WelchParams, WelchStream, welch};
pub use window::Window;
