//! The key/value state of stable prompt prefixes on disk, shared by every process on the machine: a prompt
//! whose head was computed before (by this process or another, today or last week) loads that head's state
//! instead of computing it again, as llama.cpp's server does with its slot save/restore.
//!
//! One folder per identity under `<model cache>/prompt-states/`: the model file's SHA-256, the engine settings
//! that change logits (chunk and batch sizes, attention kernel, cache type and layout) and the llama.cpp build
//! (crate version and the CPU features its kernels use). A state file holds its own header — the identity
//! again, the exact token prefix, the payload's length and SHA-256 — and the payload llama.cpp wrote for the
//! sequence (`llama_state_seq_get_data_ext`). A file that is cut, edited, of another identity or refused by
//! llama.cpp is never used: the prefix is computed again and one warning says why. Files are written whole
//! (a temporary file renamed into place); the folder is bounded (least recently used out).

use crate::util::hash::{Sha256Hex, sha256_hex};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"BLPSTAT1";
/// Default bound on the folder's size; `BRAINLENS_PROMPT_CACHE_MB` sets another (0 turns the cache off).
pub const DEFAULT_LIMIT_MB: u64 = 2048;
/// Longest header accepted (a prefix of 16,384 tokens is ~100 KB of JSON).
const MAX_HEADER: u32 = 1 << 20;

/// What makes two states interchangeable: the same weights, the same logits-changing settings, the same build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub model_file: String,
    pub model_sha256: String,
    pub settings: String,
    pub build: String,
}

impl Identity {
    /// The folder name: the first 16 hex digits of the identity's digest.
    pub fn key(&self) -> String {
        let text = format!("{}\n{}\n{}", self.model_sha256, self.settings, self.build);
        sha256_hex(text.as_bytes())[..16].to_string()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    identity: Identity,
    tokens: Vec<u32>,
    payload_bytes: u64,
    payload_sha256: String,
}

/// A saved prefix found for a prompt: its file, its tokens, and how many of them the prompt shares.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub tokens: Vec<u32>,
    pub shared: usize,
    payload_offset: u64,
    payload_bytes: u64,
    payload_sha256: String,
}

/// The prompt-state folder of one identity.
pub struct PromptStates {
    root: PathBuf,
    dir: PathBuf,
    identity: Identity,
    limit_bytes: u64,
    /// Saving failed once (full disk, no permission): the process stays with its in-memory cache.
    read_only: bool,
    /// The warnings given (each once per process).
    pub warnings: Vec<String>,
}

/// `<model cache>/prompt-states`.
pub fn default_root() -> PathBuf {
    crate::util::paths::cache_dir().join("prompt-states")
}

