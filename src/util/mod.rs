//! The floor every layer may use: small helpers with no knowledge of brains, models or benchmarks.

pub mod arrays;
pub mod calibration;
pub mod cancel;
pub mod chart;
pub mod csv_text;
pub mod error;
pub mod hash;
pub mod linalg;
pub mod little_endian;
pub mod logistic;
pub mod mat5;
pub mod parallel;
pub mod paths;
pub mod quantile;
pub mod rng;
pub mod table;
pub mod time;
