//! Speculative decoding by prompt lookup (opt-in: BRAINLENS_LOOKUP=1): when the last few tokens of the prompt
//! and reply so far occurred earlier, the tokens that followed them then are proposed as a draft and computed
//! in one batch with the token just chosen. The sampler then chooses each next token exactly as it would
//! without a draft, from the logits llama.cpp computed for that position; a drafted token that matches the
//! choice costs no forward pass of its own, the first that does not is dropped with the rest of the draft.
//! The decision rule is the plain decoder's; the logits are not bit-identical: llama.cpp's CPU kernels compute
//! a position in a batch differently from the same position alone (repacked weights, GEMM vs GEMV; measured
//! with llama-cpp-python: up to 0.7 logits apart on SmolLM2 and Qwen2.5-Coder-1.5B), so a near-tie can go the
//! other way and the text differ. Measured on the fingerprint analysis (2 cores) it does not pay either: a
//! 9-token verification batch costs several single steps on a compute-bound CPU while only 10–30 % of drafted
//! tokens were chosen — hence off by default (docs/architecture.md).

use super::engine::Engine;
use super::error::LocalError;

/// Longest n-gram looked up, shortest, and the most tokens drafted at once.
const MAX_NGRAM: usize = 4;
const MIN_NGRAM: usize = 2;
pub const MAX_DRAFT: usize = 8;

/// The drafted tokens in the engine's sequence after the last chosen token, with the logits after each.
#[derive(Default)]
pub struct Pending {
    tokens: Vec<u32>,
    logits: Vec<Vec<f32>>,
    /// Drafted and accepted tokens over the call (what the draft saved, and what it cost).
    pub drafted: usize,
    pub accepted: usize,
}

/// The tokens that followed the latest earlier occurrence of `history`'s last n tokens (n from `MAX_NGRAM` down
/// to `MIN_NGRAM`), at most `limit`.
pub fn draft(history: &[u32], limit: usize) -> &[u32] {
    let limit = limit.min(MAX_DRAFT);
    if limit == 0 {
        return &[];
    }
    for n in (MIN_NGRAM..=MAX_NGRAM).rev() {
        if history.len() <= n {
            continue;
        }
        let tail = &history[history.len() - n..];
        // Latest occurrence that has at least one token after it (before the tail itself).
        if let Some(start) = (0..history.len() - n).rev().find(|&i| &history[i..i + n] == tail) {
            let from = start + n;
            return &history[from..(from + limit).min(history.len())];
        }
    }
    &[]
}

impl Pending {
    /// Drops the drafted tokens from the engine's sequence (before anything else is computed after them).
    pub fn discard(&mut self, engine: &mut Engine) -> Result<(), LocalError> {
        if !self.tokens.is_empty() {
            let keep = engine.len() - self.tokens.len();
            engine.truncate(keep)?;
            self.tokens.clear();
            self.logits.clear();
        }
        Ok(())
    }

    /// Appends the chosen `token` and returns the logits after it: taken from the draft when it drafted this
    /// token, else computed — together with a new draft from `history` (which ends with `token`) when
    /// `room` > 0 more tokens may follow.
    pub fn advance(
        &mut self,
        engine: &mut Engine,
        token: u32,
        history: &[u32],
        room: usize,
    ) -> Result<Vec<f32>, LocalError> {
        if self.tokens.first() == Some(&token) {
            self.tokens.remove(0);
            self.accepted += 1;
            return Ok(self.logits.remove(0));
        }
        self.discard(engine)?;
        let room = room.min(engine.n_ctx().saturating_sub(engine.len() + 2));
        let proposal = draft(history, room);
        if proposal.is_empty() {
            return engine.push(&[token]);
        }
        let mut batch = Vec::with_capacity(proposal.len() + 1);
        batch.push(token);
        batch.extend_from_slice(proposal);
        let mut logits = engine.push_all(&batch, true)?;
        self.drafted += proposal.len();
        self.tokens = proposal.to_vec();
        self.logits = logits.split_off(1);
        Ok(logits.pop().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_what_followed_the_latest_earlier_occurrence() {
        // "... a b c d e ... a b c" → d e (the 3-gram "a b c" matched)
        let h = [9, 1, 2, 3, 4, 5, 7, 1, 2, 3];
        assert_eq!(draft(&h, 8), &[4, 5, 7, 1, 2, 3]);
        assert_eq!(draft(&h, 2), &[4, 5]);
        // The latest earlier occurrence wins.
        let h = [1, 2, 8, 1, 2, 6, 1, 2];
        assert_eq!(draft(&h, 1), &[6]);
        // Nothing repeats: no draft; a single repeated token is not enough (MIN_NGRAM = 2).
        assert!(draft(&[1, 2, 3, 4], 8).is_empty());
        assert!(draft(&[5, 1, 6, 1], 8).is_empty());
        assert!(draft(&[1, 2, 3, 1, 2], 0).is_empty());
    }
}
