//! Latency histograms: HdrHistogram in microseconds (1 µs .. 1 h, 3 significant digits),
//! summarized in milliseconds and encoded in the compressed V2 format for storage.

use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use std::time::Duration;

const HIGHEST_US: u64 = 3_600_000_000;

#[derive(Debug, Clone)]
pub struct Latency(Histogram<u64>);

impl Default for Latency {
    fn default() -> Self {
        Latency::new()
    }
}

impl Latency {
    pub fn new() -> Latency {
        Latency(Histogram::new_with_bounds(1, HIGHEST_US, 3).expect("valid bounds"))
    }

    /// Record one latency; values beyond an hour are clamped to an hour.
    #[inline]
    pub fn record(&mut self, d: Duration) {
        let us = (d.as_micros() as u64).clamp(1, HIGHEST_US);
        self.0.saturating_record(us);
    }

    pub fn add(&mut self, other: &Latency) {
        self.0.add(&other.0).expect("same bounds");
    }

    pub fn reset(&mut self) {
        self.0.reset();
    }

    pub fn count(&self) -> u64 {
        self.0.len()
    }

    pub fn summary(&self) -> LatencySummary {
        let h = &self.0;
        let ms = |us: u64| us as f64 / 1000.0;
        let empty = h.is_empty();
        let q = |q: f64| {
            if empty {
                0.0
            } else {
                ms(h.value_at_quantile(q))
            }
        };
        let mut encoded = Vec::new();
        V2DeflateSerializer::new()
            .serialize(h, &mut encoded)
            .expect("serializing to memory");
        LatencySummary {
            count: h.len(),
            mean_ms: if empty { 0.0 } else { h.mean() / 1000.0 },
            p50_ms: q(0.5),
            p90_ms: q(0.9),
            p99_ms: q(0.99),
            p999_ms: q(0.999),
            max_ms: if empty { 0.0 } else { ms(h.max()) },
            min_ms: if empty { 0.0 } else { ms(h.min()) },
            encoded,
        }
    }
}

/// Percentiles of one histogram in milliseconds, plus the histogram itself (compressed V2),
/// so intervals hand out small values instead of 200 KB count arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub min_ms: f64,
    pub encoded: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::Deserializer;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= b * 0.001 + 1e-9
    }

    #[test]
    fn percentiles_of_1_to_100_ms() {
        let mut l = Latency::new();
        for ms in 1..=100 {
            l.record(Duration::from_millis(ms));
        }
        let s = l.summary();
        assert_eq!(s.count, 100);
        assert!(close(s.p50_ms, 50.0), "{}", s.p50_ms);
        assert!(close(s.p90_ms, 90.0), "{}", s.p90_ms);
        assert!(close(s.p99_ms, 99.0), "{}", s.p99_ms);
        assert!(close(s.max_ms, 100.0), "{}", s.max_ms);
        assert!(close(s.min_ms, 1.0), "{}", s.min_ms);
        assert!(close(s.mean_ms, 50.5), "{}", s.mean_ms);
    }

    #[test]
    fn microsecond_resolution_and_merge() {
        let mut a = Latency::new();
        a.record(Duration::from_micros(250));
        let mut b = Latency::new();
        b.record(Duration::from_micros(750));
        b.record(Duration::from_secs(7200)); // clamped to an hour
        a.add(&b);
        let s = a.summary();
        assert_eq!(s.count, 3);
        assert!(close(s.min_ms, 0.25));
        assert!(close(s.p50_ms, 0.75));
        assert!(close(s.max_ms, 3_600_000.0));
    }

    #[test]
    fn empty_is_all_zero_and_encoding_round_trips() {
        assert_eq!(Latency::new().summary().p99_ms, 0.0);
        let mut l = Latency::new();
        for us in [10, 20, 30_000] {
            l.record(Duration::from_micros(us));
        }
        let enc = l.summary().encoded;
        assert!(enc.len() < 200, "compressed, got {} bytes", enc.len());
        let back: Histogram<u64> = Deserializer::new().deserialize(&mut &enc[..]).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back.max(), l.0.max());
    }
}
