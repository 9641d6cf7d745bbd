//! One client: one task, one keep-alive connection, and the one engine loop shared by every
//! load model (due -> wait -> build -> send -> record), with retries of rejected items.

use crate::bulk::{Bulk, BulkBuilder};
use crate::generate::source_for;
use crate::http::Connection;
use crate::interval::{Attempt, SharedRecord};
use crate::response::{classify, Classified, ErrorEvent, RequestOutcome};
use crate::schedule::Schedule;
use crate::shared::{lock, RunBudget, Shared};
use crate::spec::{RetrySpec, Spec};
use std::sync::atomic::Ordering::AcqRel;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::time::sleep_until;

pub(crate) struct Client {
    pub(crate) spec: Arc<Spec>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) record: SharedRecord,
    pub(crate) conn: Connection,
}

impl Client {
    /// The one engine loop, for every load model: due -> wait -> build -> send -> record.
    pub(crate) async fn run(mut self, index: u32, start: Instant) {
        let spec = self.spec.clone();
        let mut source = source_for(&spec.generator, index);
        let mut builder = BulkBuilder::new(spec.bulk);
        let mut schedule = Schedule::new(
            spec.schedule,
            spec.clients,
            index,
            spec.generator.seed,
            start,
        );
        let mut stop_rx = self.shared.stop_tx.subscribe();
        while !self.shared.stopping() {
            let now = Instant::now();
            let due = schedule.next_due(now);
            if due > now {
                tokio::select! {
                    _ = sleep_until(due.into()) => {}
                    _ = stop_rx.wait_for(|s| *s) => break,
                }
            }
            if self.shared.stopping() {
                break;
            }
            let shared = &self.shared;
            let Some(bulk) = builder.build(source.as_mut(), &mut RunBudget(shared)) else {
                break;
            };
            shared.in_flight.fetch_add(1, AcqRel);
            let answered = self.send(bulk, due).await;
            builder.recycle(answered);
            self.shared.in_flight.fetch_sub(1, AcqRel);
        }
    }

    /// Send one bulk; with retry backoff, resend its 429-rejected items until accepted or out
    /// of attempts. Every attempt is recorded as a request, with its schedule lag (due ->
    /// sent): for the first attempt that is building the bulk plus any lateness behind the
    /// schedule; a retry is due when its backoff ends, so its lag is only the wake-up delay.
    /// Retries are included so that `schedule_lag_us / requests` is the mean over requests.
    /// Returns the last bulk sent, whose buffers the builder reuses.
    async fn send(&mut self, mut bulk: Bulk, mut due: Instant) -> Bulk {
        let mut attempt = 1u32;
        loop {
            let sent = Instant::now();
            let result = self.conn.post(bulk.body.clone()).await;
            let answered = Instant::now();
            let n = bulk.items.len();
            let (classified, bytes_received) = match result {
                Ok(a) => (classify(a.status, &a.body, n), a.body.len() as u64),
                Err(e) => (
                    Classified {
                        outcome: RequestOutcome::Transport,
                        acked: 0,
                        rejected: Vec::new(),
                        failed: n as u64,
                        errors: vec![ErrorEvent {
                            kind: "transport".into(),
                            count: 1,
                            example: e.0,
                        }],
                    },
                    0,
                ),
            };
            let backoff = match self.spec.retry {
                RetrySpec::Backoff {
                    max_attempts,
                    initial_ms,
                    max_ms,
                } if !classified.rejected.is_empty() && attempt < max_attempts => {
                    let ms = initial_ms.saturating_mul(1u64 << (attempt - 1).min(40));
                    Some(Duration::from_millis(ms.min(max_ms)))
                }
                _ => None,
            };
            lock(&self.record).record(&Attempt {
                docs: n as u64,
                bytes_sent: bulk.body.len() as u64,
                bytes_received,
                service: answered - sent,
                response: answered.saturating_duration_since(due),
                schedule_lag: sent.saturating_duration_since(due),
                classified: &classified,
                final_rejected: if backoff.is_some() {
                    0
                } else {
                    classified.rejected.len() as u64
                },
                retry_follows: backoff.is_some(),
            });
            if !classified.errors.is_empty() {
                lock(&self.shared.errors).note(&classified.errors);
            }
            let Some(backoff) = backoff else {
                return bulk;
            };
            tokio::time::sleep(backoff).await;
            bulk = bulk.subset(&classified.rejected);
            // A retry is due when its backoff ends.
            due = Instant::now();
            attempt += 1;
        }
    }
}
