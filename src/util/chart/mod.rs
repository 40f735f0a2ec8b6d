//! Colour scales and vector charts (radar, heatmap, scenes) with no knowledge of what they plot: the Bench
//! dashboard, the connectome evaluation, the network figures and the GUI draw with the same scales.

pub mod colors;
pub mod png;
pub mod scene;
pub mod svg;
