//! The body size of one bulk, estimated once when the spec is compiled, from a sample of the
//! spec's own documents. Python multiplies it by the clients to refuse runs whose bulks in
//! flight would not fit the machine's memory; here it refuses a `bulk.docs` body the cluster
//! would refuse anyway, before any connection opens.

use crate::bulk::ACTION;
use crate::generate::{source_for, Timestamp};
use crate::spec::{BulkSize, GeneratorSpec, SpecError, MAX_BULK_BYTES};

/// Documents generated for the estimate. Systembase documents differ by a few bytes (the
/// random numbers' digits), so the mean of a small sample is within a fraction of a percent.
pub const SAMPLE_DOCS: u64 = 32;

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;

/// The estimated body bytes of one bulk: `bulk.bytes` itself, or `bulk.docs` times the mean
/// item (action line + document) of a sample from the spec's generator and seed.
pub fn bulk_bytes(size: BulkSize, generator: &GeneratorSpec) -> u64 {
    match (size.docs, size.bytes) {
        (Some(docs), _) => sample_bytes(generator)
            .saturating_mul(docs)
            .div_ceil(SAMPLE_DOCS),
        (None, bytes) => bytes.unwrap_or(0),
    }
}

/// `bulk_bytes`, or a spec error when a `bulk.docs` body would exceed `MAX_BULK_BYTES`
/// (OpenSearch answers such a request 413, and each client would hold the whole body).
pub fn checked_bulk_bytes(size: BulkSize, generator: &GeneratorSpec) -> Result<u64, SpecError> {
    let estimated = bulk_bytes(size, generator);
    match size.docs {
        Some(docs) if estimated > MAX_BULK_BYTES => {
            let item_bytes = (estimated as f64 / docs as f64).round() as u64;
            Err(SpecError(format!(
                "bulk.docs: {docs} documents of ~{} bytes make a ~{} bulk body, above the \
                 {} limit (http.max_content_length): use fewer --bulk-docs or --bulk-bytes",
                thousands(item_bytes),
                approx_size(estimated),
                approx_size(MAX_BULK_BYTES),
            )))
        }
        _ => Ok(estimated),
    }
}

/// Bytes of `SAMPLE_DOCS` items from client 0's source: the same documents the run starts
/// with, since the source is seeded by (seed, client index).
fn sample_bytes(generator: &GeneratorSpec) -> u64 {
    let mut source = source_for(generator, 0);
    // Every timestamp has the same width, so any one gives the same sizes.
    let ts = Timestamp::from_unix_millis(0);
    let mut body = Vec::new();
    for _ in 0..SAMPLE_DOCS {
        body.extend_from_slice(ACTION);
        source.write_doc(&ts, &mut body);
    }
    body.len() as u64
}

/// `24612` -> `24,612`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `2_469_000_000` -> `2.3 GiB`, `104_857_600` -> `100 MiB`, `123_000_000` -> `117.3 MiB`.
fn approx_size(bytes: u64) -> String {
    let b = bytes as f64;
    let (value, unit) = if b >= GIB {
        (b / GIB, "GiB")
    } else {
        (b / MIB, "MiB")
    };
    if value.fract() == 0.0 {
        format!("{value} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{GeneratorKind, Variant};

    fn generator(variant: Variant) -> GeneratorSpec {
        GeneratorSpec {
            kind: GeneratorKind::Systembase,
            variant,
            seed: 42,
        }
    }

    fn docs(n: u64) -> BulkSize {
        BulkSize {
            docs: Some(n),
            bytes: None,
        }
    }

    #[test]
    fn bytes_bulks_are_their_size_and_docs_bulks_scale_with_the_docs() {
        let g = generator(Variant::Bulk);
        let by_bytes = BulkSize {
            docs: None,
            bytes: Some(5_000_000),
        };
        assert_eq!(bulk_bytes(by_bytes, &g), 5_000_000);
        let one = bulk_bytes(docs(1), &g);
        let thousand = bulk_bytes(docs(1000), &g);
        assert!((300..450).contains(&one), "{one} bytes per systembase item");
        assert!(thousand.abs_diff(one * 1000) <= 1000, "{thousand} vs {one}");
        // bigbulk: the two 12,000-byte fields dominate
        let big = bulk_bytes(docs(1), &generator(Variant::Bigbulk));
        assert!((24_300..24_800).contains(&big), "{big}");
    }

    #[test]
    fn the_estimate_matches_a_real_bulk() {
        use crate::bulk::BulkBuilder;
        for variant in [Variant::Bulk, Variant::Bigbulk] {
            let g = generator(variant);
            let bulk = BulkBuilder::new(docs(500))
                .build(source_for(&g, 3).as_mut(), &mut |n: u64| n)
                .unwrap();
            let real = bulk.body.len() as f64;
            let estimated = bulk_bytes(docs(500), &g) as f64;
            assert!(
                (estimated - real).abs() / real < 0.01,
                "{estimated} vs {real}"
            );
        }
    }

    #[test]
    fn sizes_read_like_the_message() {
        assert_eq!(thousands(24_612), "24,612");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(approx_size(MAX_BULK_BYTES), "100 MiB");
        assert_eq!(approx_size(2_461_200_000), "2.3 GiB");
        assert_eq!(approx_size(123_000_000), "117.3 MiB");
    }
}
