//! Interval records (each shared by a few clients, locked once per request, swapped out by
//! the collector every interval), the merged `Interval`, and the bounded error sample log.

use crate::histogram::{Latency, LatencySummary};
use crate::response::{Classified, ErrorEvent, RequestOutcome};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Exact counts for one interval or the whole run. Every document generated ends in exactly
/// one of acked, rejected, failed, unknown or not sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Requests whose body was (at least partly) sent, answered or not.
    pub requests: u64,
    pub requests_ok: u64,
    pub requests_item_errors: u64,
    pub requests_http_429: u64,
    pub requests_http_other: u64,
    pub requests_transport: u64,
    pub docs_sent: u64,
    pub docs_acked: u64,
    pub docs_rejected: u64,
    pub docs_failed: u64,
    /// Sent, then no answer (connection broken, request timed out, or abandoned at the drain
    /// timeout): the cluster may or may not have applied them.
    pub docs_unknown: u64,
    /// Generated, and never sent: no target took a connection before the run stopped.
    pub docs_not_sent: u64,
    /// Connections that could not be made (refused, timed out, TLS handshake failed); not
    /// requests.
    pub connect_errors: u64,
    pub retries: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Summed over requests: how late each was sent after it was due, in µs.
    pub schedule_lag_us: u64,
}

impl Counters {
    pub fn add(&mut self, o: &Counters) {
        self.requests += o.requests;
        self.requests_ok += o.requests_ok;
        self.requests_item_errors += o.requests_item_errors;
        self.requests_http_429 += o.requests_http_429;
        self.requests_http_other += o.requests_http_other;
        self.requests_transport += o.requests_transport;
        self.docs_sent += o.docs_sent;
        self.docs_acked += o.docs_acked;
        self.docs_rejected += o.docs_rejected;
        self.docs_failed += o.docs_failed;
        self.docs_unknown += o.docs_unknown;
        self.docs_not_sent += o.docs_not_sent;
        self.connect_errors += o.connect_errors;
        self.retries += o.retries;
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.schedule_lag_us += o.schedule_lag_us;
    }
}

/// What one worker saw since the last swap.
#[derive(Debug, Clone, Default)]
pub struct Record {
    pub counters: Counters,
    /// Requests answered 2xx (item errors included).
    pub service: Latency,
    pub response: Latency,
    /// Requests answered with any other status: their service time, kept apart.
    pub failed_service: Latency,
    /// The largest single schedule lag, in µs.
    pub schedule_lag_max_us: u64,
}

impl Record {
    pub fn reset(&mut self) {
        self.counters = Counters::default();
        self.service.reset();
        self.response.reset();
        self.failed_service.reset();
        self.schedule_lag_max_us = 0;
    }

    pub fn add(&mut self, o: &Record) {
        self.counters.add(&o.counters);
        self.service.add(&o.service);
        self.response.add(&o.response);
        self.failed_service.add(&o.failed_service);
        self.schedule_lag_max_us = self.schedule_lag_max_us.max(o.schedule_lag_max_us);
    }

    pub fn schedule_lag_max_ms(&self) -> f64 {
        self.schedule_lag_max_us as f64 / 1000.0
    }
}

pub type SharedRecord = Arc<Mutex<Record>>;

/// One attempt (a request or a retry) that was sent, as the worker records it.
pub struct Attempt<'a> {
    pub docs: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub service: Duration,
    pub response: Duration,
    /// Due -> sent: how far the client fell behind its schedule for this attempt.
    pub schedule_lag: Duration,
    pub classified: &'a Classified,
    /// Docs still rejected after this attempt that will not be retried (final).
    pub final_rejected: u64,
    /// A retry of the rejected items follows.
    pub retry_follows: bool,
}

impl Record {
    pub fn record(&mut self, a: &Attempt<'_>) {
        let c = &mut self.counters;
        c.requests += 1;
        match a.classified.outcome {
            RequestOutcome::Ok => c.requests_ok += 1,
            RequestOutcome::ItemErrors => c.requests_item_errors += 1,
            RequestOutcome::Http429 => c.requests_http_429 += 1,
            RequestOutcome::HttpOther => c.requests_http_other += 1,
            RequestOutcome::Transport => c.requests_transport += 1,
        }
        c.docs_sent += a.docs;
        c.docs_acked += a.classified.acked;
        c.docs_failed += a.classified.failed;
        c.docs_unknown += a.classified.unknown;
        c.docs_rejected += a.final_rejected;
        c.retries += u64::from(a.retry_follows);
        c.bytes_sent += a.bytes_sent;
        c.bytes_received += a.bytes_received;
        let lag_us = u64::try_from(a.schedule_lag.as_micros()).unwrap_or(u64::MAX);
        c.schedule_lag_us = c.schedule_lag_us.saturating_add(lag_us);
        self.schedule_lag_max_us = self.schedule_lag_max_us.max(lag_us);
        // Only answers have a latency; a refused or broken connection says nothing of the
        // cluster's speed.
        match a.classified.outcome {
            RequestOutcome::Ok | RequestOutcome::ItemErrors => {
                self.service.record(a.service);
                self.response.record(a.response);
            }
            RequestOutcome::Http429 | RequestOutcome::HttpOther => {
                self.failed_service.record(a.service)
            }
            RequestOutcome::Transport => {}
        }
    }
}

