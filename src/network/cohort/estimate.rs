//! Connectivity from ROI time series as nilearn 0.14's `ConnectivityMeasure` computes it, with its default
//! covariance estimator, scikit-learn's Ledoit–Wolf shrinkage:
//! - `correlation`: columns z-scored (`zscore_sample`: centred, divided by the ddof = 1 standard deviation, a
//!   standard deviation below machine epsilon left at 1), Ledoit–Wolf covariance, then `cov_to_corr` with an
//!   exact 1 on the diagonal;
//! - `partial`: Ledoit–Wolf covariance of the raw series, inverted, then `prec_to_partial`;
//! - `tangent`: every subject's Ledoit–Wolf covariance whitened by the group's geometric mean (nilearn's
//!   `_geometric_mean`, 30 iterations, tolerance 1e-7) and mapped to its matrix logarithm;
//! - `pearson`: the plain sample correlation (`numpy.corrcoef`), not nilearn's: no shrinkage.
//!
//! A series is `time × regions`, row-major, as a `.1D` file and nilearn hold it.

use crate::network::error::{Result, invalid};
use crate::util::linalg;

/// The connectivity measure of a cohort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Correlation,
    Pearson,
    Partial,
    Tangent,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind> {
        Ok(match s {
            "correlation" => Kind::Correlation,
            "pearson" => Kind::Pearson,
            "partial" | "partial correlation" => Kind::Partial,
            "tangent" => Kind::Tangent,
            other => invalid!("unknown connectivity kind '{other}': use correlation, pearson, partial or tangent"),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Correlation => "correlation",
            Kind::Pearson => "pearson",
            Kind::Partial => "partial",
            Kind::Tangent => "tangent",
        }
    }

    /// How the matrices are made, in words a nilearn user recognises.
    pub fn method(self) -> &'static str {
        match self {
            Kind::Correlation => {
                "nilearn 0.14 ConnectivityMeasure(kind='correlation', standardize=True): z-scored series, Ledoit-Wolf covariance, cov_to_corr"
            }
            Kind::Pearson => "Pearson correlation (numpy.corrcoef), no shrinkage",
            Kind::Partial => {
                "nilearn 0.14 ConnectivityMeasure(kind='partial correlation'): Ledoit-Wolf covariance, inverted, prec_to_partial"
            }
            Kind::Tangent => {
                "nilearn 0.14 ConnectivityMeasure(kind='tangent'): Ledoit-Wolf covariances whitened by their geometric mean over the cohort, matrix logarithm"
            }
        }
    }
}

/// Columns centred (and, with `scale`, divided by their ddof = 1 standard deviation, left as they are when
/// that is below machine epsilon, as nilearn's `standardize_signal` does). Row by row: every column's sums
/// still add its values in time order, so the result is the column-by-column one to the bit.
fn centred(x: &[f64], t: usize, r: usize, scale: bool) -> Vec<f64> {
    if r == 0 {
        return Vec::new();
    }
    let rows = || x.chunks_exact(r).take(t);
    let mut mean = vec![0.0; r];
    rows().for_each(|row| mean.iter_mut().zip(row).for_each(|(m, v)| *m += v));
    mean.iter_mut().for_each(|m| *m /= t as f64);
    let mut z = Vec::with_capacity(t * r);
    rows().for_each(|row| z.extend(row.iter().zip(&mean).map(|(v, m)| v - m)));
    if scale {
        let mut ss = vec![0.0; r];
        z.chunks_exact(r).for_each(|row| ss.iter_mut().zip(row).for_each(|(s, v)| *s += v * v));
        let sd: Vec<f64> = ss
            .iter()
            .map(|s| {
                let sd = (s / (t as f64 - 1.0)).sqrt();
                if sd < f64::EPSILON { 1.0 } else { sd }
            })
            .collect();
        z.chunks_exact_mut(r).for_each(|row| row.iter_mut().zip(&sd).for_each(|(v, s)| *v /= s));
    }
    z
}

/// scikit-learn's `LedoitWolf().fit(x).covariance_` for `t × r` samples: the empirical covariance shrunk
/// toward `μI` (μ its mean variance) by the Ledoit–Wolf shrinkage.
pub fn ledoit_wolf(x: &[f64], t: usize, r: usize) -> Vec<f64> {
    let z = centred(x, t, r, false);
    ledoit_wolf_centred(&z, t, r)
}

