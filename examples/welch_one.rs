//! Welch PSD of one channel already in memory (best of 5), for scripts/bench/bandpower.sh.
//! `cargo run --release --example welch_one -- FILE CHANNEL NPERSEG NOVERLAP`

use brainlens::signal::Recording;
use brainlens::signal::spectrum::{WelchParams, welch};
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let rec = Recording::open(std::path::Path::new(&a[1])).unwrap();
    let c = rec.channel_index(&a[2]).unwrap();
    let d = rec.read(&[c], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0);
    let p = WelchParams {
        nperseg: Some(a[3].parse().unwrap()),
        noverlap: Some(a[4].parse().unwrap()),
        ..Default::default()
    };
    let mut best = f64::INFINITY;
    let mut psd = None;
    for _ in 0..5 {
        let t = Instant::now();
        psd = Some(welch(&d.values, d.sample_rate, &p).unwrap());
        best = best.min(t.elapsed().as_secs_f64());
    }
    let psd = psd.unwrap();
    println!("{{\"samples\": {}, \"seconds\": {best}, \"psd_sum\": {}}}", d.values.len(), psd.psd.iter().sum::<f64>());
}
