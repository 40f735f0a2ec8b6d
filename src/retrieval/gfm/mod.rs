//! GFM, the learned graph encoder of the seed method: a small graph transformer over region nodes (features:
//! connectivity row, strength, random-walk structural encoding; attention biased by the edge weights), trained
//! self-supervised with a masked-node autoencoder (reconstruct the connectivity rows of hidden nodes) plus
//! InfoNCE between two augmented views of each graph (edge dropout, feature noise). The graph embedding is the
//! unit-length mean of the final node states. `train.rs` runs the training with progress, checkpoints and
//! resume (weights and the loss log are restored; AdamW's moment estimates restart).

use crate::retrieval::error::{Result, RetrievalError};
pub mod features;
pub mod train;

use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder, VarMap, linear};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GfmConfig {
    /// Regions per graph (the atlas size; the model only embeds graphs of this size).
    pub n: usize,
    pub dim: usize,
    pub layers: usize,
    /// Attention heads (the width must divide by them).
    #[serde(default = "one")]
    pub heads: usize,
    /// Feed-forward width; 0 = 2 × `dim` (models trained before it was a setting).
    #[serde(default)]
    pub ffn: usize,
    /// Layers of the masked-node decoder (1: one linear map).
    #[serde(default = "one")]
    pub decoder_layers: usize,
    /// Masked nodes take a learned token instead of zeros.
    #[serde(default)]
    pub mask_token: bool,
}

fn one() -> usize {
    1
}

impl GfmConfig {
    /// A model of `n` regions, `dim` wide and `layers` deep, otherwise as the first GFMs: one head, a feed-forward
    /// of 2 × `dim`, a linear decoder, masked nodes zeroed.
    pub fn basic(n: usize, dim: usize, layers: usize) -> GfmConfig {
        GfmConfig { n, dim, layers, heads: 1, ffn: 0, decoder_layers: 1, mask_token: false }
    }

    pub fn input_dim(&self) -> usize {
        self.n + 1 + features::RW_STEPS
    }

    pub fn ffn_width(&self) -> usize {
        if self.ffn == 0 { 2 * self.dim } else { self.ffn }
    }
}

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    ff1: Linear,
    ff2: Linear,
    edge_bias: Tensor,
}

pub struct Gfm {
    pub config: GfmConfig,
    input: Linear,
    layers: Vec<Layer>,
    /// Projection for InfoNCE (not part of the embedding).
    head: Linear,
    /// Reconstructs a node's connectivity row (masked-node objective): linear maps with GELU between.
    decoder: Vec<Linear>,
    /// The learned features of a masked node (with `config.mask_token`).
    pub(crate) mask_token: Option<Tensor>,
}

/// Layer normalisation without learned scale, from differentiable primitives.
fn norm(x: &Tensor) -> candle_core::Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centred = x.broadcast_sub(&mean)?;
    let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
    centred.broadcast_div(&(var + 1e-5)?.sqrt()?)
}

