//! Bulk request bodies (NDJSON with the byte range of every item, so rejected items can be
//! resent alone) and bulk response classification (scan, don't parse, on success).

use crate::generate::{DocSource, Timestamp};
use crate::spec::BulkSize;
use bytes::Bytes;
use serde::Deserialize;
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
/// at the right size.
pub struct BulkBuilder {
    size: BulkSize,
    capacity_hint: usize,
    /// Docs in the last bulk by bytes: how many to claim at first for the next one.
    docs_hint: u64,
}

impl BulkBuilder {
    pub fn new(size: BulkSize) -> BulkBuilder {
        BulkBuilder {
            size,
            capacity_hint: 64 * 1024,
            docs_hint: 1,
        }
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
                body = Vec::with_capacity(self.capacity_hint);
                items = Vec::with_capacity(granted as usize);
                for _ in 0..granted {
                    push_doc(src, &ts, &mut body, &mut items);
                }
                unused = 0;
            }
            (None, limit) => {
                let limit = limit.unwrap_or(1);
                body = Vec::with_capacity(self.capacity_hint);
                items = Vec::with_capacity(self.docs_hint as usize + 1);
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
/// Ranges are u32: a body is at most `bulk.bytes` (<= 100 MiB) plus one doc, or
/// `bulk.docs` (<= 100,000) docs of at most ~25 kB (bigbulk's two 12,000-byte fields)
/// = ~2.5 GB, both below u32::MAX (4 GiB). spec.rs enforces those caps.
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

/// How a request as a whole ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    Ok,
    ItemErrors,
    Http429,
    HttpOther,
    Transport,
}

/// One kind of error seen in a response, with how many items/requests had it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEvent {
    pub kind: String,
    pub count: u64,
    pub example: String,
}

/// What a response says about the items of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    pub outcome: RequestOutcome,
    pub acked: u64,
    /// Indices of items rejected with 429 (retryable).
    pub rejected: Vec<u32>,
    pub failed: u64,
    pub errors: Vec<ErrorEvent>,
}

pub const EXAMPLE_LEN: usize = 300;

