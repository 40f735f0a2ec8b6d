//! Graph metrics with bctpy 0.6.1's definitions; each function names the bctpy function it follows.
//! Matrices are dense, row-major `n × n` slices.

pub mod betweenness;
pub mod clustering;
pub mod degree;
pub mod local;
pub mod paths;
pub mod richclub;
pub mod summary;