/// The bound on the folder's size from `BRAINLENS_PROMPT_CACHE_MB` (MiB), else the default; 0 = off.
pub fn limit_from_env() -> u64 {
    std::env::var("BRAINLENS_PROMPT_CACHE_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_LIMIT_MB)
        * (1 << 20)
}

/// The llama.cpp build this binary links: the crate's version and the CPU features its kernels were compiled
/// for (two builds with other kernels compute other last bits).
pub fn llama_build() -> String {
    // SAFETY: returns a static NUL-terminated string.
    let features = unsafe { std::ffi::CStr::from_ptr(llama_cpp_sys_2::llama_print_system_info()) };
    format!("llama-cpp-sys-2 {}; {}", env!("BRAINLENS_LLAMA_BUILD"), features.to_string_lossy().trim())
}

/// A model file's SHA-256, remembered beside the states by the file's path, size and modification time (a 1 GB
/// file takes seconds to hash; it is hashed once).
pub fn model_sha256(root: &Path, model: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(model)?;
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    let canonical = model.canonicalize().unwrap_or_else(|_| model.to_path_buf());
    let stamp =
        format!("{}\n{}\n{}", canonical.display(), meta.len(), modified.map(|d| d.as_nanos()).unwrap_or_default());
    let memo = root.join("models").join(format!("{}.sha256", &sha256_hex(stamp.as_bytes())[..16]));
    if let Ok(text) = std::fs::read_to_string(&memo)
        && let Some((head, sha)) = text.rsplit_once('\n')
        && head == stamp
        && sha.len() == 64
    {
        return Ok(sha.to_string());
    }
    let sha = crate::util::hash::sha256_reader(std::fs::File::open(model)?)?;
    // Remembering is an optimisation: a folder that cannot be written only means hashing again next time.
    let _ = std::fs::create_dir_all(memo.parent().unwrap_or(root))
        .and_then(|_| write_whole(&memo, &[format!("{stamp}\n{sha}").as_bytes()]));
    Ok(sha)
}

/// Writes `parts` to a temporary file beside `path` and renames it into place: a reader sees the whole file or
/// none. The temporary file is removed when anything fails.
fn write_whole(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!("{name}.{}.partial", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        for p in parts {
            f.write_all(p)?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The temporary file `save` writes before renaming it to `path` (tests put a full device there).
pub fn partial_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{name}.{}.partial", std::process::id()))
}

/// Warnings already printed by this process (one per kind of problem and folder).
static PRINTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl PromptStates {
    /// The folder of `identity` under `root`, bounded to `limit_bytes` (0: no cache). A root that cannot be
    /// created is not an error: the process keeps its in-memory cache, with one warning.
    pub fn open(root: &Path, identity: Identity, limit_bytes: u64) -> Option<PromptStates> {
        if limit_bytes == 0 {
            return None;
        }
        let dir = root.join(identity.key());
        let mut states = PromptStates {
            root: root.to_path_buf(),
            dir,
            identity,
            limit_bytes,
            read_only: false,
            warnings: Vec::new(),
        };
        if let Err(e) = std::fs::create_dir_all(&states.dir) {
            states.read_only = true;
            let dir = states.dir.display().to_string();
            states.warn(format!(
                "the prompt cache folder {dir} cannot be created ({e}); prompts are cached in memory only"
            ));
        }
        Some(states)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    fn warn(&mut self, message: String) {
        let mut printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner());
        // One line per kind of problem: the message up to the first colon or parenthesis names it.
        let kind = message.split(['(', ':']).next().unwrap_or(&message).to_string();
        if !printed.contains(&kind) {
            eprintln!("warning: prompt cache: {message}");
            printed.push(kind);
        }
        // A file passed over on every lookup is said once.
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    /// The file a prefix of these tokens is saved in.
    pub fn path_of(&self, tokens: &[u32]) -> PathBuf {
        let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
        self.dir.join(format!("{}-{}.state", tokens.len(), &sha256_hex(&bytes)[..16]))
    }

    /// The saved prefix sharing the most tokens with `ids` (at least `min_shared`). Files that are not
    /// states of this identity are passed over with a warning.
    pub fn best(&mut self, ids: &[u32], min_shared: usize) -> Option<Found> {
        let entries = std::fs::read_dir(&self.dir).ok()?;
        let mut best: Option<Found> = None;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("state") {
                continue;
            }
            let found = match read_header(&path) {
                Ok((h, _)) if h.identity != self.identity => {
                    self.warn(format!(
                        "{} is a state of another model or build ({}), not of {}: not used",
                        path.display(),
                        h.identity.model_file,
                        self.identity.model_file
                    ));
                    continue;
                }
                Ok(h) => h,
                Err(e) => {
                    self.warn(format!("{} is not a readable prompt state ({e}): not used", path.display()));
                    continue;
                }
            };
            let (header, offset) = found;
            let shared = super::prefix::common_prefix(&header.tokens, ids);
            if shared >= min_shared && best.as_ref().is_none_or(|b| shared > b.shared) {
                best = Some(Found {
                    path,
                    tokens: header.tokens,
                    shared,
                    payload_offset: offset,
                    payload_bytes: header.payload_bytes,
                    payload_sha256: header.payload_sha256,
                });
            }
        }
        best
    }

    /// The payload of a found state, checked against its header's length and digest; marked as used now.
    pub fn load(&mut self, found: &Found) -> Option<Vec<u8>> {
        let read = || -> Result<Vec<u8>, String> {
            let mut f = std::fs::File::open(&found.path).map_err(|e| e.to_string())?;
            let total = f.metadata().map_err(|e| e.to_string())?.len();
            if total != found.payload_offset + found.payload_bytes {
                return Err(format!(
                    "{} bytes where its header promises {}: the file is cut or padded",
                    total,
                    found.payload_offset + found.payload_bytes
                ));
            }
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(found.payload_offset)).map_err(|e| e.to_string())?;
            let mut payload = Vec::with_capacity(found.payload_bytes as usize);
            f.read_to_end(&mut payload).map_err(|e| e.to_string())?;
            let mut h = Sha256Hex::new();
            h.update(&payload);
            if h.hex() != found.payload_sha256 {
                return Err("its payload does not match its SHA-256".into());
            }
            Ok(payload)
        };
        match read() {
            Ok(payload) => {
                touch(&found.path);
                Some(payload)
            }
            Err(e) => {
                self.warn(format!("{} is refused ({e}); the prefix is computed again", found.path.display()));
                None
            }
        }
    }

    /// Says a state llama.cpp refused (it is removed: it can never load).
    pub fn refused(&mut self, found: &Found) {
        self.warn(format!(
            "llama.cpp refused {} for this context; the prefix is computed again and the file removed",
            found.path.display()
        ));
        let _ = std::fs::remove_file(&found.path);
    }

    /// Saves the state of a prefix; false when this process does not write (after a failure, with its warning).
    pub fn save(&mut self, tokens: &[u32], payload: &[u8]) -> bool {
        if self.read_only {
            return false;
        }
        let header = Header {
            identity: self.identity.clone(),
            tokens: tokens.to_vec(),
            payload_bytes: payload.len() as u64,
            payload_sha256: sha256_hex(payload),
        };
        let json = serde_json::to_vec(&header).unwrap_or_default();
        let path = self.path_of(tokens);
        let len = (json.len() as u32).to_le_bytes();
        if let Err(e) = write_whole(&path, &[MAGIC, &len, &json, payload]) {
            self.read_only = true;
            self.warn(format!(
                "cannot save a prompt state in {} ({e}); this process keeps its prompts in memory only",
                self.dir.display()
            ));
            return false;
        }
        self.evict();
        true
    }

    /// Removes the least recently used states (of every identity) while the folder is over its bound.
    fn evict(&mut self) {
        let mut files = list_states(&self.root);
        let mut total: u64 = files.iter().map(|f| f.bytes).sum();
        files.sort_by_key(|f| f.used);
        for f in files {
            if total <= self.limit_bytes {
                break;
            }
            if std::fs::remove_file(&f.path).is_ok() {
                total -= f.bytes;
            }
        }
    }
}

/// Marks a file as used now (its modification time orders the eviction).
fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(path) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

fn read_header(path: &Path) -> Result<(Header, u64), String> {
    let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut head = [0u8; 12];
    f.read_exact(&mut head).map_err(|_| "shorter than a header".to_string())?;
    if &head[..8] != MAGIC {
        return Err("no BrainLens prompt-state magic".into());
    }
    let len = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if len > MAX_HEADER {
        return Err(format!("a header of {len} bytes"));
    }
    let mut json = vec![0u8; len as usize];
    f.read_exact(&mut json).map_err(|_| "cut inside its header".to_string())?;
    let header: Header = serde_json::from_slice(&json).map_err(|e| format!("header: {e}"))?;
    Ok((header, 12 + len as u64))
}

/// One saved state, as `brainlens models cache` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct StateFile {
    pub path: PathBuf,
    pub model_file: String,
    pub tokens: usize,
    pub bytes: u64,
    /// Seconds since the Unix epoch of its last use.
    pub used: u64,
}

/// Every state file under `root` (of every identity), with what its header says (unreadable ones count with
/// their size and no model).
pub fn list_states(root: &Path) -> Vec<StateFile> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(root) else { return out };
    for d in dirs.flatten().filter(|d| d.path().is_dir() && d.file_name() != "models") {
        let Ok(files) = std::fs::read_dir(d.path()) else { continue };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().and_then(|e| e.to_str()) != Some("state") {
                continue;
            }
            let Ok(meta) = f.metadata() else { continue };
            let used = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            let (model_file, tokens) =
                read_header(&path).map_or((String::new(), 0), |(h, _)| (h.identity.model_file, h.tokens.len()));
            out.push(StateFile { path, model_file, tokens, bytes: meta.len(), used });
        }
    }
    out
}

