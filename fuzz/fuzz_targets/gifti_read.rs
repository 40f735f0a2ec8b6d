//! Fuzzes the GIFTI surface reader (the 3-D view's `.gii` / `.gii.gz`): the input is written as a file and
//! read (gzip-wrapped or plain XML, base64 / gzip-base64 / ASCII data arrays); any bytes must give a surface
//! or an error, never panic.
#![no_main]

use brainlens::network::surface::read_gifti;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-gii-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("f.gii");
    let _ = std::fs::write(&path, data);
    if let Ok(s) = read_gifti(&path) {
        let _ = s.clone().join(s);
    }
});
