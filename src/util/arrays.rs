//! Numeric arrays from container formats, as `f64`: a `.npz` member of any numeric dtype. One home for the
//! conversion the network and recording readers share (MATLAB files: util::mat5).

use ndarray::ArrayD;
use std::io::{Read, Seek};

/// The member `key` of a `.npz` archive as `f64`, whatever its numeric dtype; the error is the last reader's.
pub fn npz_f64<R: Read + Seek>(z: &mut ndarray_npy::NpzReader<R>, key: &str) -> Result<ArrayD<f64>, String> {
    macro_rules! try_as {
        ($t:ty) => {
            if let Ok(a) = z.by_name::<ndarray::OwnedRepr<$t>, ndarray::IxDyn>(key) {
                return Ok(a.mapv(|v| v as f64));
            }
        };
    }
    try_as!(f64);
    try_as!(f32);
    try_as!(i64);
    try_as!(i32);
    try_as!(i16);
    try_as!(i8);
    try_as!(u8);
    try_as!(u16);
    try_as!(u32);
    z.by_name::<ndarray::OwnedRepr<u64>, ndarray::IxDyn>(key)
        .map(|a| a.mapv(|v| v as f64))
        .map_err(|e| format!("member {key:?} is not a numeric array: {e}"))
}
