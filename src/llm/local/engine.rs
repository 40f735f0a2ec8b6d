//! The forward pass: llama.cpp (built from source by `llama-cpp-2`) over one GGUF, one context per model, and
//! a key/value cache kept per slot. Each slot is a llama.cpp sequence holding the tokens of a recent call;
//! a new prompt continues the slot with the longest common token prefix (least recently used slot when no
//! slot shares at least half of its tokens or `REUSE_TOKENS`), so an agent step prefills only the tokens that are new — as
//! llama.cpp's own server does. A prompt's stable head (its system message) is also saved to disk and loaded
//! by later processes (`prompt_states`). Why llama.cpp and not candle: docs/architecture.md ("Local inference").

use crate::llm::local::error::{FileProblem, LocalError};
use crate::llm::local::prefix::common_prefix;
use crate::llm::local::prompt_states::{Found, PromptStates};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::token::LlamaToken;
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// Recent calls whose key/value cache is kept.
pub const SLOTS: usize = 2;
/// A slot sharing at least this many tokens with a prompt is continued even when the prefix is less than half of
/// what it holds (an agent step that keeps a long head of the step before and drops its tail).
const REUSE_TOKENS: usize = 512;
/// Tokens per `llama_decode` call.
const BATCH: usize = 512;
/// Prompts are computed in chunks that start at multiples of this position, and a cached prefix is reused
/// only up to such a multiple: every prompt token is then computed in the same batch whether the cache hit
/// or missed, so the numbers — and the text — are identical either way (a row computed alone and the same
/// row computed in a larger batch can differ in the last bits).
const CHUNK: usize = 64;
/// The shortest prefix saved to or loaded from disk.
const MIN_DISK_TOKENS: usize = 2 * CHUNK;
/// Flash attention off (LLAMA_FLASH_ATTN_TYPE_DISABLED): with the native AVX-512 build its CPU path halved
/// decoding at 2,048 tokens of context here (16 vs 40 tokens/s; docs/architecture.md).
const FLASH_ATTN_POLICY: i32 = 0;
/// One key/value stream per slot (not a unified cache): a sequence's tokens then sit in its own cells in
/// position order, so attention sums over them in the same order whatever the other slots hold.
const KV_UNIFIED: bool = false;

fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<Result<LlamaBackend, LocalError>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // SAFETY: the callback is a plain function that only reads the C string it is given.
            unsafe { llama_cpp_sys_2::llama_log_set(Some(keep_errors), std::ptr::null_mut()) };
            LlamaBackend::init().map_err(|e| format!("llama.cpp backend: {e}").into())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// llama.cpp's recent error and warning lines (its logs are otherwise silent): a failed load is reported
/// with llama.cpp's own reason ("unknown model architecture: 'x'", "tensor … data is not within the file
/// bounds").
static LOGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());
const LOGGED_LINES: usize = 16;