/// Removes every state under `root`; returns how many files and bytes.
pub fn clear(root: &Path) -> std::io::Result<(usize, u64)> {
    let files = list_states(root);
    let mut n = 0;
    let mut bytes = 0;
    for f in files {
        std::fs::remove_file(&f.path)?;
        n += 1;
        bytes += f.bytes;
    }
    Ok((n, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(settings: &str) -> Identity {
        Identity {
            model_file: "m.gguf".into(),
            model_sha256: "ab".repeat(32),
            settings: settings.into(),
            build: "test".into(),
        }
    }

    #[test]
    fn a_saved_prefix_is_found_by_its_longest_common_prefix_and_loads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = PromptStates::open(dir.path(), identity("a"), 1 << 30).unwrap();
        assert!(s.save(&[1, 2, 3, 4], b"four"));
        assert!(s.save(&[1, 2, 9], b"three"));
        let found = s.best(&[1, 2, 3, 4, 5], 1).unwrap();
        assert_eq!((found.tokens.clone(), found.shared), (vec![1, 2, 3, 4], 4));
        assert_eq!(s.load(&found).unwrap(), b"four");
        assert!(s.best(&[7, 8], 1).is_none());
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn a_cut_file_and_a_file_of_another_identity_are_refused_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = PromptStates::open(dir.path(), identity("a"), 1 << 30).unwrap();
        assert!(a.save(&[1, 2, 3], b"payload of a"));
        let file = a.path_of(&[1, 2, 3]);
        // Cut: the header still matches, the payload is short.
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 3]).unwrap();
        let found = a.best(&[1, 2, 3, 4], 1).unwrap();
        assert!(a.load(&found).is_none());
        assert!(a.warnings[0].contains("cut"), "{:?}", a.warnings);
        // Another identity's file copied into this folder.
        let mut b = PromptStates::open(dir.path(), identity("b"), 1 << 30).unwrap();
        assert!(b.save(&[1, 2, 3], b"payload of b"));
        std::fs::copy(b.path_of(&[1, 2, 3]), a.dir().join("copied.state")).unwrap();
        std::fs::remove_file(&file).unwrap();
        assert!(a.best(&[1, 2, 3, 4], 1).is_none());
        assert!(a.warnings.last().unwrap().contains("another model"), "{:?}", a.warnings);
        // Passed over again on the next lookup, said once.
        let said = a.warnings.len();
        assert!(a.best(&[1, 2, 3, 4], 1).is_none());
        assert_eq!(a.warnings.len(), said, "{:?}", a.warnings);
    }

    #[test]
    fn the_folder_stays_within_its_bound_least_recently_used_out() {
        let dir = tempfile::tempdir().unwrap();
        let payload = vec![7u8; 4000];
        let mut s = PromptStates::open(dir.path(), identity("a"), 10_000).unwrap();
        assert!(s.save(&[1], &payload));
        assert!(s.save(&[2], &payload));
        // [1] used after [2]: [2] is the least recently used when a third comes.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options().append(true).open(s.path_of(&[2])).unwrap().set_modified(old).unwrap();
        assert!(s.save(&[3], &payload));
        let left: Vec<usize> = list_states(dir.path()).iter().map(|f| f.tokens).collect();
        assert_eq!(left.len(), 2);
        assert!(!s.path_of(&[2]).exists() && s.path_of(&[1]).exists() && s.path_of(&[3]).exists());
    }

    #[test]
    fn a_full_disk_or_an_unwritable_folder_leaves_the_cache_in_memory_with_one_warning() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = PromptStates::open(dir.path(), identity("a"), 1 << 30).unwrap();
        // The temporary file is the full device: every write fails with ENOSPC.
        std::os::unix::fs::symlink("/dev/full", partial_path(&s.path_of(&[5, 6]))).unwrap();
        assert!(!s.save(&[5, 6], &vec![1u8; 1 << 16]));
        assert!(s.warnings[0].contains("No space left"), "{:?}", s.warnings);
        assert!(!s.path_of(&[5, 6]).exists());
        assert!(!s.save(&[7], b"x"), "no further attempts after a failure");
        assert_eq!(s.warnings.len(), 1);
        // A folder that cannot be made (its parent is a file; root ignores permission bits).
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, "").unwrap();
        let mut t = PromptStates::open(&blocked, identity("a"), 1 << 30).unwrap();
        assert!(!t.save(&[1], b"x"));
        assert!(t.best(&[1], 1).is_none());
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    }
}
