//! Self-supervised GFM training: masked-node reconstruction + InfoNCE between augmented views, AdamW,
//! checkpoints every 10 epochs and at the end (`PATH` safetensors + `PATH.json` log), resume from them.

use super::features::{node_features, positive};
use super::{Gfm, GfmConfig, log_path, unit_mean};
use crate::network::connectome::Connectome;
use crate::retrieval::error::{Result, RetrievalError};
use crate::util::cancel::Cancel;
use crate::util::rng::splitmix64;
use candle_core::{DType, Device, Tensor};
use candle_nn::{Optimizer, ParamsAdamW, VarBuilder, VarMap};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochLoss {
    pub epoch: usize,
    pub total: f32,
    pub masked: f32,
    pub contrastive: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainLog {
    pub config: GfmConfig,
    /// The training settings besides the model's (learning rate, dropout, mask ratio, τ, batch, augmentation).
    #[serde(default)]
    pub training: Option<TrainingSettings>,
    pub seed: u64,
    pub graphs: usize,
    pub epochs_done: usize,
    pub losses: Vec<EpochLoss>,
}

/// What a log records of the options beyond the model's shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainingSettings {
    pub lr: f64,
    pub dropout: f64,
    pub mask_ratio: f64,
    pub tau: f64,
    /// 0: all graphs in one step.
    pub batch: usize,
    pub edge_drop: f64,
    pub noise: f64,
}

#[derive(Debug, Clone, Copy)]
pub struct TrainOptions {
    pub epochs: usize,
    pub lr: f64,
    pub seed: u64,
    /// Width of the node states.
    pub dim: usize,
    pub layers: usize,
    pub heads: usize,
    /// Feed-forward width (0: 2 × `dim`).
    pub ffn: usize,
    /// Dropout on each layer's attention and feed-forward outputs while training (seeded masks).
    pub dropout: f64,
    /// Share of nodes masked for reconstruction.
    pub mask_fraction: f64,
    /// Masked nodes take a learned token (else zeros).
    pub mask_token: bool,
    pub decoder_layers: usize,
    /// InfoNCE temperature τ.
    pub temperature: f64,
    /// Graphs per optimiser step, shuffled each epoch (0: all graphs in one step, in file order).
    pub batch: usize,
    pub edge_drop: f64,
    pub noise: f64,
    pub resume: bool,
}

impl TrainOptions {
    /// The BrainAgent paper's GFM settings (its Table 5): 6 layers, width 128, feed-forward 256, 8 heads,
    /// dropout 0.3, 70 % of nodes replaced by a learned token, a 2-layer decoder, τ = 1, batch 128, 500 epochs.
    pub fn paper() -> TrainOptions {
        TrainOptions {
            epochs: 500,
            dim: 128,
            layers: 6,
            heads: 8,
            ffn: 256,
            dropout: 0.3,
            mask_fraction: 0.7,
            mask_token: true,
            decoder_layers: 2,
            temperature: 1.0,
            batch: 128,
            ..TrainOptions::default()
        }
    }

    /// The model these options train on `n`-region graphs.
    pub fn config(&self, n: usize) -> GfmConfig {
        GfmConfig {
            n,
            dim: self.dim,
            layers: self.layers,
            heads: self.heads,
            ffn: self.ffn,
            decoder_layers: self.decoder_layers,
            mask_token: self.mask_token,
        }
    }
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 150,
            lr: 1e-3,
            seed: 0,
            dim: 64,
            layers: 2,
            heads: 1,
            ffn: 0,
            dropout: 0.0,
            mask_fraction: 0.15,
            mask_token: false,
            decoder_layers: 1,
            temperature: 0.2,
            batch: 0,
            edge_drop: 0.1,
            noise: 0.05,
            resume: false,
        }
    }
}

