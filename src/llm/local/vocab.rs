//! The GGUF's own vocabulary as a tokenizer (the `tokenizers` crate has no GGUF loader, and candle's
//! `TokenizerFromGguf` adds a leading-space marker after special tokens for this model), plus each token's
//! raw bytes for constrained decoding.

use crate::llm::local::error::LocalError;
use candle_core::quantized::gguf_file::Content;
use std::collections::HashMap;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer};

/// GGUF `token_type` of control tokens (<|im_start|>, <|im_end|>, …).
const CONTROL: i32 = 3;

pub struct Vocab {
    pub tokenizer: Tokenizer,
    /// Raw bytes of every token (empty for control tokens).
    pub bytes: Vec<Vec<u8>>,
    pub control: Vec<bool>,
    pub eos: u32,
    pub bos: Option<u32>,
    pub tokens: Vec<String>,
}

/// GPT-2's byte ↔ printable-character table, inverted: the byte each vocabulary character stands for.
fn unicode_to_byte() -> HashMap<char, u8> {
    let mut printable: Vec<u32> = (b'!' as u32..=b'~' as u32).chain(0xA1..=0xAC).chain(0xAE..=0xFF).collect();
    let mut map: HashMap<char, u8> = printable.iter().map(|&b| (char::from_u32(b).unwrap(), b as u8)).collect();
    let mut extra = 0;
    for b in 0u32..256 {
        if !printable.contains(&b) {
            map.insert(char::from_u32(256 + extra).unwrap(), b as u8);
            extra += 1;
            printable.push(b);
        }
    }
    map
}

fn meta<'a>(content: &'a Content, key: &str) -> Result<&'a candle_core::quantized::gguf_file::Value, LocalError> {
    content.metadata.get(key).ok_or_else(|| format!("the GGUF has no {key}").into())
}

impl Vocab {
    pub fn from_gguf(content: &Content) -> Result<Vocab, LocalError> {
        let err = |e: candle_core::Error| e.to_string();
        let model = meta(content, "tokenizer.ggml.model")?.to_string().map_err(err)?;
        if model != "gpt2" {
            return Err(format!("tokenizer model \"{model}\" is not supported (byte-level BPE \"gpt2\" only)").into());
        }
        let tokens: Vec<String> = meta(content, "tokenizer.ggml.tokens")?
            .to_vec()
            .map_err(err)?
            .iter()
            .map(|v| v.to_string().cloned().map_err(err))
            .collect::<Result<_, _>>()?;
        let merges: Vec<(String, String)> = meta(content, "tokenizer.ggml.merges")?
            .to_vec()
            .map_err(err)?
            .iter()
            .map(|v| {
                let m = v.to_string().map_err(err)?;
                let (a, b) = m.split_once(' ').ok_or_else(|| format!("merge \"{m}\" has no space"))?;
                Ok((a.to_string(), b.to_string()))
            })
            .collect::<Result<_, LocalError>>()?;
        let types: Vec<i32> = match content.metadata.get("tokenizer.ggml.token_type") {
            Some(v) => v.to_vec().map_err(err)?.iter().map(|t| t.to_i32().unwrap_or(1)).collect(),
            None => vec![1; tokens.len()],
        };
        let control: Vec<bool> = (0..tokens.len()).map(|i| types.get(i) == Some(&CONTROL)).collect();
        let eos = meta(content, "tokenizer.ggml.eos_token_id")?.to_u32().map_err(err)?;
        let bos = content.metadata.get("tokenizer.ggml.bos_token_id").and_then(|v| v.to_u32().ok());

        let vocab: tokenizers::models::bpe::Vocab =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let bpe =
            BPE::builder().vocab_and_merges(vocab, merges).build().map_err(|e| LocalError::from(e.to_string()))?;
        let mut tokenizer = Tokenizer::new(bpe);
        tokenizer.with_pre_tokenizer(Some(Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ])));
        tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
        let specials: Vec<AddedToken> =
            tokens.iter().zip(&control).filter(|(_, c)| **c).map(|(t, _)| AddedToken::from(t.clone(), true)).collect();
        tokenizer.add_special_tokens(specials).map_err(|e| LocalError::from(e.to_string()))?;

        let table = unicode_to_byte();
        let bytes = tokens
            .iter()
            .zip(&control)
            .map(|(t, &c)| if c { Vec::new() } else { t.chars().filter_map(|ch| table.get(&ch).copied()).collect() })
            .collect();
        Ok(Vocab { tokenizer, bytes, control, eos, bos, tokens })
    }

    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalError> {
        Ok(self.tokenizer.encode(text, false).map_err(|e| LocalError::from(e.to_string()))?.get_ids().to_vec())
    }
}
