//! The deterministic baseline graph encoder ("spectral-strength-v2"): four blocks, each z-scored and scaled to
//! unit length, then concatenated with equal weight into one unit vector (cosine = dot product):
//! the edge profile (upper triangle, negatives zeroed; randomly projected to 512 values), the node-strength profile, the sorted spectrum of the
//! normalised Laplacian I − D^-½ W D^-½, and the mean weight within and between networks (Yeo-7 or lobes)
//! when the atlas gives them. Region identity is kept (same atlas, same order), as in connectome
//! fingerprinting (Finn et al. 2015, Nat Neurosci 18:1664).

use crate::network::connectome::Connectome;

pub const ENCODER: &str = "spectral-strength-v2";

fn unit_z(v: &[f64]) -> Vec<f64> {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let centred: Vec<f64> = v.iter().map(|x| x - mean).collect();
    let norm = centred.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 { centred.iter().map(|x| x / norm).collect() } else { centred }
}

/// Eigenvalues of a symmetric matrix (cyclic Jacobi), ascending.
pub fn symmetric_eigenvalues(a: &[f64], n: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    for _sweep in 0..50 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i * n + j].powi(2))
            .sum();
        if off < 1e-22 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = m[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (m[k * n + p], m[k * n + q]);
                    m[k * n + p] = c * akp - s * akq;
                    m[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (m[p * n + k], m[q * n + k]);
                    m[p * n + k] = c * apk - s * aqk;
                    m[q * n + k] = s * apk + c * aqk;
                }
            }
        }
    }
    let mut ev: Vec<f64> = (0..n).map(|i| m[i * n + i]).collect();
    ev.sort_by(f64::total_cmp);
    ev
}

/// Dimensions the edge profile is projected to.
pub const EDGE_DIMS: usize = 512;

/// A fixed random ±1 projection (Rademacher, seeded: the same for every graph and every run) of a long vector
/// to `EDGE_DIMS` values: cosine similarities are kept approximately (Johnson–Lindenstrauss) while a memory of
/// thousands of 100-region graphs stays small enough to scan in a few milliseconds.
fn project(v: &[f64]) -> Vec<f64> {
    if v.len() <= EDGE_DIMS {
        return v.to_vec();
    }
    let mut out = vec![0.0; EDGE_DIMS];
    let mut state: u64 = 0x5EED_0F_B4A1_1E45;
    for &x in v {
        // 64 signs per draw of SplitMix64.
        let mut bits = 0u64;
        for (d, o) in out.iter_mut().enumerate() {
            if d % 64 == 0 {
                bits = crate::util::rng::splitmix64(&mut state);
            }
            *o += if bits >> (d % 64) & 1 == 1 { x } else { -x };
        }
    }
    out
}

/// The embedding of `c`; `networks[i]` names region i's network when the atlas has one.
pub fn embed_graph(c: &Connectome, networks: Option<&[String]>) -> Vec<f32> {
    let n = c.n;
    let w: Vec<f64> = c.w.iter().map(|&x| if x > 0.0 { x } else { 0.0 }).collect();
    let edges: Vec<f64> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).map(|(i, j)| w[i * n + j]).collect();
    let strength: Vec<f64> = (0..n).map(|i| (0..n).map(|j| w[i * n + j]).sum()).collect();
    let inv_sqrt: Vec<f64> = strength.iter().map(|&s| if s > 0.0 { 1.0 / s.sqrt() } else { 0.0 }).collect();
    let lap: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let a = w[k] * inv_sqrt[i] * inv_sqrt[j];
            if i == j { (if strength[i] > 0.0 { 1.0 } else { 0.0 }) - a } else { -a }
        })
        .collect();
    let mut blocks =
        vec![unit_z(&project(&unit_z(&edges))), unit_z(&strength), unit_z(&symmetric_eigenvalues(&lap, n))];
    if let Some(nets) = networks.filter(|v| v.len() == n) {
        let mut names: Vec<&String> = nets.iter().collect();
        names.sort();
        names.dedup();
        let k = names.len();
        let idx: Vec<usize> = nets.iter().map(|x| names.iter().position(|y| *y == x).unwrap_or(0)).collect();
        let mut sum = vec![0.0; k * k];
        let mut cnt = vec![0.0; k * k];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    sum[idx[i] * k + idx[j]] += w[i * n + j];
                    cnt[idx[i] * k + idx[j]] += 1.0;
                }
            }
        }
        let between: Vec<f64> = (0..k)
            .flat_map(|a| (a..k).map(move |b| (a, b)))
            .map(|(a, b)| if cnt[a * k + b] > 0.0 { sum[a * k + b] / cnt[a * k + b] } else { 0.0 })
            .collect();
        blocks.push(unit_z(&between));
    }
    let scale = 1.0 / (blocks.len() as f64).sqrt();
    blocks.into_iter().flatten().map(|x| (x * scale) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_eigenvalues_by_hand() {
        // [[2,1],[1,2]] → 1, 3; a path graph's normalised Laplacian on 3 nodes → 0, 1, 2.
        let ev = symmetric_eigenvalues(&[2.0, 1.0, 1.0, 2.0], 2);
        assert!((ev[0] - 1.0).abs() < 1e-12 && (ev[1] - 3.0).abs() < 1e-12, "{ev:?}");
        let s = 0.5f64.sqrt();
        let lap = [1.0, -s, 0.0, -s, 1.0, -s, 0.0, -s, 1.0];
        let ev = symmetric_eigenvalues(&lap, 3);
        for (a, b) in ev.iter().zip([0.0, 1.0, 2.0]) {
            assert!((a - b).abs() < 1e-12, "{ev:?}");
        }
    }

    #[test]
    fn embedding_is_unit_length_and_identical_graphs_score_one() {
        let w = vec![0.0, 0.5, 0.2, 0.0, 0.5, 0.0, 0.7, 0.1, 0.2, 0.7, 0.0, 0.9, 0.0, 0.1, 0.9, 0.0];
        let c = Connectome::from_matrix("t", 4, 4, w, None, Default::default()).unwrap();
        let e = embed_graph(&c, None);
        let norm: f32 = e.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        let nets: Vec<String> = ["A", "A", "B", "B"].iter().map(|s| s.to_string()).collect();
        let e2 = embed_graph(&c, Some(&nets));
        assert!((e2.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
