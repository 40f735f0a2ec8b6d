//! Reusable drawing helpers shared by the rooms.

pub mod trace_raster;