pub fn cut(s: &str) -> String {
    match s.char_indices().nth(EXAMPLE_LEN) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// `Some(false)` / `Some(true)` for `"errors":false|true` near the start of a bulk response.
pub fn scan_errors_flag(body: &[u8]) -> Option<bool> {
    let head = &body[..body.len().min(512)];
    let at = memchr::memmem::find(head, b"\"errors\"")? + 8;
    let rest = head[at..].iter().position(|b| !b" \t\r\n:".contains(b))? + at;
    if head[rest..].starts_with(b"false") {
        Some(false)
    } else if head[rest..].starts_with(b"true") {
        Some(true)
    } else {
        None
    }
}

#[derive(Deserialize)]
struct BulkResponse {
    items: Vec<std::collections::HashMap<String, Item>>,
}

#[derive(Deserialize)]
struct Item {
    status: u16,
    error: Option<ItemError>,
}

#[derive(Deserialize)]
struct ItemError {
    #[serde(rename = "type")]
    kind: Option<String>,
    reason: Option<String>,
}

/// Classify the answer to a request of `n` items.
pub fn classify(status: u16, body: &[u8], n: usize) -> Classified {
    let mut c = Classified {
        outcome: RequestOutcome::Ok,
        acked: 0,
        rejected: Vec::new(),
        failed: 0,
        errors: Vec::new(),
    };
    if !(200..300).contains(&status) {
        let example = cut(&String::from_utf8_lossy(
            &body[..body.len().min(4 * EXAMPLE_LEN)],
        ));
        c.errors.push(ErrorEvent {
            kind: format!("http {status}"),
            count: 1,
            example,
        });
        if status == 429 {
            c.outcome = RequestOutcome::Http429;
            c.rejected = (0..n as u32).collect();
        } else {
            c.outcome = RequestOutcome::HttpOther;
            c.failed = n as u64;
        }
        return c;
    }
    if scan_errors_flag(body) == Some(false) {
        c.acked = n as u64;
        return c;
    }
    c.outcome = RequestOutcome::ItemErrors;
    let parsed: BulkResponse = match serde_json::from_slice(body) {
        Ok(p) => p,
        Err(e) => {
            c.failed = n as u64;
            c.errors.push(ErrorEvent {
                kind: "bad response".into(),
                count: 1,
                example: cut(&format!("{e}")),
            });
            return c;
        }
    };
    for (i, item) in parsed.items.iter().take(n).enumerate() {
        let Some(item) = item.values().next() else {
            c.failed += 1;
            continue;
        };
        if (200..300).contains(&item.status) {
            c.acked += 1;
            continue;
        }
        if item.status == 429 {
            c.rejected.push(i as u32);
        } else {
            c.failed += 1;
        }
        let (kind, reason) = match &item.error {
            Some(e) => (e.kind.as_deref().unwrap_or("?"), e.reason.as_deref()),
            None => ("?", None),
        };
        let kind = format!("item {} {kind}", item.status);
        match c.errors.iter_mut().find(|e| e.kind == kind) {
            Some(e) => e.count += 1,
            None => c.errors.push(ErrorEvent {
                kind,
                count: 1,
                example: cut(reason.unwrap_or("")),
            }),
        }
    }
    let missing = n.saturating_sub(parsed.items.len());
    if missing > 0 {
        c.failed += missing as u64;
        c.errors.push(ErrorEvent {
            kind: "missing items".into(),
            count: missing as u64,
            example: format!("{n} items sent, {} answered", parsed.items.len()),
        });
    }
    if c.rejected.is_empty() && c.failed == 0 {
        c.outcome = RequestOutcome::Ok;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::systembase::Systembase;
    use crate::generate::{DocSource, Timestamp};
    use crate::spec::Variant;

    const REAL: &str = r#"{"took":30,"errors":true,"items":[{"index":{"_index":"systembase","_id":"x","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation"}}},{"index":{"_index":"systembase","_id":"y","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}]}"#;

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

    #[test]
    fn scanner_finds_errors_flag() {
        assert_eq!(
            scan_errors_flag(br#"{"took":3,"errors":false,"items":[]}"#),
            Some(false)
        );
        assert_eq!(
            scan_errors_flag(b"{\n  \"took\" : 3,\n  \"errors\" : true"),
            Some(true)
        );
        assert_eq!(scan_errors_flag(br#"{"error":"x"}"#), None);
    }

    #[test]
    fn errors_false_acks_all_without_parsing() {
        let c = classify(200, br#"{"took":30,"errors":false,"items":[not json"#, 1000);
        assert_eq!(c.outcome, RequestOutcome::Ok);
        assert_eq!((c.acked, c.failed, c.rejected.len()), (1000, 0, 0));
    }

    #[test]
    fn errors_true_classifies_each_item() {
        let c = classify(200, REAL.as_bytes(), 2);
        assert_eq!(c.outcome, RequestOutcome::ItemErrors);
        assert_eq!(c.acked, 1);
        assert_eq!(c.rejected, vec![0]);
        assert_eq!(c.failed, 0);
        assert_eq!(c.errors.len(), 1);
        assert_eq!(c.errors[0].kind, "item 429 es_rejected_execution_exception");
        assert_eq!(
            c.errors[0].example,
            "rejected execution of coordinating operation"
        );
        let mapper = REAL.replace("429", "400").replace(
            "es_rejected_execution_exception",
            "mapper_parsing_exception",
        );
        let c = classify(200, mapper.as_bytes(), 3);
        assert_eq!(
            (c.acked, c.failed),
            (1, 2),
            "one 400 item and one missing item"
        );
        assert!(c.rejected.is_empty());
    }

    #[test]
    fn whole_request_statuses() {
        let c = classify(429, b"Too Many Requests", 5);
        assert_eq!(c.outcome, RequestOutcome::Http429);
        assert_eq!(c.rejected, vec![0, 1, 2, 3, 4]);
        assert_eq!(c.errors[0].kind, "http 429");
        let c = classify(503, &vec![b'e'; 1000], 5);
        assert_eq!(c.outcome, RequestOutcome::HttpOther);
        assert_eq!(c.failed, 5);
        assert_eq!(c.errors[0].example.len(), EXAMPLE_LEN);
    }
}
