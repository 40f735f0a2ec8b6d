//! Reusable drawing helpers shared by the rooms.

pub mod heatmap;
pub mod markdown;
pub mod trace_raster;
