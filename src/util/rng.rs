//! numpy's legacy `RandomState`: MT19937 seeded by `init_genrand` (an integer seed) and the
//! `permutation` it draws with `random_interval`, reproduced so that seeded bctpy runs
//! (`community_louvain(W, seed=s)`) visit nodes in the same order here.

/// The Mersenne Twister MT19937 (Matsumoto & Nishimura 1998).
#[derive(Debug, Clone)]
pub struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    /// `numpy.random.RandomState(seed)` for an integer seed in 0..2³².
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            state[i] = 1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    fn twist(&mut self) {
        for i in 0..624 {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
            let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            self.state[i] = v;
        }
        self.index = 0;
    }

    /// The next 32-bit output (`genrand_int32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `RandomState.random_sample()`: a double in [0, 1) from two outputs (27 + 26 bits, numpy's `rk_double`).
    pub fn random_sample(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// A uniform integer in `0..=max` by masked rejection, as numpy's legacy `random_interval`
    /// (values below 2³²).
    pub fn interval(&mut self, max: u32) -> u32 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        for s in [1, 2, 4, 8, 16] {
            mask |= mask >> s;
        }
        loop {
            let v = self.next_u32() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// `RandomState.permutation(n)`: Fisher–Yates over `0..n` from the end.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut x: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.interval(i as u32) as usize;
            x.swap(i, j);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_sample_is_numpys() {
        // numpy: RandomState(0).random_sample(3).
        let mut r = Mt19937::new(0);
        let want = [0.5488135039273248, 0.7151893663724195, 0.6027633760716439];
        for w in want {
            assert_eq!(r.random_sample(), w);
        }
    }

    #[test]
    fn equals_numpy_random_state() {
        // numpy 2.4.6: np.random.RandomState(5489).randint(0, 2**32, size=2, dtype=np.uint64).
        let mut r = Mt19937::new(5489);
        assert_eq!(r.next_u32(), 3_499_211_612);
        assert_eq!(r.next_u32(), 581_869_302);
        // np.random.RandomState(42).permutation(10)
        assert_eq!(Mt19937::new(42).permutation(10), vec![8, 1, 5, 0, 7, 2, 9, 4, 3, 6]);
        // np.random.RandomState(7).permutation(100)[:12]
        assert_eq!(Mt19937::new(7).permutation(100)[..12], [37, 26, 78, 91, 49, 15, 93, 71, 86, 22, 13, 40]);
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014): one 64-bit draw from `state` (the seeded generator of sampling in
/// the local language model and of the graph encoder's fixed projection).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