/// One interval, merged over all workers.
#[derive(Debug, Clone)]
pub struct Interval {
    pub index: u64,
    /// Seconds since the run started.
    pub start_s: f64,
    /// The same start on the wall clock (seconds since the Unix epoch), for telemetry.
    pub start_unix_s: f64,
    pub duration_s: f64,
    pub counters: Counters,
    pub service: LatencySummary,
    pub response: LatencySummary,
    pub failed_service: LatencySummary,
    pub schedule_lag_max_ms: f64,
}

/// One kind of error, how often, and the first message seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorSample {
    pub kind: String,
    pub count: u64,
    pub example: String,
}

pub const MAX_ERROR_KINDS: usize = 20;

/// The first `MAX_ERROR_KINDS` distinct kinds; later kinds are not kept.
#[derive(Debug, Default)]
pub struct ErrorLog {
    samples: Vec<ErrorSample>,
}

impl ErrorLog {
    pub fn note(&mut self, events: &[ErrorEvent]) {
        for e in events {
            if let Some(s) = self.samples.iter_mut().find(|s| s.kind == e.kind) {
                s.count += e.count;
            } else if self.samples.len() < MAX_ERROR_KINDS {
                self.samples.push(ErrorSample {
                    kind: e.kind.clone(),
                    count: e.count,
                    example: crate::response::cut(&e.example),
                });
            }
        }
    }

    pub fn samples(&self) -> Vec<ErrorSample> {
        self.samples.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_log_is_bounded_and_counts() {
        let mut log = ErrorLog::default();
        for k in 0..30 {
            log.note(&[ErrorEvent {
                kind: format!("k{k}"),
                count: 2,
                example: "x".repeat(1000),
            }]);
        }
        log.note(&[ErrorEvent {
            kind: "k3".into(),
            count: 5,
            example: "later".into(),
        }]);
        let s = log.samples();
        assert_eq!(s.len(), MAX_ERROR_KINDS);
        assert_eq!(s[3].count, 7);
        assert_eq!(s[3].example.len(), 300);
    }

    #[test]
    fn records_merge() {
        let mut a = Record::default();
        let mut b = Record::default();
        a.counters.requests = 2;
        b.counters.requests = 3;
        b.service.record(Duration::from_millis(1));
        a.schedule_lag_max_us = 900;
        b.schedule_lag_max_us = 2500;
        a.add(&b);
        assert_eq!(a.counters.requests, 5);
        assert_eq!(a.service.count(), 1);
        assert_eq!(a.schedule_lag_max_ms(), 2.5, "merging takes the max");
        a.reset();
        assert_eq!(a.counters, Counters::default());
        assert_eq!(a.service.count(), 0);
        assert_eq!(a.schedule_lag_max_us, 0);
    }

    #[test]
    fn schedule_lag_is_summed_and_its_max_kept() {
        let ok = Classified {
            outcome: RequestOutcome::Ok,
            acked: 1,
            rejected: Vec::new(),
            failed: 0,
            unknown: 0,
            errors: Vec::new(),
        };
        let mut r = Record::default();
        for lag_us in [300, 4_000, 1_200] {
            r.record(&Attempt {
                docs: 1,
                bytes_sent: 10,
                bytes_received: 10,
                service: Duration::from_millis(2),
                response: Duration::from_millis(3),
                schedule_lag: Duration::from_micros(lag_us),
                classified: &ok,
                final_rejected: 0,
                retry_follows: false,
            });
        }
        assert_eq!(r.counters.schedule_lag_us, 5_500);
        assert_eq!(r.schedule_lag_max_ms(), 4.0);
    }

    #[test]
    fn only_answers_have_latencies_and_failed_answers_are_kept_apart() {
        let mut r = Record::default();
        // Below 2 ms, so the histograms hold them exactly.
        let mut attempt = |classified: &Classified, service_us: u64| {
            r.record(&Attempt {
                docs: 10,
                bytes_sent: 100,
                bytes_received: 0,
                service: Duration::from_micros(service_us),
                response: Duration::from_micros(service_us + 100),
                schedule_lag: Duration::ZERO,
                classified,
                final_rejected: classified.rejected.len() as u64,
                retry_follows: false,
            })
        };
        attempt(
            &crate::response::classify(200, br#"{"errors":false}"#, 10),
            1500,
        );
        attempt(&crate::response::classify(429, b"", 10), 500);
        attempt(&crate::response::classify(503, b"", 10), 700);
        attempt(&Classified::no_answer(10, "connection reset".into()), 0);
        let c = r.counters;
        assert_eq!((c.requests, c.requests_transport, c.docs_sent), (4, 1, 40));
        let fates = (c.docs_acked, c.docs_rejected, c.docs_failed, c.docs_unknown);
        assert_eq!(fates, (10, 10, 10, 10));
        assert_eq!((r.service.count(), r.response.count()), (1, 1));
        assert_eq!(r.service.summary().max_ms, 1.5);
        let failed = r.failed_service.summary();
        assert_eq!((failed.count, failed.min_ms, failed.max_ms), (2, 0.5, 0.7));
    }
}
