//! Times the two halves of `bench report`: loading result files and building the report.
//! `cargo run --release --example bench_load -- DIR...`

use brainlens::bench::aggregate::{Levels, Report};
use brainlens::bench::collection::Collection;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let t = Instant::now();
    let c = Collection::load(&paths);
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let r = Report::build(&c, Levels::default());
    let build = t.elapsed().as_secs_f64();
    println!(
        "{} files, {} instances: load {load:.3} s, report {build:.3} s ({} tasks)",
        c.runs.len(),
        c.instance_count(),
        r.tasks.len()
    );
}
