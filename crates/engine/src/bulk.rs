//! Bulk request bodies: NDJSON with the byte range of every item, so rejected items can be
//! resent alone. Their responses are classified in response.rs.

use crate::generate::{DocSource, Timestamp};
use crate::spec::BulkSize;
use bytes::Bytes;
use std::ops::Range;

pub const ACTION: &[u8] = b"{\"index\":{}}\n";

/// One request body and where each item (action line + document line) sits in it.
#[derive(Debug, Clone)]
pub struct Bulk {
    pub body: Bytes,
    pub items: Vec<Range<u32>>,
}

impl Bulk {
    pub fn docs(&self) -> u64 {
        self.items.len() as u64
    }

    /// A new bulk of only the items at `indices` (for resending rejected items).
    pub fn subset(&self, indices: &[u32]) -> Bulk {
        let len: usize = indices.iter().map(|&i| self.items[i as usize].len()).sum();
        let mut body = Vec::with_capacity(len);
        let mut items = Vec::with_capacity(indices.len());
        for &i in indices {
            let r = self.items[i as usize].clone();
            let start = body.len() as u32;
            body.extend_from_slice(&self.body[r.start as usize..r.end as usize]);
            items.push(start..body.len() as u32);
        }
        Bulk {
            body: Bytes::from(body),
            items,
        }
    }
}

/// Where a builder gets its documents from: the run's shared doc budget (`stop.docs`), or
/// no limit. A plain `FnMut(u64) -> u64` is a budget that forgets returned docs (tests).
pub trait DocBudget {
    /// Claim up to `n` docs; returns how many were granted (0: the budget is spent).
    fn claim(&mut self, n: u64) -> u64;
    /// Once per build that claimed anything: `unused` claimed docs go back, `used` docs
    /// were generated and will be sent.
    fn settle(&mut self, unused: u64, used: u64);
}

impl<F: FnMut(u64) -> u64> DocBudget for F {
    fn claim(&mut self, n: u64) -> u64 {
        self(n)
    }
    fn settle(&mut self, _unused: u64, _used: u64) {}
}

/// Builds bodies, reusing its size estimates between bulks so the buffer is allocated once
/// at the right size, and reusing the last bulk's buffers once it has been answered.
pub struct BulkBuilder {
    size: BulkSize,
    capacity_hint: usize,
    /// Docs in the last bulk by bytes: how many to claim at first for the next one.
    docs_hint: u64,
    /// The buffers of an answered bulk (see `recycle`).
    spare_body: Option<Vec<u8>>,
    spare_items: Option<Vec<Range<u32>>>,
}

impl BulkBuilder {
    pub fn new(size: BulkSize) -> BulkBuilder {
        BulkBuilder {
            size,
            capacity_hint: 64 * 1024,
            docs_hint: 1,
            spare_body: None,
            spare_items: None,
        }
    }

    /// Hand back an answered bulk so its buffers serve the next one. Against a real node a
    /// bulk waits ~100 ms for its answer, long enough for the allocator to return a freed
    /// body's pages to the OS: every new body then page-faulted and zeroed ~600 KB, a large
    /// part of the engine's CPU. A body still shared (hyper kept a reference) is dropped.
    pub fn recycle(&mut self, bulk: Bulk) {
        if let Ok(body) = bulk.body.try_into_mut() {
            let mut body = Vec::from(body);
            body.clear();
            self.spare_body = Some(body);
        }
        let mut items = bulk.items;
        items.clear();
        self.spare_items = Some(items);
    }

    fn body_buffer(&mut self) -> Vec<u8> {
        match self.spare_body.take() {
            Some(body) if body.capacity() >= self.capacity_hint / 2 => body,
            _ => Vec::with_capacity(self.capacity_hint),
        }
    }

    fn items_buffer(&mut self, capacity: usize) -> Vec<Range<u32>> {
        let mut items = self.spare_items.take().unwrap_or_default();
        items.reserve(capacity);
        items
    }

