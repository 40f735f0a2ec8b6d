//! Node features of a graph for the GFM: the region's connectivity row (region identity kept, as the atlas is
//! fixed), its z-scored strength, and a random-walk structural encoding (the return probabilities diag(Pᵏ),
//! k = 1..8, of the walk P = D⁻¹W).

pub const RW_STEPS: usize = 8;

/// Positive weights, zero diagonal, row-major n × n.
pub fn positive(w: &[f64], n: usize) -> Vec<f64> {
    (0..n * n).map(|k| if k / n == k % n { 0.0 } else { w[k].max(0.0) }).collect()
}

/// n × (n + 1 + RW_STEPS) features, row-major f32.
pub fn node_features(w: &[f64], n: usize) -> Vec<f32> {
    let strength: Vec<f64> = (0..n).map(|i| w[i * n..(i + 1) * n].iter().sum()).collect();
    let mean = strength.iter().sum::<f64>() / n as f64;
    let sd = (strength.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n as f64).sqrt().max(1e-12);
    let p: Vec<f64> = (0..n * n).map(|k| if strength[k / n] > 0.0 { w[k] / strength[k / n] } else { 0.0 }).collect();
    let mut power = p.clone();
    let mut rw = vec![vec![0.0; RW_STEPS]; n];
    for step in 0..RW_STEPS {
        for i in 0..n {
            rw[i][step] = power[i * n + i];
        }
        if step + 1 < RW_STEPS {
            let mut next = vec![0.0; n * n];
            for i in 0..n {
                for k in 0..n {
                    let a = power[i * n + k];
                    if a != 0.0 {
                        for j in 0..n {
                            next[i * n + j] += a * p[k * n + j];
                        }
                    }
                }
            }
            power = next;
        }
    }
    let dim = n + 1 + RW_STEPS;
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        out.extend(w[i * n..(i + 1) * n].iter().map(|&x| x as f32));
        out.push(((strength[i] - mean) / sd) as f32);
        // Scaled so a uniform walk on n nodes gives about 1.
        out.extend(rw[i].iter().map(|&r| (r * n as f64) as f32));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_probabilities_by_hand() {
        // A path a - b - c with unit weights: P(a→b) = 1, P(b→a) = P(b→c) = ½.
        let w = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let f = node_features(&w, 3);
        let dim = 3 + 1 + RW_STEPS;
        // diag(P) = 0; diag(P²): a → b → a = ½, b → (a|c) → b = 1.
        assert_eq!(f[4], 0.0);
        assert!((f[5] - 0.5 * 3.0).abs() < 1e-6 && (f[dim + 5] - 1.0 * 3.0).abs() < 1e-6, "{f:?}");
    }
}
