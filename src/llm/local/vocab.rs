//! The loaded model's own tokenizer, through llama.cpp: its per-model pre-tokenizer (`tokenizer.ggml.pre`),
//! special tokens and byte fallback, for byte-level BPE and SentencePiece vocabularies alike. Each token's
//! piece (its raw bytes, as llama.cpp detokenizes it) feeds constrained decoding.

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

pub struct Vocab {
    model: &'static LlamaModel,
    /// Raw bytes of every token (empty for control tokens such as `<|im_start|>`).
    pub bytes: Vec<Vec<u8>>,
    /// Tokens that end a reply: end-of-generation tokens and every other control token.
    pub ends: Vec<bool>,
    /// The token a constrained value may end with (end of turn where the model has one, else end of text).
    pub end: u32,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
}

/// A token id of llama.cpp's (-1 = none) as an index into the vocabulary.
fn known(t: LlamaToken, n: usize) -> Option<u32> {
    u32::try_from(t.0).ok().filter(|&i| (i as usize) < n)
}

/// The GGUF's chat template (`tokenizer.chat_template`), if it has one.
pub fn chat_template(model: &LlamaModel) -> Option<String> {
    model.chat_template(None).ok().and_then(|t| t.to_string().ok())
}

impl Vocab {
    pub fn chat_template(&self) -> Option<String> {
        chat_template(self.model)
    }

    pub fn new(model: &'static LlamaModel) -> Vocab {
        let v = model.vocab();
        let n = v.n_tokens().max(0) as usize;
        let mut bytes = Vec::with_capacity(n);
        let mut ends = Vec::with_capacity(n);
        for t in v.tokens() {
            let control = v.is_control(t);
            ends.push(control || v.is_eog(t));
            bytes.push(if control { Vec::new() } else { v.token_to_piece(t, false, None) });
        }
        let eos = known(v.eos(), n);
        let end = known(v.eot(), n).or(eos).unwrap_or(0);
        Vocab { model, bytes, ends, end, bos: known(v.bos(), n), eos }
    }

    /// Tokens of plain text (special-token names in it stay text).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.tokenize(text, false)
    }

    /// Tokens of a rendered chat prompt: the special tokens the template wrote (`<|im_start|>`, `<bos>`) are
    /// parsed as such. Nothing is added: the template writes the BOS where the model wants one, as
    /// Hugging Face's `apply_chat_template` leaves it.
    pub fn encode_prompt(&self, text: &str) -> Vec<u32> {
        self.tokenize(text, true)
    }

    /// llama.cpp's `llama_tokenize` with `add_special` as given and `parse_special`.
    pub fn tokenize_with(&self, text: &str, add_special: bool, parse_special: bool) -> Vec<u32> {
        self.model.vocab().tokenize(text.as_bytes(), add_special, parse_special).iter().map(|t| t.0 as u32).collect()
    }

    fn tokenize(&self, text: &str, parse_special: bool) -> Vec<u32> {
        self.tokenize_with(text, false, parse_special)
    }

    /// The text of a token as the chat template writes it (special tokens included): `bos_token`, `eos_token`.
    pub fn token_text(&self, id: Option<u32>) -> String {
        id.map(|i| {
            String::from_utf8_lossy(&self.model.vocab().token_to_piece(LlamaToken(i as i32), true, None)).into_owned()
        })
        .unwrap_or_default()
    }

    /// Tokens of `text` that spell it back byte for byte, if llama.cpp's tokenization of it alone does (a
    /// SentencePiece vocabulary that prefixes a space does not): for text continuing a reply.
    pub fn encode_exact(&self, text: &str) -> Option<Vec<u32>> {
        let ids = self.encode(text);
        let spelled = ids.iter().flat_map(|&t| self.bytes[t as usize].iter().copied()).eq(text.bytes());
        (spelled && !ids.is_empty()).then_some(ids)
    }
}
