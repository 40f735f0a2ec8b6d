//! Filters. `iir`: second-order sections with zero-phase filtering as scipy.signal.sosfiltfilt does;
//! `display`: the Recordings room's display filters built on them.

pub mod butter;
pub mod display;
pub mod fir;
pub mod iir;
pub mod lfilter;
pub mod segments;