impl Gfm {
    pub fn new(config: GfmConfig, vb: VarBuilder) -> candle_core::Result<Gfm> {
        let d = config.dim;
        if config.heads == 0 || d % config.heads != 0 {
            return Err(candle_core::Error::Msg(format!("width {d} does not divide into {} heads", config.heads)));
        }
        let f = config.ffn_width();
        let decoder = match config.decoder_layers.max(1) {
            1 => vec![linear(d, config.n, vb.pp("decoder"))?],
            k => (0..k)
                .map(|i| linear(d, if i + 1 == k { config.n } else { d }, vb.pp(format!("decoder.{i}"))))
                .collect::<candle_core::Result<Vec<_>>>()?,
        };
        let mask_token = if config.mask_token {
            Some(vb.get_with_hints(config.input_dim(), "mask_token", candle_nn::Init::Const(0.0))?)
        } else {
            None
        };
        let layers = (0..config.layers)
            .map(|l| {
                let vb = vb.pp(format!("layer{l}"));
                Ok(Layer {
                    q: linear(d, d, vb.pp("q"))?,
                    k: linear(d, d, vb.pp("k"))?,
                    v: linear(d, d, vb.pp("v"))?,
                    o: linear(d, d, vb.pp("o"))?,
                    ff1: linear(d, f, vb.pp("ff1"))?,
                    ff2: linear(f, d, vb.pp("ff2"))?,
                    edge_bias: vb.get_with_hints(1, "edge_bias", candle_nn::Init::Const(1.0))?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Gfm {
            config,
            input: linear(config.input_dim(), d, vb.pp("input"))?,
            layers,
            head: linear(d, d, vb.pp("head"))?,
            decoder,
            mask_token,
        })
    }

    /// Final node states (n × dim) from features (n × input_dim) and weights (n × n).
    pub fn nodes(&self, x: &Tensor, w: &Tensor) -> candle_core::Result<Tensor> {
        self.forward(x, w, &mut |_| Ok(None))
    }

    /// [`Gfm::nodes`], with `drop(shape)` giving a dropout mask (already scaled) for the attention and
    /// feed-forward outputs of each layer while training.
    pub(crate) fn forward(
        &self,
        x: &Tensor,
        w: &Tensor,
        drop: &mut dyn FnMut(&[usize]) -> candle_core::Result<Option<Tensor>>,
    ) -> candle_core::Result<Tensor> {
        let heads = self.config.heads.max(1);
        let mut h = self.input.forward(x)?;
        let dropped =
            |t: Tensor, drop: &mut dyn FnMut(&[usize]) -> candle_core::Result<Option<Tensor>>| match drop(t.dims())? {
                Some(mask) => t.mul(&mask),
                None => Ok(t),
            };
        for l in &self.layers {
            let bias = w.broadcast_mul(&l.edge_bias)?;
            let (q, k, v) = (l.q.forward(&h)?, l.k.forward(&h)?, l.v.forward(&h)?);
            let mixed = if heads == 1 {
                let scale = 1.0 / (self.config.dim as f64).sqrt();
                let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(&bias)?;
                candle_nn::ops::softmax(&scores, D::Minus1)?.matmul(&v)?
            } else {
                // (n, dim) → (heads, n, dim / heads); each head attends with the same edge bias.
                let (n, dh) = (h.dim(0)?, self.config.dim / heads);
                let split = |t: &Tensor| t.reshape((n, heads, dh))?.transpose(0, 1)?.contiguous();
                let (q, k, v) = (split(&q)?, split(&k)?, split(&v)?);
                let scores = (q.matmul(&k.transpose(1, 2)?)? * (1.0 / (dh as f64).sqrt()))?.broadcast_add(&bias)?;
                let out = candle_nn::ops::softmax(&scores, D::Minus1)?.matmul(&v)?;
                out.transpose(0, 1)?.contiguous()?.reshape((n, self.config.dim))?
            };
            let attn_out = dropped(l.o.forward(&mixed)?, drop)?;
            h = norm(&(&h + attn_out)?)?;
            let ff = dropped(l.ff2.forward(&l.ff1.forward(&h)?.gelu_erf()?)?, drop)?;
            h = norm(&(&h + ff)?)?;
        }
        Ok(h)
    }

    /// The masked-node decoder: node states → connectivity rows.
    pub(crate) fn decode(&self, h: &Tensor) -> candle_core::Result<Tensor> {
        let mut y = h.clone();
        for (i, l) in self.decoder.iter().enumerate() {
            y = l.forward(&y)?;
            if i + 1 < self.decoder.len() {
                y = y.gelu_erf()?;
            }
        }
        Ok(y)
    }

    /// Unit-length graph embedding (mean of node states).
    pub fn embed(&self, x: &Tensor, w: &Tensor) -> candle_core::Result<Tensor> {
        unit_mean(&self.nodes(x, w)?)
    }

    fn project(&self, g: &Tensor) -> candle_core::Result<Tensor> {
        let z = self.head.forward(&g.unsqueeze(0)?)?.squeeze(0)?;
        z.broadcast_div(&(z.sqr()?.sum_all()? + 1e-12)?.sqrt()?)
    }
}

/// The unit-length mean of node states: a graph's embedding.
pub(crate) fn unit_mean(h: &Tensor) -> candle_core::Result<Tensor> {
    let g = h.mean(0)?;
    g.broadcast_div(&g.sqr()?.sum_all()?.sqrt()?)
}

/// A trained model on disk: `PATH` (safetensors) + `PATH.json` (config and training log).
pub struct GfmModel {
    pub gfm: Gfm,
    _vars: VarMap,
}

pub fn log_path(model: &Path) -> std::path::PathBuf {
    model.with_extension("json")
}

impl GfmModel {
    pub fn load(path: &Path) -> Result<GfmModel> {
        let log: train::TrainLog = serde_json::from_str(
            &std::fs::read_to_string(log_path(path))
                .map_err(|e| RetrievalError::from(format!("{}: {e}", log_path(path).display())))?,
        )
        .map_err(|e| RetrievalError::from(format!("{}: {e}", log_path(path).display())))?;
        let mut vars = VarMap::new();
        let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
        let gfm = Gfm::new(log.config, vb)?;
        vars.load(path).map_err(|e| RetrievalError::from(format!("{}: {e}", path.display())))?;
        Ok(GfmModel { gfm, _vars: vars })
    }

    /// Embedding of a connectome (must have `config.n` regions).
    pub fn embed(&self, c: &crate::network::connectome::Connectome) -> Result<Vec<f32>> {
        let n = self.gfm.config.n;
        if c.n != n {
            return Err(RetrievalError::from(format!(
                "the GFM was trained on {n}-region graphs; this graph has {}",
                c.n
            )));
        }
        let w = features::positive(&c.w, n);
        let x = Tensor::from_vec(features::node_features(&w, n), (n, self.gfm.config.input_dim()), &Device::Cpu)?;
        let wt = Tensor::from_vec(w.iter().map(|&v| v as f32).collect::<Vec<_>>(), (n, n), &Device::Cpu)?;
        Ok(self.gfm.embed(&x, &wt)?.to_vec1()?)
    }
}

/// The graph files of a folder, or those a labels.csv lists (relative to its folder).
pub fn graph_files(spec: &Path) -> Result<Vec<std::path::PathBuf>> {
    if spec.is_file() {
        let dir = spec.parent().unwrap_or(Path::new("."));
        let rows = crate::network::cohort::labels::read_labels(spec)?;
        let graphs = dir.join("graphs");
        let base = if rows.iter().all(|r| graphs.join(&r.0).is_file()) { graphs } else { dir.to_path_buf() };
        return Ok(rows.into_iter().map(|r| base.join(r.0)).collect());
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(spec)
        .map_err(|e| RetrievalError::from(format!("{}: {e}", spec.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            matches!(
                p.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref(),
                Some("npy" | "npz" | "csv" | "tsv" | "txt" | "edge" | "mat")
            )
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(RetrievalError::from(format!(
            "{}: no graph files (.npy, .npz, .csv, .tsv, .txt, .edge, .mat)",
            spec.display()
        )));
    }
    Ok(files)
}

/// The graphs `graph_files` lists, loaded (asymmetric matrices symmetrised).
pub fn load_graphs(spec: &Path) -> Result<Vec<crate::network::connectome::Connectome>> {
    graph_files(spec)?
        .iter()
        .map(|f| crate::network::io::load(f, crate::network::connectome::Asymmetry::Symmetrize).map_err(Into::into))
        .collect()
}
