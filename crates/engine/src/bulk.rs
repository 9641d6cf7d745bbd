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

/// Builds bodies, reusing its size estimate between bulks so the buffer is allocated once
/// at the right size.
pub struct BulkBuilder {
    size: BulkSize,
    capacity_hint: usize,
}

impl BulkBuilder {
    pub fn new(size: BulkSize) -> BulkBuilder {
        BulkBuilder {
            size,
            capacity_hint: 64 * 1024,
        }
    }

    /// Generate a full bulk (by docs or by bytes), then keep only the first `allow(n)` items,
    /// where `allow` claims up to n docs (e.g. from the run's shared doc budget). Returns
    /// None when nothing could be claimed.
    pub fn build(
        &mut self,
        src: &mut dyn DocSource,
        allow: impl FnOnce(u64) -> u64,
    ) -> Option<Bulk> {
        // The clock is read once per bulk, not per document: per-document clock reads made
        // generation 2.5x more expensive when measured, and all docs of a bulk are sent
        // together anyway.
        let ts = Timestamp::now();
        let mut body = Vec::with_capacity(self.capacity_hint);
        let mut items = Vec::with_capacity(self.size.docs.unwrap_or(64).min(1 << 20) as usize);
        loop {
            let start = body.len() as u32;
            body.extend_from_slice(ACTION);
            src.write_doc(&ts, &mut body);
            items.push(start..body.len() as u32);
            let full = match (self.size.docs, self.size.bytes) {
                (Some(n), _) => items.len() as u64 >= n,
                (None, Some(b)) => body.len() as u64 >= b,
                (None, None) => true,
            };
            if full {
                break;
            }
        }
        self.capacity_hint = self.capacity_hint.max(body.len() + body.len() / 8);
        let granted = allow(items.len() as u64) as usize;
        if granted == 0 {
            return None;
        }
        if granted < items.len() {
            items.truncate(granted);
            body.truncate(items[granted - 1].end as usize);
        }
        Some(Bulk {
            body: Bytes::from(body),
            items,
        })
    }
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
        let b = builder.build(&mut src(), |n| n).unwrap();
        assert_eq!(b.docs(), 1000);
        check_ndjson(&b);
    }

    #[test]
    fn by_bytes_reaches_the_size_and_no_more_than_one_doc_over() {
        let mut builder = BulkBuilder::new(size(None, Some(100_000)));
        let b = builder.build(&mut src(), |n| n).unwrap();
        assert!(b.body.len() >= 100_000);
        let last = b.items.last().unwrap();
        assert!((last.start as usize) < 100_000);
        check_ndjson(&b);
        let tiny = BulkBuilder::new(size(None, Some(1)))
            .build(&mut src(), |n| n)
            .unwrap();
        assert_eq!(tiny.docs(), 1);
    }

    #[test]
    fn claims_truncate_and_zero_claim_is_none() {
        let mut builder = BulkBuilder::new(size(Some(100), None));
        let b = builder.build(&mut src(), |n| n.min(37)).unwrap();
        assert_eq!(b.docs(), 37);
        check_ndjson(&b);
        assert!(builder.build(&mut src(), |_| 0).is_none());
    }

    #[test]
    fn subset_rebuilds_only_chosen_items() {
        let b = BulkBuilder::new(size(Some(10), None))
            .build(&mut src(), |n| n)
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
