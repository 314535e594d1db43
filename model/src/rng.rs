//! A tiny deterministic random number generator (xorshift64*), the same on every platform and
//! build: for synthetic data (`lkpx synth`) and for tests that need reproducible noise.

#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// Any seed works (zero is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-300), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let (mut a, mut b) = (XorShift::new(42), XorShift::new(42));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        for _ in 0..1000 {
            assert!((0.0..1.0).contains(&a.unit()));
            assert!(a.below(7) < 7);
        }
        assert_eq!(XorShift::new(0).below(0), 0);
    }
}
