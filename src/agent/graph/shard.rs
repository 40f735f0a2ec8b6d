//! An evaluation split across processes or machines (`agent eval --shard I/N`): one run file each, each
//! resuming on its own.

use crate::agent::error::{AgentError, Result};
use serde::{Deserialize, Serialize};

/// Shard `index` of `count` (1-based): the test samples at positions `i` with `i % count == index − 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `I/N` with 1 ≤ I ≤ N.
    pub fn parse(s: &str) -> Result<Shard> {
        let bad = || AgentError::from(format!("--shard {s}: give I/N with 1 ≤ I ≤ N, e.g. 2/8"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    pub fn holds(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition_the_positions() {
        let s = Shard::parse("2/3").unwrap();
        assert_eq!((0..7).filter(|&i| s.holds(i)).collect::<Vec<_>>(), [1, 4]);
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(Shard::parse(bad).unwrap_err().to_string().contains("I/N"), "{bad}");
        }
    }
}