fn ledoit_wolf_centred(z: &[f64], t: usize, r: usize) -> Vec<f64> {
    let (n, p) = (t as f64, r as f64);
    let mut cov = linalg::gram(z, t, r);
    // Σ over entries of ⟨X², X²⟩ = Σ over samples of (Σ over features of x²)².
    let beta_sum: f64 = z.chunks(r).map(|row| row.iter().map(|v| v * v).sum::<f64>().powi(2)).sum();
    let delta_sum = cov.iter().map(|v| v * v).sum::<f64>() / (n * n);
    let trace = (0..r).map(|i| cov[i * r + i]).sum::<f64>() / n;
    let mu = trace / p;
    let beta = (beta_sum / n - delta_sum) / (p * n);
    let delta = (delta_sum - 2.0 * mu * trace + p * mu * mu) / p;
    let beta = beta.min(delta);
    let shrinkage = if beta == 0.0 { 0.0 } else { beta / delta };
    cov.iter_mut().for_each(|v| *v = *v / n * (1.0 - shrinkage));
    (0..r).for_each(|i| cov[i * r + i] += shrinkage * mu);
    cov
}

/// nilearn's `cov_to_corr`: `C / √(dᵢdⱼ)` with exactly 1 on the diagonal.
fn cov_to_corr(c: &[f64], r: usize) -> Vec<f64> {
    let d: Vec<f64> = (0..r).map(|i| 1.0 / c[i * r + i].sqrt()).collect();
    let mut out: Vec<f64> = (0..r * r).map(|k| c[k] * d[k / r] * d[k % r]).collect();
    (0..r).for_each(|i| out[i * r + i] = 1.0);
    out
}

/// One subject's connectivity (`r × r`, row-major) for every kind but `Tangent`, which needs the group.
pub fn subject(x: &[f64], t: usize, r: usize, kind: Kind) -> Result<Vec<f64>> {
    if t < 3 {
        invalid!("{t} time points: need at least 3");
    }
    Ok(match kind {
        Kind::Correlation => cov_to_corr(&ledoit_wolf_centred(&centred(x, t, r, true), t, r), r),
        Kind::Pearson => cov_to_corr(&linalg::gram(&centred(x, t, r, false), t, r), r),
        Kind::Partial => {
            let cov = ledoit_wolf(x, t, r);
            let Some(precision) = linalg::inverse_spd(&cov, r) else {
                invalid!("the shrunk covariance is not positive definite: no partial correlation")
            };
            let mut p = cov_to_corr(&precision, r);
            p.iter_mut().for_each(|v| *v = -*v);
            (0..r).for_each(|i| p[i * r + i] = 1.0);
            p
        }
        Kind::Tangent => ledoit_wolf(x, t, r),
    })
}

/// The tangent-space connectivities of a group, in place: `covariances` holds its members' covariances
/// ([`subject`] with `Kind::Tangent`), `r × r` each, one after another; each becomes `logm(W Cᵢ W)` with `W`
/// the inverse square root of the geometric mean.
pub fn tangent(covariances: &mut [f64], r: usize) -> Result<()> {
    let n = covariances.len() / (r * r).max(1);
    if n < 2 {
        invalid!("tangent space needs a group: {n} subject(s)");
    }
    let mean = geometric_mean(covariances, r, 30, 1e-7)?;
    let whitening = linalg::map_eigenvalues(&mean, r, |v| 1.0 / v.sqrt());
    for c in covariances.chunks_mut(r * r) {
        let w = linalg::product(&linalg::product(&whitening, c, r), &whitening, r);
        c.copy_from_slice(&linalg::map_eigenvalues(&w, r, f64::ln));
    }
    Ok(())
}

