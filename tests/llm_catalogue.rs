//! Fetching a model from a package index, as `brainlens models fetch` does, against an index served on loopback:
//! two wheels (zip files made here, each holding one part of a **synthetic** model file) listed by the JSON
//! simple API. A whole fetch assembles the file and checks it; a wheel whose bytes differ from its sha256 is
//! refused by part number and wheel name; a cancelled fetch leaves nothing; in no case is a partial file left
//! at the model's path.

use brainlens::llm::catalogue::fetch::{FetchError, fetch_from, partial_path};
use brainlens::llm::catalogue::{Entry, Part, State};
use brainlens::util::cancel::Cancel;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn wheel(member: &str, data: &[u8]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    z.start_file(member, zip::write::SimpleFileOptions::default()).unwrap();
    z.write_all(data).unwrap();
    z.finish().unwrap();
    out.into_inner()
}

#[test]
fn a_fetch_checks_every_wheel_and_the_model_and_leaves_nothing_broken() {
    let cache = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary; set before any thread reads the environment.
    unsafe { std::env::set_var("BRAINLENS_CACHE", cache.path()) };
    let parts: Vec<Vec<u8>> =
        (0..2u8).map(|k| (0..300_000u32).map(|i| (i as u8).wrapping_mul(7) ^ k).collect()).collect();
    let model: Vec<u8> = parts.concat();
    let wheels: Vec<(String, Vec<u8>)> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (format!("synthetic_part{}-1.0-py3-none-any.whl", i + 1), wheel(&format!("pkg{}/data/part.bin", i + 1), p))
        })
        .collect();
    // A loopback index and file server: one GET per connection, the path from the request line.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let corrupt = Arc::new(AtomicBool::new(false));
    {
        let (wheels, corrupt) = (wheels.clone(), corrupt.clone());
        std::thread::spawn(move || {
            for stream in server.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && std::io::Read::read(&mut stream, &mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let url = head.split(' ').nth(1).unwrap_or("").to_string();
                let body = if let Some(pkg) = url.strip_prefix("/simple/").and_then(|u| u.strip_suffix('/')) {
                    let k: usize = pkg.trim_start_matches("synthetic-part").parse().unwrap_or(0);
                    let name = &wheels[k - 1].0;
                    serde_json::json!({"files": [{"filename": name, "url": format!("/files/{name}")}]})
                        .to_string()
                        .into_bytes()
                } else {
                    let (name, bytes) = wheels.iter().find(|(n, _)| url.ends_with(n.as_str())).unwrap();
                    let mut b = bytes.clone();
                    if corrupt.load(Ordering::SeqCst) && name.contains("part2") {
                        let mid = b.len() / 2;
                        b[mid] ^= 1;
                    }
                    b
                };
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = std::io::Write::write_all(&mut stream, head.as_bytes())
                    .and_then(|_| std::io::Write::write_all(&mut stream, &body));
            }
        });
    }
    let entry = Entry {
        name: "synthetic".into(),
        title: "synthetic test model".into(),
        file: "synthetic.gguf".into(),
        bytes: model.len() as u64,
        sha256: sha(&model),
        licence: "test".into(),
        source: "made by this test".into(),
        purpose: "test".into(),
        speed: String::new(),
        repetition: Default::default(),
        parts: wheels
            .iter()
            .enumerate()
            .map(|(i, (name, bytes))| Part {
                package: format!("synthetic-part{}", i + 1),
                version: "1.0".into(),
                wheel: name.clone(),
                wheel_sha256: sha(bytes),
                wheel_bytes: bytes.len() as u64,
                member: format!("pkg{}/data/part.bin", i + 1),
            })
            .collect(),
    };
    let index = format!("http://127.0.0.1:{port}/simple");
    assert_eq!(entry.path(), cache.path().join("models/synthetic.gguf"));
    let leftovers = || {
        let mut names: Vec<String> = std::fs::read_dir(cache.path().join("models"))
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    };

    // A whole fetch: every part reported, the file in place and checked.
    let mut lines = Vec::new();
    let path = fetch_from(&entry, &index, &Cancel::default(), &mut |p| lines.extend(p.line.clone())).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), model);
    assert_eq!(entry.state(), State::Present);
    assert!(entry.verify().is_ok());
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("part 2/2") && lines[1].contains("sha256 ok"), "{lines:?}");
    assert_eq!(leftovers(), ["synthetic.gguf"]);

    // The file changed on disk: broken, and verify says so.
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"x").unwrap();
    assert!(matches!(entry.state(), State::Broken(_)));
    assert!(entry.verify().unwrap_err().to_string().contains("sha256"));
    assert!(entry.remove().unwrap());

    // A corrupted second wheel: refused by part and name; nothing at the model's path, no partial file.
    corrupt.store(true, Ordering::SeqCst);
    let e = fetch_from(&entry, &index, &Cancel::default(), &mut |_| {}).unwrap_err();
    match &e {
        FetchError::Part { part, wheel, problem, .. } => {
            assert_eq!(*part, 2);
            assert_eq!(wheel, &wheels[1].0);
            assert!(problem.contains("sha256") && problem.contains("refused"), "{problem}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(entry.state(), State::Absent);
    assert!(!partial_path(&entry).exists());
    assert!(leftovers().is_empty(), "{:?}", leftovers());

    // Cancelled before it starts: nothing is left.
    corrupt.store(false, Ordering::SeqCst);
    let cancel = Cancel::default();
    cancel.cancel();
    assert!(matches!(fetch_from(&entry, &index, &cancel, &mut |_| {}), Err(FetchError::Cancelled { .. })));
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}
