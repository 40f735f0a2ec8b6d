//! Colour scales and vector charts (radar, heatmap) with no knowledge of what they plot: the Bench dashboard,
//! the connectome evaluation and the GUI draw with the same scales.

pub mod colors;
pub mod svg;