/// nilearn's `_geometric_mean` (Fletcher & Joshi's gradient descent on the manifold of SPD matrices, started
/// from the arithmetic mean, its step halved whenever the gradient's norm grows).
fn geometric_mean(all: &[f64], r: usize, max_iter: usize, tol: f64) -> Result<Vec<f64>> {
    let mats = || all.chunks(r * r);
    for (i, m) in mats().enumerate() {
        if linalg::Eigen::of(m, r).values[0] <= 0.0 {
            invalid!("subject {}: its covariance is not positive definite", i + 1);
        }
    }
    let k = mats().len() as f64;
    let mut gmean: Vec<f64> = (0..r * r).map(|e| mats().map(|m| m[e]).sum::<f64>() / k).collect();
    let (mut norm_old, mut step) = (f64::INFINITY, 1.0);
    for _ in 0..max_iter {
        let eig = linalg::Eigen::of(&gmean, r);
        let inv_sqrt = eig.map(|v| (1.0 / v).sqrt());
        let mut logs_mean = vec![0.0; r * r];
        for m in mats() {
            let w = linalg::product(&linalg::product(&inv_sqrt, m, r), &inv_sqrt, r);
            let log = linalg::map_eigenvalues(&w, r, f64::ln);
            logs_mean.iter_mut().zip(log).for_each(|(a, b)| *a += b / k);
        }
        if logs_mean.iter().any(|v| v.is_nan()) {
            invalid!("NaN after the matrix logarithm: the geometric mean does not exist");
        }
        let mut norm = logs_mean.iter().map(|v| v * v).sum::<f64>().sqrt();
        let sqrt = eig.map(f64::sqrt);
        let exp = linalg::map_eigenvalues(&logs_mean, r, |v| (v * step).exp());
        gmean = linalg::product(&linalg::product(&sqrt, &exp, r), &sqrt, r);
        if norm < norm_old {
            norm_old = norm;
        } else if norm > norm_old {
            step /= 2.0;
            norm = norm_old;
        }
        if norm / (r * r) as f64 <= tol {
            break;
        }
    }
    Ok(gmean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centring row by row gives, bit for bit, what centring column by column gives (each column's sums in
    /// time order), on values of mixed scale and a constant column.
    #[test]
    fn row_by_row_centring_is_the_column_by_column_one() {
        let (t, r) = (37, 5);
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let x: Vec<f64> = (0..t * r)
            .map(|k| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if k % r == 3 { 2.5 } else { (state % 100_000) as f64 * 1e-3 - 50.0 + (k % r) as f64 * 1e4 }
            })
            .collect();
        for scale in [false, true] {
            let mut want = x.clone();
            for j in 0..r {
                let mean = (0..t).map(|i| x[i * r + j]).fold(0.0, |a, b| a + b) / t as f64;
                (0..t).for_each(|i| want[i * r + j] -= mean);
                if scale {
                    let ss = (0..t).map(|i| want[i * r + j] * want[i * r + j]).fold(0.0, |a, b| a + b);
                    let sd = (ss / (t as f64 - 1.0)).sqrt();
                    let sd = if sd < f64::EPSILON { 1.0 } else { sd };
                    (0..t).for_each(|i| want[i * r + j] /= sd);
                }
            }
            let got = centred(&x, t, r, scale);
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
        assert!(centred(&[], 0, 0, true).is_empty());
    }

    /// Expected values: scikit-learn 1.9.1, `LedoitWolf().fit(x)` on x = [[1, 2], [2, 1], [3, 5], [4, 3]]
    /// (shrinkage_ 0.66402378592666); tolerance 1e-12.
    #[test]
    fn ledoit_wolf_equals_scikit_learn() {
        let x = [1.0, 2.0, 2.0, 1.0, 3.0, 5.0, 4.0, 3.0];
        let c = ledoit_wolf(&x, 4, 2);
        let want = [1.561261149653122, 0.2939791873141725, 0.2939791873141725, 1.876238850346878];
        for (got, want) in c.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn kinds_give_unit_diagonals_and_symmetric_matrices() {
        let (t, r) = (60, 4);
        let mut s: u64 = 7;
        let mut noise = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let x: Vec<f64> = (0..t * r).map(|_| noise()).collect();
        for kind in [Kind::Correlation, Kind::Pearson, Kind::Partial] {
            let c = subject(&x, t, r, kind).unwrap();
            for i in 0..r {
                assert_eq!(c[i * r + i], 1.0);
                for j in 0..r {
                    assert!((c[i * r + j] - c[j * r + i]).abs() < 1e-12 && c[i * r + j].abs() <= 1.0);
                }
            }
        }
        // The tangent vectors of a group average (near) zero when the group is its own reference.
        let mut covs: Vec<f64> = (0..3)
            .flat_map(|k| {
                let y: Vec<f64> = x.iter().enumerate().map(|(i, v)| v + 0.1 * (((i * (k + 3)) % 7) as f64)).collect();
                subject(&y, t, r, Kind::Tangent).unwrap()
            })
            .collect();
        assert!(tangent(&mut covs[..r * r].to_vec(), r).is_err());
        tangent(&mut covs, r).unwrap();
        let mean_abs: f64 = (0..r * r).map(|e| covs.chunks(r * r).map(|m| m[e]).sum::<f64>().abs() / 3.0).sum::<f64>();
        assert!(mean_abs < 1e-4, "{mean_abs}");
    }
}