    /// Build one bulk (by docs or by bytes), generating only docs claimed from `budget`
    /// first, so a nearly spent budget never costs a whole bulk of generation. Bulks by docs
    /// claim once up front; bulks by bytes claim in chunks sized from the docs seen so far
    /// and give back what they did not use. Returns None when nothing could be claimed.
    pub fn build(&mut self, src: &mut dyn DocSource, budget: &mut impl DocBudget) -> Option<Bulk> {
        // The clock is read once per bulk, not per document: per-document clock reads made
        // generation 2.5x more expensive when measured, and all docs of a bulk are sent
        // together anyway.
        let ts = Timestamp::now();
        let (mut body, mut items, unused);
        match (self.size.docs, self.size.bytes) {
            (Some(n), _) => {
                let granted = budget.claim(n);
                if granted == 0 {
                    return None;
                }
                body = self.body_buffer();
                items = self.items_buffer(granted as usize);
                for _ in 0..granted {
                    push_doc(src, &ts, &mut body, &mut items);
                }
                unused = 0;
            }
            (None, limit) => {
                let limit = limit.unwrap_or(1);
                body = self.body_buffer();
                items = self.items_buffer(self.docs_hint as usize + 1);
                let mut left = 0u64; // claimed and not generated yet
                loop {
                    if left == 0 {
                        let want = match items.len() {
                            0 => self.docs_hint,
                            k => {
                                let avg = (body.len() / k).max(1) as u64;
                                (limit - body.len() as u64).div_ceil(avg)
                            }
                        };
                        left = budget.claim(want.max(1));
                        if left == 0 {
                            break;
                        }
                    }
                    push_doc(src, &ts, &mut body, &mut items);
                    left -= 1;
                    if body.len() as u64 >= limit {
                        break;
                    }
                }
                unused = left;
                if body.len() as u64 >= limit {
                    self.docs_hint = items.len() as u64;
                }
            }
        }
        budget.settle(unused, items.len() as u64);
        if items.is_empty() {
            return None;
        }
        self.capacity_hint = self.capacity_hint.max(body.len() + body.len() / 8);
        Some(Bulk {
            body: Bytes::from(body),
            items,
        })
    }
}

