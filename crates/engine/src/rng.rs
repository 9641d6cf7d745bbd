//! wyrand: a tiny, fast, deterministic PRNG (one u64 of state, passes BigCrush/PractRand).
//! Statistical quality is ample for picking log fields and interarrival times.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for one stream of a seed (e.g. one client): mixes `stream` into `seed` so
    /// neighbouring streams do not overlap in practice.
    pub fn for_stream(seed: u64, stream: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        Rng(r.next_u64() ^ stream)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xA076_1D64_78BD_642F);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xE703_7ED1_A0B4_28DB);
        (t >> 64) as u64 ^ t as u64
    }

    /// Uniform in `0..n` (multiply-shift; bias below 2^-32 for the small n used here).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u64() as u32) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in `(0, 1]`.
    #[inline]
    pub fn unit_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}
