//! One client: one task, the one engine loop shared by every load model (due -> wait ->
//! build -> send -> record), retries of rejected items, and delivery: to its home target
//! when it is up, else to the next live one (see targets.rs), with one keep-alive connection
//! per target it uses. A bulk nobody received is sent again; one that may have been received
//! is never sent twice.

use crate::bulk::{Bulk, BulkBuilder};
use crate::failover::{fate, Fate};
use crate::generate::source_for;
use crate::http::{Answer, Conn, Failure};
use crate::interval::{Attempt, SharedRecord};
use crate::response::{classify, Classified, ErrorEvent};
use crate::schedule::Schedule;
use crate::shared::{lock, RunBudget, Shared};
use crate::spec::{RetrySpec, Spec};
use crate::targets::Targets;
use bytes::Bytes;
use std::sync::atomic::Ordering::AcqRel;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::time::sleep_until;

pub(crate) struct Client {
    spec: Arc<Spec>,
    shared: Arc<Shared>,
    record: SharedRecord,
    targets: Arc<Targets>,
    /// Client i's home is target i % n.
    home: usize,
    /// One keep-alive connection per target, made when first needed.
    conns: Vec<Option<Conn>>,
    stop_rx: watch::Receiver<bool>,
}

/// A request that was sent: when, and its answer or why there was none.
struct Delivery {
    sent: Instant,
    answered: Instant,
    answer: Result<Answer, String>,
}

impl Client {
    pub(crate) fn new(
        spec: Arc<Spec>,
        shared: Arc<Shared>,
        record: SharedRecord,
        targets: Arc<Targets>,
        index: u32,
    ) -> Client {
        let stop_rx = shared.stop_tx.subscribe();
        Client {
            spec,
            shared,
            record,
            home: index as usize % targets.len(),
            conns: (0..targets.len()).map(|_| None).collect(),
            targets,
            stop_rx,
        }
    }

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
        while !self.shared.stopping() {
            let now = Instant::now();
            let due = schedule.next_due(now);
            if due > now {
                tokio::select! {
                    _ = sleep_until(due.into()) => {}
                    _ = self.stop_rx.wait_for(|s| *s) => break,
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
    /// of attempts. Every attempt sent is recorded as a request, with its schedule lag (due
    /// -> sent): for the first attempt that is building the bulk, any lateness behind the
    /// schedule, and any wait for a live target; a retry is due when its backoff ends.
    /// Retries are included so that `schedule_lag_us / requests` is the mean over requests.
    /// Returns the last bulk sent, whose buffers the builder reuses.
    async fn send(&mut self, mut bulk: Bulk, mut due: Instant) -> Bulk {
        let mut attempt = 1u32;
        let mut unsettled = Unsettled::new(self.record.clone(), bulk.docs());
        loop {
            let Some(delivery) = self.deliver(&bulk.body, &mut unsettled).await else {
                return bulk; // not sent before the run stopped: `unsettled` records it
            };
            let n = bulk.items.len();
            let (classified, bytes_received) = match delivery.answer {
                Ok(a) => (classify(a.status, &a.body, n), a.body.len() as u64),
                Err(message) => (Classified::no_answer(n, message), 0),
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
                service: delivery.answered - delivery.sent,
                response: delivery.answered.saturating_duration_since(due),
                schedule_lag: delivery.sent.saturating_duration_since(due),
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
                unsettled.settle();
                return bulk;
            };
            unsettled.await_retry(classified.rejected.len() as u64);
            tokio::time::sleep(backoff).await;
            bulk = bulk.subset(&classified.rejected);
            // A retry is due when its backoff ends.
            due = Instant::now();
            attempt += 1;
        }
    }

    /// Send `body` to a target that takes it: None if none did before the run stopped.
    /// Connections refused, and requests a closed connection handed back unwritten, are not
    /// requests: the same body goes to the next pick.
    async fn deliver(&mut self, body: &Bytes, unsettled: &mut Unsettled) -> Option<Delivery> {
        let targets = self.targets.clone();
        loop {
            let pick = targets.pick(self.home, &mut self.stop_rx).await?;
            let j = pick.target;
            let endpoint = targets.endpoint(j);
            // A probe always connects anew: a connection from before the target went down
            // says nothing about it now.
            let mut reused = self.conns[j].take().filter(|_| !pick.probe);
            if let Some(conn) = reused.as_mut() {
                if !conn.ready().await {
                    reused = None; // closed while idle: reconnect
                }
            }
            let fresh = reused.is_none();
            let mut conn = match reused {
                Some(conn) => conn,
                None => match endpoint.connect().await {
                    Ok(conn) => {
                        targets.connected(j, pick.probe);
                        conn
                    }
                    Err(failure) => {
                        self.connect_error(j, pick.probe, &failure);
                        continue;
                    }
                },
            };
            unsettled.sent = true;
            let sent = Instant::now();
            let result = endpoint.post(&mut conn, body.clone()).await;
            let answered = Instant::now();
            let failure = match result {
                Ok(answer) => {
                    self.conns[j] = Some(conn);
                    targets.answered(j);
                    return Some(Delivery {
                        sent,
                        answered,
                        answer: Ok(answer),
                    });
                }
                Err(failure) => failure,
            };
            match fate(&failure, fresh) {
                Fate::Resend { connect_error } => {
                    unsettled.sent = false;
                    if connect_error {
                        self.connect_error(j, false, &failure);
                    }
                }
                Fate::Unknown { target_down } => {
                    targets.no_answer(j, target_down);
                    return Some(Delivery {
                        sent,
                        answered,
                        answer: Err(failure.to_string()),
                    });
                }
            }
        }
    }

    fn connect_error(&self, target: usize, probe: bool, failure: &Failure) {
        self.targets.connect_failed(target, probe);
        lock(&self.record).counters.connect_errors += 1;
        lock(&self.shared.errors).note(&[ErrorEvent {
            kind: "connect".into(),
            count: 1,
            example: failure.to_string(),
        }]);
    }
}

/// The documents of one bulk until their fate is recorded. Dropped unsettled (no target
/// took the bulk before the run stopped, or the drain timeout aborted its client), it records
/// them as unknown if the body was on a connection, as rejected if a 429 left them awaiting a
/// retry, otherwise as not sent.
struct Unsettled {
    record: SharedRecord,
    docs: u64,
    sent: bool,
    rejected: bool,
}

impl Unsettled {
    fn new(record: SharedRecord, docs: u64) -> Unsettled {
        Unsettled {
            record,
            docs,
            sent: false,
            rejected: false,
        }
    }

    /// `docs` were answered 429 and will be sent again.
    fn await_retry(&mut self, docs: u64) {
        (self.docs, self.sent, self.rejected) = (docs, false, true);
    }

    /// Recorded with their answer.
    fn settle(mut self) {
        self.docs = 0;
    }
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        if self.docs == 0 {
            return;
        }
        let c = &mut lock(&self.record).counters;
        if self.sent {
            c.docs_unknown += self.docs;
        } else if self.rejected {
            c.docs_rejected += self.docs;
        } else {
            c.docs_not_sent += self.docs;
        }
    }
}
