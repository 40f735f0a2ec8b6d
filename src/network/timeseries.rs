//! Connectomes from ROI time series (regions × time): Pearson correlation (`numpy.corrcoef`) and partial
//! correlation (−Pᵢⱼ/√(PᵢᵢPⱼⱼ) from the precision matrix P, the inverse covariance, as
//! nilearn's `ConnectivityMeasure(kind='partial correlation')` without shrinkage).

use super::error::{Result, invalid};

/// Pearson correlation between the rows of a `regions × samples` row-major matrix; the diagonal is 1.
pub fn pearson(x: &[f64], regions: usize, samples: usize) -> Result<Vec<f64>> {
    let z = standardize(x, regions, samples)?;
    let mut c = vec![0.0; regions * regions];
    for i in 0..regions {
        for j in i..regions {
            let r: f64 = (0..samples).map(|t| z[i * samples + t] * z[j * samples + t]).sum::<f64>() / samples as f64;
            c[i * regions + j] = r;
            c[j * regions + i] = r;
        }
    }
    for i in 0..regions {
        c[i * regions + i] = 1.0;
    }
    Ok(c)
}

/// Rows centred and scaled to unit (population) variance; constant rows are an error.
fn standardize(x: &[f64], regions: usize, samples: usize) -> Result<Vec<f64>> {
    if samples < 3 {
        invalid!("{samples} time points: need at least 3");
    }
    let mut z = x.to_vec();
    for i in 0..regions {
        let row = &mut z[i * samples..(i + 1) * samples];
        let mean = row.iter().sum::<f64>() / samples as f64;
        let sd = (row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / samples as f64).sqrt();
        if sd == 0.0 || !sd.is_finite() {
            invalid!("region {} (row {}) is constant or not finite: its correlation is undefined", i + 1, i + 1);
        }
        row.iter_mut().for_each(|v| *v = (*v - mean) / sd);
    }
    Ok(z)
}

/// Partial correlation between rows: the correlation of two regions with all others regressed out.
/// Needs more time points than regions (the covariance must be invertible).
pub fn partial(x: &[f64], regions: usize, samples: usize) -> Result<Vec<f64>> {
    if samples <= regions {
        invalid!(
            "{samples} time points for {regions} regions: partial correlation needs more time points than regions"
        );
    }
    let corr = pearson(x, regions, samples)?;
    let p = invert_spd(&corr, regions)?;
    let mut out = vec![0.0; regions * regions];
    for i in 0..regions {
        for j in 0..regions {
            out[i * regions + j] =
                if i == j { 1.0 } else { -p[i * regions + j] / (p[i * regions + i] * p[j * regions + j]).sqrt() };
        }
    }
    Ok(out)
}

/// Inverse of a symmetric positive-definite matrix by Cholesky factorisation.
fn invert_spd(a: &[f64], n: usize) -> Result<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = a[i * n + j] - (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>();
            if i == j {
                if s <= 1e-12 {
                    invalid!(
                        "the correlation matrix is singular (regions are linearly dependent): no partial correlation"
                    );
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    // Solve L Lᵀ X = I column by column.
    let mut inv = vec![0.0; n * n];
    let mut y = vec![0.0; n];
    for c in 0..n {
        for i in 0..n {
            let b = if i == c { 1.0 } else { 0.0 };
            y[i] = (b - (0..i).map(|k| l[i * n + k] * y[k]).sum::<f64>()) / l[i * n + i];
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|k| l[k * n + i] * inv[k * n + c]).sum();
            inv[i * n + c] = (y[i] - s) / l[i * n + i];
        }
    }
    Ok(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pearson_and_partial_of_a_chain() {
        // x2 = x1 + noise, x3 = x2 + noise: x1 and x3 correlate, but not once x2 is accounted for.
        let t = 2000;
        let mut s: u64 = 12345;
        let mut noise = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let x1: Vec<f64> = (0..t).map(|_| noise()).collect();
        let x2: Vec<f64> = x1.iter().map(|v| v + noise()).collect();
        let x3: Vec<f64> = x2.iter().map(|v| v + noise()).collect();
        let x: Vec<f64> = [x1, x2, x3].concat();
        let r = pearson(&x, 3, t).unwrap();
        assert!(r[2] > 0.4, "x1–x3 correlate: {}", r[2]);
        let p = partial(&x, 3, t).unwrap();
        assert!(p[2].abs() < 0.08, "x1–x3 partial correlation near 0: {}", p[2]);
        assert!(p[1] > 0.5);
    }
}
