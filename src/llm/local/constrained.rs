//! Schema-constrained decoding: a byte trie over the vocabulary walked with the grammar's recogniser gives,
//! for a state, every token that keeps the output a valid prefix. Masks are cached by state (inside a string
//! the state repeats, so most steps cost one hash lookup; a `maxLength` bound counts only within a token's
//! reach of its end).

use crate::llm::schema::grammar::{Grammar, State};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Default)]
struct TrieNode {
    children: Vec<(u8, u32)>,
    tokens: Vec<u32>,
}

/// Every non-empty token's bytes in a trie (built once per model: ~50 ms for 49k tokens).
pub struct TokenTrie {
    nodes: Vec<TrieNode>,
    n_vocab: usize,
    /// The longest token in bytes.
    max_len: usize,
}

impl TokenTrie {
    pub fn new(token_bytes: &[Vec<u8>]) -> TokenTrie {
        let mut nodes = vec![TrieNode::default()];
        for (id, bytes) in token_bytes.iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            let mut at = 0usize;
            for &b in bytes {
                at = match nodes[at].children.iter().find(|(c, _)| *c == b) {
                    Some(&(_, next)) => next as usize,
                    None => {
                        nodes.push(TrieNode::default());
                        let next = nodes.len() - 1;
                        nodes[at].children.push((b, next as u32));
                        next
                    }
                };
            }
            nodes[at].tokens.push(id as u32);
        }
        let max_len = token_bytes.iter().map(Vec::len).max().unwrap_or(0);
        TokenTrie { nodes, n_vocab: token_bytes.len(), max_len }
    }
}

/// A bit per vocabulary entry.
#[derive(Debug, Clone)]
pub struct Mask {
    words: Vec<u64>,
}

impl Mask {
    fn new(n: usize) -> Mask {
        Mask { words: vec![0; n.div_ceil(64)] }
    }
    fn set(&mut self, i: u32) {
        self.words[i as usize / 64] |= 1 << (i % 64);
    }
    pub fn allows(&self, i: u32) -> bool {
        self.words.get(i as usize / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// Token masks for one grammar over one vocabulary (kept across calls with the same schema, so masks
/// computed once are reused).
pub struct Constrainer {
    pub grammar: Grammar,
    trie: Arc<TokenTrie>,
    eos: u32,
    cache: HashMap<State, Arc<Mask>>,
}

const CACHE_LIMIT: usize = 4096;

impl Constrainer {
    pub fn new(grammar: Grammar, trie: Arc<TokenTrie>, eos: u32) -> Self {
        Constrainer { grammar, trie, eos, cache: HashMap::new() }
    }

    /// Tokens allowed after state `s` (EOS when the value may end here).
    pub fn allowed(&mut self, s: &State) -> Arc<Mask> {
        let key = self.grammar.mask_key(s, self.trie.max_len);
        if let Some(mask) = self.cache.get(&key) {
            return mask.clone();
        }
        let mut mask = Mask::new(self.trie.n_vocab);
        self.walk(0, s, &mut mask);
        if self.grammar.accepts_end(s) {
            mask.set(self.eos);
        }
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        let mask = Arc::new(mask);
        self.cache.insert(key, mask.clone());
        mask
    }

    fn walk(&self, node: usize, s: &State, mask: &mut Mask) {
        for &(b, child) in &self.trie.nodes[node].children {
            let mut next = *s;
            if self.grammar.feed(&mut next, b) {
                for &t in &self.trie.nodes[child as usize].tokens {
                    mask.set(t);
                }
                self.walk(child as usize, &next, mask);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::schema::Schema;
    use serde_json::json;

    #[test]
    fn masks_allow_exactly_the_tokens_that_keep_a_valid_prefix() {
        let vocab: Vec<Vec<u8>> = ["{", "\"", "{\"", "label", "\":", "\":\"", "AS", "D", "H", "C", "\"}", "}", "x", ""]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        let trie = Arc::new(TokenTrie::new(&vocab));
        let schema = Schema::compile(
            &json!({"type": "object", "properties": {"label": {"enum": ["ASD", "HC"]}}, "required": ["label"]}),
        )
        .unwrap();
        let mut c = Constrainer::new(crate::llm::schema::grammar::Grammar::new(schema), trie, 13);
        let g = c.grammar.clone();
        let mut s = g.start();
        let allowed = |c: &mut Constrainer, s: &State| -> Vec<usize> {
            (0..vocab.len()).filter(|&i| c.allowed(s).allows(i as u32)).collect()
        };
        assert_eq!(allowed(&mut c, &s), vec![0, 2]);
        assert!(g.feed_all(&mut s, b"{\"label\":\""));
        assert_eq!(allowed(&mut c, &s), vec![6, 8]);
        assert!(g.feed_all(&mut s, b"HC\"}"));
        assert_eq!(allowed(&mut c, &s), vec![13], "only end of text once the object is closed");
    }
}