fn uniform(state: &mut u64) -> f64 {
    (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64
}

fn normal(state: &mut u64) -> f64 {
    let (u, v) = (uniform(state).max(1e-12), uniform(state));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// candle's CPU generator cannot be seeded: every weight matrix and bias is re-drawn here from SplitMix64
/// (uniform in ±1/√fan_in, as PyTorch's default linear initialisation), in name order, so the same seed gives
/// the same model. Scalars (the attention edge bias) keep their constant start.
fn seed_weights(vars: &VarMap, seed: u64) -> candle_core::Result<()> {
    let data = vars.data().lock().map_err(|_| candle_core::Error::Msg("weights lock poisoned".into()))?;
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    let mut state = seed ^ 0x6A09_E667_F3BC_C909;
    for name in names {
        let var = &data[name];
        let dims = var.dims().to_vec();
        let count: usize = dims.iter().product();
        if count <= 1 {
            continue;
        }
        let fan_in = *dims.last().unwrap_or(&1) as f64;
        let fan_in = if name.ends_with("bias") { fan_in.max(1.0) } else { fan_in };
        let bound = 1.0 / fan_in.sqrt();
        let values: Vec<f32> = (0..count).map(|_| ((uniform(&mut state) * 2.0 - 1.0) * bound) as f32).collect();
        var.set(&Tensor::from_vec(values, dims, &Device::Cpu)?)?;
    }
    Ok(())
}

fn tensor(v: Vec<f32>, rows: usize, cols: usize) -> candle_core::Result<Tensor> {
    Tensor::from_vec(v, (rows, cols), &Device::Cpu)
}

/// One augmented view: symmetric edge dropout, then features with Gaussian noise.
fn view(w: &[f64], n: usize, o: &TrainOptions, state: &mut u64) -> candle_core::Result<(Tensor, Tensor)> {
    let mut d = w.to_vec();
    for i in 0..n {
        for j in i + 1..n {
            if uniform(state) < o.edge_drop {
                d[i * n + j] = 0.0;
                d[j * n + i] = 0.0;
            }
        }
    }
    let mut x = node_features(&d, n);
    for v in x.iter_mut() {
        *v += (o.noise * normal(state)) as f32;
    }
    let dim = x.len() / n;
    Ok((tensor(x, n, dim)?, tensor(d.iter().map(|&v| v as f32).collect(), n, n)?))
}

/// The region count the graphs share, once the graphs and the options are checked.
fn check(graphs: &[Connectome], o: &TrainOptions) -> Result<usize> {
    let Some(first) = graphs.first() else { return Err(RetrievalError::from(format!("no graphs to train on"))) };
    let n = first.n;
    if let Some(bad) = graphs.iter().find(|g| g.n != n) {
        return Err(RetrievalError::from(format!("graphs must share one atlas: {} regions and {} regions", n, bad.n)));
    }
    if graphs.len() < 2 {
        return Err(RetrievalError::from(format!("InfoNCE needs at least 2 graphs")));
    }
    if !(0.0..1.0).contains(&o.dropout) || !(0.0..=1.0).contains(&o.mask_fraction) || o.temperature <= 0.0 {
        return Err(RetrievalError::from(format!(
            "dropout {} must be in [0, 1), mask ratio {} in [0, 1] and τ {} above 0",
            o.dropout, o.mask_fraction, o.temperature
        )));
    }
    if o.batch == 1 {
        return Err(RetrievalError::from(format!(
            "batch 1: InfoNCE contrasts graphs within a batch; use 2 or more (0: all)"
        )));
    }
    Ok(n)
}

/// The batches of epoch `epoch` over `count` graphs: all in one (batch 0 or ≥ count), else a seeded shuffle
/// per epoch cut into batches, a last batch of one graph joined to the one before (InfoNCE needs two).
fn batches_of(count: usize, o: &TrainOptions, epoch: usize) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..count).collect();
    if o.batch == 0 || o.batch >= count {
        return vec![all];
    }
    // A seeded shuffle per epoch; a last batch of one graph joins the one before (InfoNCE needs two).
    let mut order = all;
    let mut state = o.seed ^ 0xB5AD_4ECE_DA1C_E2A9 ^ (epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for k in (1..order.len()).rev() {
        order.swap(k, (splitmix64(&mut state) % (k as u64 + 1)) as usize);
    }
    let mut out: Vec<Vec<usize>> = order.chunks(o.batch).map(<[usize]>::to_vec).collect();
    if out.len() > 1 && out.last().is_some_and(|b| b.len() < 2) {
        let last = out.pop().unwrap_or_default();
        if let Some(prev) = out.last_mut() {
            prev.extend(last);
        }
    }
    out
}

/// Trains on `graphs` (all with the same region count), writing `out` and `out.json`. Returns the log.
pub fn train(
    graphs: &[Connectome],
    out: &Path,
    o: &TrainOptions,
    progress: &mut dyn FnMut(&EpochLoss),
    cancel: &Cancel,
) -> Result<TrainLog> {
    let n = check(graphs, o)?;
    let mut vars = VarMap::new();
    let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
    let config = o.config(n);
    let model = Gfm::new(config, vb)?;
    let training = TrainingSettings {
        lr: o.lr,
        dropout: o.dropout,
        mask_ratio: o.mask_fraction,
        tau: o.temperature,
        batch: o.batch,
        edge_drop: o.edge_drop,
        noise: o.noise,
    };
    let mut log = TrainLog {
        config,
        training: Some(training),
        seed: o.seed,
        graphs: graphs.len(),
        epochs_done: 0,
        losses: Vec::new(),
    };
    if o.resume && out.is_file() && log_path(out).is_file() {
        let old: TrainLog = serde_json::from_str(&std::fs::read_to_string(log_path(out))?)?;
        if old.config != config {
            return Err(RetrievalError::from(format!(
                "{}: trained with {:?}, asked for {:?}",
                log_path(out).display(),
                old.config,
                config
            )));
        }
        vars.load(out)?;
        log = old;
    }
    if log.epochs_done == 0 {
        seed_weights(&vars, o.seed)?;
    }
    let mut opt =
        candle_nn::AdamW::new(vars.all_vars(), ParamsAdamW { lr: o.lr, weight_decay: 1e-4, ..Default::default() })?;
    let prepared: Vec<Vec<f64>> = graphs.iter().map(|g| positive(&g.w, n)).collect();
    let save = |vars: &VarMap, log: &TrainLog| -> Result<()> {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        vars.save(out)?;
        std::fs::write(log_path(out), serde_json::to_string_pretty(log)?)?;
        Ok(())
    };
    for epoch in log.epochs_done..o.epochs {
        if cancel.is_cancelled() {
            break;
        }
        let mut state = o.seed ^ (epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Seeded dropout masks, scaled by 1 / (1 − p).
        let mut drop_state = state ^ 0x3C6E_F372_FE94_F82B;
        let mut drop = |dims: &[usize]| -> candle_core::Result<Option<Tensor>> {
            if o.dropout <= 0.0 {
                return Ok(None);
            }
            let keep = (1.0 / (1.0 - o.dropout)) as f32;
            let count: usize = dims.iter().product();
            let m: Vec<f32> =
                (0..count).map(|_| if uniform(&mut drop_state) < o.dropout { 0.0 } else { keep }).collect();
            Ok(Some(Tensor::from_vec(m, dims, &Device::Cpu)?))
        };
        let (mut sum_total, mut sum_masked, mut sum_nce, mut steps) = (0f32, 0f32, 0f32, 0usize);
        for batch in batches_of(graphs.len(), o, epoch) {
            let b = batch.len();
            let targets = Tensor::arange(0u32, b as u32, &Device::Cpu)?;
            let mut masked_losses = Vec::with_capacity(b);
            let (mut z1, mut z2) = (Vec::with_capacity(b), Vec::with_capacity(b));
            for &g in &batch {
                let w = &prepared[g];
                // Masked-node reconstruction on the clean graph.
                let mut x = node_features(w, n);
                let dim = x.len() / n;
                let hidden: Vec<u32> = (0..n as u32).filter(|_| uniform(&mut state) < o.mask_fraction).collect();
                let hidden = if hidden.is_empty() { vec![(splitmix64(&mut state) % n as u64) as u32] } else { hidden };
                for &i in &hidden {
                    x[i as usize * dim..(i as usize + 1) * dim].iter_mut().for_each(|v| *v = 0.0);
                }
                let mut xt = tensor(x, n, dim)?;
                if let Some(token) = &model.mask_token {
                    // Masked rows (zeroed above) take the learned token.
                    let mut rows = vec![0f32; n];
                    hidden.iter().for_each(|&i| rows[i as usize] = 1.0);
                    let rows = Tensor::from_vec(rows, (n, 1), &Device::Cpu)?;
                    xt = (xt + rows.broadcast_mul(&token.unsqueeze(0)?)?)?;
                }
                let wt = tensor(w.iter().map(|&v| v as f32).collect(), n, n)?;
                let h = model.forward(&xt, &wt, &mut drop)?;
                let idx = Tensor::from_vec(hidden.clone(), hidden.len(), &Device::Cpu)?;
                let recon = model.decode(&h.index_select(&idx, 0)?)?;
                let target = wt.index_select(&idx, 0)?;
                masked_losses.push(candle_nn::loss::mse(&recon, &target)?);
                // Two augmented views for InfoNCE.
                let (x1, w1) = view(w, n, o, &mut state)?;
                let (x2, w2) = view(w, n, o, &mut state)?;
                z1.push(model.project(&unit_mean(&model.forward(&x1, &w1, &mut drop)?)?)?);
                z2.push(model.project(&unit_mean(&model.forward(&x2, &w2, &mut drop)?)?)?);
            }
            let masked = (Tensor::stack(&masked_losses, 0)?.mean_all()? * 10.0)?;
            let logits = (Tensor::stack(&z1, 0)?.matmul(&Tensor::stack(&z2, 0)?.t()?)? / o.temperature)?;
            let nce = ((candle_nn::loss::cross_entropy(&logits, &targets)?
                + candle_nn::loss::cross_entropy(&logits.t()?, &targets)?)?
                * 0.5)?;
            let total = (&masked + &nce)?;
            opt.backward_step(&total)?;
            sum_total += total.to_scalar::<f32>()?;
            sum_masked += masked.to_scalar::<f32>()?;
            sum_nce += nce.to_scalar::<f32>()?;
            steps += 1;
        }
        let k = steps.max(1) as f32;
        let e = EpochLoss { epoch: epoch + 1, total: sum_total / k, masked: sum_masked / k, contrastive: sum_nce / k };
        log.losses.push(e);
        log.epochs_done = epoch + 1;
        progress(&e);
        if log.epochs_done % 10 == 0 {
            save(&vars, &log)?;
        }
    }
    save(&vars, &log)?;
    Ok(log)
}