unsafe extern "C" fn keep_errors(
    level: llama_cpp_sys_2::ggml_log_level,
    text: *const std::os::raw::c_char,
    _: *mut std::os::raw::c_void,
) {
    if text.is_null()
        || !(level == llama_cpp_sys_2::GGML_LOG_LEVEL_ERROR || level == llama_cpp_sys_2::GGML_LOG_LEVEL_WARN)
    {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string valid for the call.
    let line = unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy().trim().to_string();
    if line.is_empty() {
        return;
    }
    let mut logged = LOGGED.lock().unwrap_or_else(|p| p.into_inner());
    if logged.len() >= LOGGED_LINES {
        logged.remove(0);
    }
    logged.push(line);
}

/// The lines llama.cpp logged since the last call.
fn take_logged() -> Vec<String> {
    std::mem::take(&mut *LOGGED.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Threads for the forward pass: the process's share of the cores (`threads::threads`).
pub fn threads() -> i32 {
    super::threads::threads().threads.min(i32::MAX as usize) as i32
}

struct Slot {
    tokens: Vec<u32>,
    used: u64,
}

/// One model with its context. Not `Sync`: the owner keeps it behind a mutex.
pub struct Engine {
    model: &'static LlamaModel,
    ctx: LlamaContext<'static>,
    slots: Vec<Slot>,
    active: usize,
    clock: u64,
    n_ctx: usize,
    /// Tokens prefilled from the cache (reused; from disk among them) and computed, over the engine's life.
    pub reused_tokens: u64,
    pub disk_tokens: u64,
    pub computed_tokens: u64,
    /// Saved prompt states (none when the cache is off).
    disk: Option<PromptStates>,
}

/// A prompt run by `prefill`: the logits after its last token, how many of its tokens came from a cache, and
/// how many of those from disk.
pub struct Prefilled {
    pub logits: Vec<f32>,
    pub cached: usize,
    pub from_disk: usize,
}

// SAFETY: a llama.cpp context may be used from any thread as long as calls are not concurrent; `Engine` is only
// reached through `&mut` (the owner's mutex), and the model it borrows is leaked, so it outlives every thread.
unsafe impl Send for Engine {}

impl Engine {
    /// Loads the GGUF's weights and vocabulary (with `vocab_only`, the tokenizer alone). A file llama.cpp cannot
    /// load is refused with its reason, classified.
    pub fn load_model(path: &Path, vocab_only: bool) -> Result<LlamaModel, LocalError> {
        let backend = backend()?;
        // llama.cpp aborts the process on some malformed tensor tables: those are refused first.
        if path.is_file() {
            super::gguf_check::check(path).map_err(|why| {
                let problem = if why.contains("magic") {
                    FileProblem::NotGguf
                } else if why.contains("ends inside") || why.contains("are left") {
                    FileProblem::Truncated
                } else {
                    FileProblem::Malformed
                };
                LocalError::file(path, problem, why)
            })?;
        }
        take_logged();
        let params = LlamaModelParams::default().with_vocab_only(vocab_only);
        let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| {
            let logged = take_logged();
            let reason = logged.iter().rev().find(|l| !l.contains("failed to load model")).cloned();
            let problem = FileProblem::classify(&logged.join("\n"));
            LocalError::file(path, problem, reason.unwrap_or_else(|| format!("llama.cpp could not load it ({e})")))
        })?;
        Ok(model)
    }

    /// A context over a loaded model (leaked by the caller: it lives as long as the process, like the shared
    /// model cache that holds it). `context` = positions one call may use.
    pub fn new(model: &'static LlamaModel, context: usize) -> Result<Engine, LocalError> {
        let backend = backend()?;
        let n_ctx = context.min(model.n_ctx_train() as usize).max(256);
        let threads = threads();
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new((n_ctx * SLOTS) as u32))
            .with_n_batch(BATCH as u32)
            .with_n_ubatch(BATCH as u32)
            .with_n_seq_max(SLOTS as u32)
            .with_kv_unified(KV_UNIFIED)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            .with_flash_attention_policy(FLASH_ATTN_POLICY);
        let ctx = model.new_context(backend, params).map_err(|e| format!("llama.cpp context: {e}"))?;
        Ok(Engine {
            model,
            ctx,
            slots: (0..SLOTS).map(|_| Slot { tokens: Vec::new(), used: 0 }).collect(),
            active: 0,
            clock: 0,
            n_ctx,
            reused_tokens: 0,
            disk_tokens: 0,
            computed_tokens: 0,
            disk: None,
        })
    }

    /// What else changes the numbers a saved state holds, besides the model and the build — the chunk and batch
    /// sizes, the attention kernel, the cache's layout and this context's size — from the values the context was
    /// made with (a state made with others is not used).
    pub fn settings(&self) -> String {
        format!(
            "chunk={CHUNK} batch={BATCH} ubatch={BATCH} slots={SLOTS} flash_attn_policy={FLASH_ATTN_POLICY} \
             kv_unified={KV_UNIFIED} kv=f16 n_ctx={}",
            self.n_ctx
        )
    }

    /// Saves and loads stable prompt heads in `states` from now on.
    pub fn attach_disk(&mut self, states: PromptStates) {
        self.disk = Some(states);
    }

    /// The warnings the disk cache gave (cut or foreign files, a folder that cannot be written).
    pub fn disk_warnings(&self) -> Vec<String> {
        self.disk.as_ref().map(|d| d.warnings.clone()).unwrap_or_default()
    }

    pub fn model(&self) -> &'static LlamaModel {
        self.model
    }

    /// Positions one sequence may use.
    pub fn n_ctx(&self) -> usize {
        self.n_ctx
    }

    /// Tokens of the active sequence so far.
    pub fn len(&self) -> usize {
        self.slots[self.active].tokens.len()
    }

    fn pick_slot(&self, ids: &[u32]) -> (usize, usize) {
        let scored: Vec<(usize, usize)> =
            self.slots.iter().enumerate().map(|(i, s)| (i, common_prefix(&s.tokens, ids))).collect();
        let best = scored.iter().copied().max_by_key(|&(i, n)| (n, self.slots[i].used)).unwrap_or((0, 0));
        if best.1 > 0 && (best.1 * 2 >= self.slots[best.0].tokens.len() || best.1 >= REUSE_TOKENS) {
            return best;
        }
        let lru = (0..self.slots.len()).min_by_key(|&i| self.slots[i].used).unwrap_or(0);
        (lru, scored[lru].1)
    }

    /// Runs `ids` as a prompt. The slot with the longest common prefix is continued from there (its cached
    /// keys/values for those tokens are used as they are), unless a state saved on disk shares more: then that
    /// state is loaded into the slot first. The first `stable` tokens are the prompt's stable head (its system
    /// message): computed here, their state is saved for later processes.
    pub fn prefill(&mut self, ids: &[u32], stable: usize) -> Result<Prefilled, LocalError> {
        if ids.is_empty() {
            return Err("empty prompt".into());
        }
        if ids.len() >= self.n_ctx {
            return Err(LocalError::TooLong { tokens: ids.len(), context: self.n_ctx });
        }
        let (slot, common) = self.pick_slot(ids);
        // The last prompt token is always recomputed (its logits are needed), and reuse stops at a chunk start.
        let aligned = |n: usize| n.min(ids.len() - 1) / CHUNK * CHUNK;
        let mut keep = aligned(common);
        self.clock += 1;
        self.active = slot;
        self.slots[slot].used = self.clock;
        // Saved states are stable heads: the folder is read only when this prompt has one the slot lacks (the
        // first call of a process, a new task), not on every call.
        let head = aligned(stable);
        let mut from_disk = 0;
        if head >= MIN_DISK_TOKENS && keep < head {
            let found = self.disk.as_mut().and_then(|d| d.best(ids, MIN_DISK_TOKENS));
            if let Some(found) = found.filter(|f| aligned(f.shared) > keep) {
                if self.load_state(&found)? {
                    keep = aligned(found.shared);
                    from_disk = keep;
                } else {
                    // A file refused before loading leaves the slot as it was; one llama.cpp refused, empty.
                    keep = keep.min(self.slots[self.active].tokens.len());
                }
            }
        }
        self.truncate(keep)?;
        self.reused_tokens += keep as u64;
        self.disk_tokens += from_disk as u64;
        // The stable head is saved when this call computes it (it ends at a chunk boundary, where a chunk ends).
        let save_at = (head >= MIN_DISK_TOKENS && head > keep && self.disk.is_some()).then_some(head);
        // Chunks aligned to absolute positions: [keep, next multiple), then CHUNK at a time.
        let mut logits = Vec::new();
        let mut at = keep;
        while at < ids.len() {
            let end = ((at / CHUNK + 1) * CHUNK).min(ids.len());
            logits = self.push(&ids[at..end])?;
            at = end;
            if Some(at) == save_at {
                self.save_state();
            }
        }
        Ok(Prefilled { logits, cached: keep, from_disk })
    }

    /// Loads a saved state into the active slot (emptied first). False, with the cache's warning, when the
    /// file is refused (the slot untouched) or llama.cpp refuses it (the slot then empty).
    fn load_state(&mut self, found: &Found) -> Result<bool, LocalError> {
        let seq = self.active as i32;
        let Some(payload) = self.disk.as_mut().and_then(|d| d.load(found)) else { return Ok(false) };
        self.truncate(0)?;
        // SAFETY: the payload is byte for byte what `llama_state_seq_get_data_ext` wrote for a context of the same
        // model, build and settings (the header's identity and the payload's SHA-256 were checked).
        let ok = unsafe { self.ctx.state_seq_set_data_ext(&payload, seq, Default::default()) };
        if !ok {
            if let Some(d) = self.disk.as_mut() {
                d.refused(found);
            }
            self.ctx
                .kv_cache_seq_rm(seq, None, None)
                .map_err(|e| format!("llama.cpp could not drop cached tokens: {e}"))?;
            return Ok(false);
        }
        self.slots[self.active].tokens = found.tokens.clone();
        Ok(true)
    }

    /// Saves the active slot's state (its tokens so far) to disk.
    fn save_state(&mut self) {
        let seq = self.active as i32;
        let size = self.ctx.state_seq_get_size_ext(seq, Default::default());
        let mut payload = vec![0u8; size];
        // SAFETY: the buffer holds the size llama.cpp just reported for this sequence.
        let written = unsafe { self.ctx.state_seq_get_data_ext(payload.as_mut_ptr(), seq, Default::default()) };
        if written != size {
            return;
        }
        let tokens = self.slots[self.active].tokens.clone();
        if let Some(d) = self.disk.as_mut() {
            d.save(&tokens, &payload);
        }
    }

    /// Drops the active sequence's tokens from `len` on.
    pub fn truncate(&mut self, len: usize) -> Result<(), LocalError> {
        let seq = self.active as i32;
        self.ctx
            .kv_cache_seq_rm(seq, Some(len as u32), None)
            .map_err(|e| format!("llama.cpp could not drop cached tokens: {e}"))?;
        self.slots[self.active].tokens.truncate(len);
        Ok(())
    }

    /// Appends tokens to the active sequence; returns the logits after the last one.
    pub fn push(&mut self, ids: &[u32]) -> Result<Vec<f32>, LocalError> {
        Ok(self.push_all(ids, false)?.pop().unwrap_or_default())
    }

    /// Appends tokens; with `every`, the logits after each token (else after the last only).
    pub fn push_all(&mut self, ids: &[u32], every: bool) -> Result<Vec<Vec<f32>>, LocalError> {
        let seq = self.active as i32;
        if self.len() + ids.len() >= self.n_ctx {
            return Err(LocalError::TooLong { tokens: self.len() + ids.len(), context: self.n_ctx });
        }
        let mut out = Vec::new();
        let mut batch = LlamaBatch::new(BATCH, 1);
        for (c, chunk) in ids.chunks(BATCH).enumerate() {
            let last_chunk = (c + 1) * BATCH >= ids.len();
            batch.clear();
            let start = self.len();
            for (k, &t) in chunk.iter().enumerate() {
                let want = every || (last_chunk && k + 1 == chunk.len());
                batch
                    .add(LlamaToken(t as i32), (start + k) as i32, &[seq], want)
                    .map_err(|e| format!("llama.cpp batch: {e}"))?;
            }
            self.ctx.decode(&mut batch).map_err(|e| format!("llama.cpp decode: {e}"))?;
            self.slots[self.active].tokens.extend_from_slice(chunk);
            self.computed_tokens += chunk.len() as u64;
            for k in 0..chunk.len() {
                if every || (last_chunk && k + 1 == chunk.len()) {
                    out.push(self.ctx.get_logits_ith(k as i32).to_vec());
                }
            }
        }
        Ok(out)
    }
}
