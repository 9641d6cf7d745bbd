//! Bulk response classification: how a request ended and what became of each item (scan,
//! don't parse, on success; parse only a response that reports item errors).

use serde::Deserialize;

/// How a request as a whole ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    Ok,
    ItemErrors,
    Http429,
    HttpOther,
    /// Sent, and no HTTP answer: the connection broke or the request timed out.
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
    /// Sent, but no answer came: the cluster may or may not have applied them.
    pub unknown: u64,
    pub errors: Vec<ErrorEvent>,
}

impl Classified {
    /// A request of `n` items that was sent and got no answer (`message` says why).
    pub fn no_answer(n: usize, message: String) -> Classified {
        Classified {
            outcome: RequestOutcome::Transport,
            acked: 0,
            rejected: Vec::new(),
            failed: 0,
            unknown: n as u64,
            errors: vec![ErrorEvent {
                kind: "transport".into(),
                count: 1,
                example: message,
            }],
        }
    }
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
        unknown: 0,
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

    const REAL: &str = r#"{"took":30,"errors":true,"items":[{"index":{"_index":"systembase","_id":"x","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation"}}},{"index":{"_index":"systembase","_id":"y","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}]}"#;

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
