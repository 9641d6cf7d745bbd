//! Latency histograms: HdrHistogram in microseconds (1 µs .. 1 h, 3 significant digits),
//! summarized in milliseconds and encoded in the compressed V2 format for storage; stored
//! encodings merge back into one summary (`merge_encoded`).

use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
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

/// Decode histograms as stored by `LatencySummary.encoded` and merge them into one summary,
/// so percentiles over any set of intervals are exact (not averages of percentiles). Empty
/// items are skipped; no items give the all-zero summary. The error names the item's index.
pub fn merge_encoded(encoded: &[&[u8]]) -> Result<LatencySummary, String> {
    let mut merged = Latency::new();
    let mut decoder = Deserializer::new();
    for (i, bytes) in encoded.iter().enumerate() {
        if bytes.is_empty() {
            continue;
        }
        let h: Histogram<u64> = decoder
            .deserialize(&mut &bytes[..])
            .map_err(|e| format!("encoded[{i}]: not a V2-compressed HdrHistogram: {e}"))?;
        merged
            .0
            .add(&h)
            .map_err(|e| format!("encoded[{i}]: cannot merge: {e}"))?;
    }
    Ok(merged.summary())
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

    #[test]
    fn merged_encodings_summarize_like_one_histogram() {
        let (mut a, mut b, mut all) = (Latency::new(), Latency::new(), Latency::new());
        for k in 1..=5_000u64 {
            let d = Duration::from_micros(k * k % 97_003 + 1);
            if k % 3 == 0 { &mut a } else { &mut b }.record(d);
            all.record(d);
        }
        let (ea, eb) = (a.summary().encoded, b.summary().encoded);
        let merged = merge_encoded(&[&ea, &[], &eb]).unwrap();
        let want = all.summary();
        assert_eq!(merged.count, 5_000);
        let pick = |s: &LatencySummary| (s.count, s.p50_ms, s.p99_ms, s.max_ms, s.mean_ms);
        assert_eq!(pick(&merged), pick(&want));
        assert_eq!((merged.min_ms, merged.p999_ms), (want.min_ms, want.p999_ms));
    }

    #[test]
    fn merging_nothing_is_all_zero_and_garbage_names_its_item() {
        let zero = merge_encoded(&[]).unwrap();
        assert_eq!(zero, Latency::new().summary());
        assert_eq!(merge_encoded(&[&[]]).unwrap(), zero);
        let good = Latency::new().summary().encoded;
        let e = merge_encoded(&[&good, b"not a histogram"]).unwrap_err();
        assert!(
            e.starts_with("encoded[1]: not a V2-compressed HdrHistogram"),
            "{e}"
        );
        let e = merge_encoded(&[&good[..good.len() / 2]]).unwrap_err();
        assert!(e.starts_with("encoded[0]: "), "{e}");
    }
}
