//! Fuzzes the BrainNet Viewer files: the first byte picks a `.node` (regions: x y z colour size label, read
//! as an atlas) or an `.edge` (a whitespace matrix, read as a connectome, directed or symmetrised); any
//! bytes must give a result or an error, never panic.
#![no_main]

use brainlens::network::atlas::Atlas;
use brainlens::network::connectome::Asymmetry;
use brainlens::network::io;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-ne-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    if pick % 2 == 0 {
        let path = dir.join("f.node");
        let _ = std::fs::write(&path, body);
        if let Some(p) = path.to_str() {
            let _ = Atlas::load(p);
        }
    } else {
        let path = dir.join("f.edge");
        let _ = std::fs::write(&path, body);
        let asym = [Asymmetry::Error, Asymmetry::Symmetrize, Asymmetry::Directed][(pick / 2) as usize % 3];
        let _ = io::load(&path, asym);
    }
});