/// Append one item (action line + document) and record its byte range.
///
/// Ranges are u32: a body is at most `bulk.bytes` (<= 100 MiB) plus one doc, or `bulk.docs`
/// docs estimated at <= 100 MiB (and at most 100,000 docs of ~25 kB, bigbulk's two
/// 12,000-byte fields, = ~2.5 GB), all below u32::MAX (4 GiB). spec.rs and estimate.rs
/// enforce those caps.
#[inline]
fn push_doc(
    src: &mut dyn DocSource,
    ts: &Timestamp,
    body: &mut Vec<u8>,
    items: &mut Vec<Range<u32>>,
) {
    let start = body.len();
    body.extend_from_slice(ACTION);
    src.write_doc(ts, body);
    debug_assert!(
        body.len() <= u32::MAX as usize,
        "a bulk body must fit u32 item ranges"
    );
    items.push(start as u32..body.len() as u32);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::systembase::Systembase;
    use crate::generate::{DocSource, Timestamp};
    use crate::spec::Variant;

    fn src() -> Systembase {
        Systembase::new(Variant::Bulk, 42, 0)
    }

    fn size(docs: Option<u64>, bytes: Option<u64>) -> BulkSize {
        BulkSize { docs, bytes }
    }

    fn check_ndjson(b: &Bulk) {
        let text = std::str::from_utf8(&b.body).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 * b.items.len());
        for (k, pair) in lines.chunks(2).enumerate() {
            assert_eq!(pair[0], r#"{"index":{}}"#);
            let _: serde_json::Value = serde_json::from_str(pair[1]).unwrap();
            let r = &b.items[k];
            let item = &text[r.start as usize..r.end as usize];
            assert_eq!(item, format!("{}\n{}\n", pair[0], pair[1]));
        }
        assert_eq!(b.items.last().unwrap().end as usize, b.body.len());
    }

    #[test]
    fn by_docs_yields_exactly_n() {
        let mut builder = BulkBuilder::new(size(Some(1000), None));
        let b = builder.build(&mut src(), &mut |n: u64| n).unwrap();
        assert_eq!(b.docs(), 1000);
        check_ndjson(&b);
    }

    #[test]
    fn an_answered_bulk_lends_its_buffer_to_the_next() {
        let mut builder = BulkBuilder::new(size(Some(1000), None));
        let mut source = src();
        let first = builder.build(&mut source, &mut |n: u64| n).unwrap();
        let first_ptr = first.body.as_ptr();
        let in_flight = first.body.clone(); // hyper still holds it: not reusable yet
        builder.recycle(first);
        let second = builder.build(&mut source, &mut |n: u64| n).unwrap();
        assert_ne!(second.body.as_ptr(), first_ptr);
        drop(in_flight);
        let second_ptr = second.body.as_ptr();
        builder.recycle(second);
        let third = builder.build(&mut source, &mut |n: u64| n).unwrap();
        assert_eq!(third.body.as_ptr(), second_ptr); // the same allocation, refilled
        assert_eq!(third.docs(), 1000);
        assert_eq!(third.body.iter().filter(|&&b| b == b'\n').count(), 2000);
    }

    #[test]
    fn by_bytes_reaches_the_size_and_no_more_than_one_doc_over() {
        let mut builder = BulkBuilder::new(size(None, Some(100_000)));
        let b = builder.build(&mut src(), &mut |n: u64| n).unwrap();
        assert!(b.body.len() >= 100_000);
        let last = b.items.last().unwrap();
        assert!((last.start as usize) < 100_000);
        check_ndjson(&b);
        let tiny = BulkBuilder::new(size(None, Some(1)))
            .build(&mut src(), &mut |n: u64| n)
            .unwrap();
        assert_eq!(tiny.docs(), 1);
    }

    #[test]
    fn claims_truncate_and_zero_claim_is_none() {
        let mut builder = BulkBuilder::new(size(Some(100), None));
        let b = builder.build(&mut src(), &mut |n: u64| n.min(37)).unwrap();
        assert_eq!(b.docs(), 37);
        check_ndjson(&b);
        assert!(builder.build(&mut src(), &mut |_| 0).is_none());
    }

    /// A doc budget like the run's: counts what was claimed, given back and used.
    struct Left {
        left: u64,
        claims: u64,
        used: u64,
    }

    impl DocBudget for Left {
        fn claim(&mut self, n: u64) -> u64 {
            self.claims += 1;
            let got = n.min(self.left);
            self.left -= got;
            got
        }
        fn settle(&mut self, unused: u64, used: u64) {
            self.left += unused;
            self.used += used;
        }
    }

    fn left(n: u64) -> Left {
        Left {
            left: n,
            claims: 0,
            used: 0,
        }
    }

    /// Counts the docs it generates.
    struct Counting(Systembase, u64);

    impl DocSource for Counting {
        fn write_doc(&mut self, ts: &Timestamp, out: &mut Vec<u8>) {
            self.1 += 1;
            self.0.write_doc(ts, out)
        }
    }

    #[test]
    fn generation_stops_at_the_claimed_docs() {
        // by docs: one claim, and only the granted docs are generated
        let mut gen = Counting(src(), 0);
        let mut budget = left(3);
        let b = BulkBuilder::new(size(Some(100_000), None))
            .build(&mut gen, &mut budget)
            .unwrap();
        assert_eq!((b.docs(), gen.1, budget.claims, budget.used), (3, 3, 1, 3));
        check_ndjson(&b);
        // by bytes: a 100 MiB bulk with one doc left generates one doc
        let mut gen = Counting(src(), 0);
        let mut budget = left(1);
        let mut builder = BulkBuilder::new(size(None, Some(100 * 1024 * 1024)));
        let b = builder.build(&mut gen, &mut budget).unwrap();
        assert_eq!((b.docs(), gen.1, budget.used, budget.left), (1, 1, 1, 0));
        assert!(builder.build(&mut gen, &mut budget).is_none());
        assert_eq!(gen.1, 1);
    }

    #[test]
    fn bytes_bulks_claim_in_few_chunks_and_give_back_the_rest() {
        let mut budget = left(1_000_000);
        let mut builder = BulkBuilder::new(size(None, Some(100_000)));
        let mut sizes = Vec::new();
        for _ in 0..20 {
            let b = builder.build(&mut src(), &mut budget).unwrap();
            assert!(b.body.len() >= 100_000);
            assert!((b.items.last().unwrap().start as usize) < 100_000);
            sizes.push(b.docs());
        }
        let sent: u64 = sizes.iter().sum();
        assert_eq!(budget.used, sent);
        assert_eq!(
            budget.left,
            1_000_000 - sent,
            "unused claims are given back"
        );
        assert!(
            budget.claims <= 20 * 3,
            "{} claims for 20 bulks",
            budget.claims
        );
    }

    #[test]
    fn subset_rebuilds_only_chosen_items() {
        let b = BulkBuilder::new(size(Some(10), None))
            .build(&mut src(), &mut |n: u64| n)
            .unwrap();
        let s = b.subset(&[1, 4, 9]);
        assert_eq!(s.docs(), 3);
        check_ndjson(&s);
        let r = &b.items[4];
        let r2 = &s.items[1];
        assert_eq!(
            &b.body[r.start as usize..r.end as usize],
            &s.body[r2.start as usize..r2.end as usize]
        );
    }
}
