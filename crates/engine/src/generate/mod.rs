//! Document generators. A `DocSource` appends one document (a JSON line) per call; the bulk
//! builder adds the action lines. Each client owns its own source (no sharing, no locks).

pub mod systembase;

use crate::spec::{GeneratorKind, GeneratorSpec};
use std::time::{SystemTime, UNIX_EPOCH};

pub trait DocSource: Send {
    /// Append one document, as compact JSON followed by `\n`, stamped with `ts`.
    fn write_doc(&mut self, ts: &Timestamp, out: &mut Vec<u8>);
}

/// The source for client `client_index`, seeded from (seed, client index).
pub fn source_for(spec: &GeneratorSpec, client_index: u32) -> Box<dyn DocSource> {
    match spec.kind {
        GeneratorKind::Systembase => Box::new(systembase::Systembase::new(
            spec.variant,
            spec.seed,
            client_index,
        )),
    }
}

/// An RFC 3339 UTC timestamp with milliseconds, pre-formatted: `2026-11-22T17:46:00.123Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp(pub [u8; 24]);

impl Timestamp {
    pub fn now() -> Timestamp {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Timestamp::from_unix_millis(ms)
    }

    pub fn from_unix_millis(ms: i64) -> Timestamp {
        let secs = ms.div_euclid(1000);
        let milli = ms.rem_euclid(1000) as u32;
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400) as u32;
        let (y, m, d) = civil_from_days(days);
        let mut b = *b"0000-00-00T00:00:00.000Z";
        let y = y.clamp(0, 9999) as u32;
        put(&mut b[0..4], y);
        put(&mut b[5..7], m);
        put(&mut b[8..10], d);
        put(&mut b[11..13], sod / 3600);
        put(&mut b[14..16], sod / 60 % 60);
        put(&mut b[17..19], sod % 60);
        put(&mut b[20..23], milli);
        Timestamp(b)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

fn put(out: &mut [u8], mut v: u32) {
    for slot in out.iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// Days since 1970-01-01 -> (year, month, day), H. Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_rfc3339_millis() {
        assert_eq!(
            &Timestamp::from_unix_millis(0).0,
            b"1970-01-01T00:00:00.000Z"
        );
        // 2026-11-22T17:46:00.123Z
        assert_eq!(
            &Timestamp::from_unix_millis(1_795_369_560_123).0,
            b"2026-11-22T17:46:00.123Z"
        );
        // leap day
        assert_eq!(
            &Timestamp::from_unix_millis(951_782_400_999).0,
            b"2000-02-29T00:00:00.999Z"
        );
    }
}
