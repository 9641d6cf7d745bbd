//! The supervision of one run, on the engine's runtime: one tokio task per client (see
//! client.rs), a collector that swaps the workers' interval records every interval and
//! merges them, the duration deadline, the drain timeout after a stop, and the totals.

use crate::client::Client;
use crate::http::{Connection, RequestTemplate, TlsTarget};
use crate::interval::{Interval, Record, SharedRecord};
use crate::response::ErrorEvent;
use crate::run::{StopReason, Totals};
use crate::shared::{lock, Shared};
use crate::spec::Spec;
use std::sync::atomic::Ordering::*;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio::time::sleep_until;

struct Collector {
    records: Vec<SharedRecord>,
    spare: Record,
    merged: Record,
    total: Record,
    index: u64,
    start: Instant,
    last: Instant,
    tx: mpsc::Sender<Interval>,
    shared: Arc<Shared>,
}

impl Collector {
    fn emit(&mut self, now: Instant) {
        self.merged.reset();
        for r in &self.records {
            std::mem::swap(&mut *lock(r), &mut self.spare);
            self.merged.add(&self.spare);
            self.spare.reset();
        }
        self.total.add(&self.merged);
        let interval = Interval {
            index: self.index,
            start_s: (self.last - self.start).as_secs_f64(),
            duration_s: (now - self.last).as_secs_f64(),
            counters: self.merged.counters,
            service: self.merged.service.summary(),
            response: self.merged.response.summary(),
        };
        self.index += 1;
        self.last = now;
        self.shared.intervals_sent.fetch_add(1, AcqRel);
        let _ = self.tx.send(interval); // the receiver may be gone; the totals still count
    }
}

pub(crate) async fn run(
    spec: Arc<Spec>,
    shared: Arc<Shared>,
    tx: mpsc::Sender<Interval>,
) -> Totals {
    let start = Instant::now();
    let targets = spec.parsed_targets();
    let mut clients = JoinSet::new();
    let mut records = Vec::new();
    for i in 0..spec.clients {
        let record = SharedRecord::default();
        records.push(record.clone());
        let target = &targets[i as usize % targets.len()];
        let template = RequestTemplate::new(&target.authority, &spec.bulk_path, &spec.headers);
        let tls = target.tls_name.as_ref().map(|name| {
            let config = spec.tls_config.clone().expect("compiled for https targets");
            TlsTarget::new(config, name.clone())
        });
        let timeout = Duration::from_secs_f64(spec.request_timeout_s);
        let client = Client {
            spec: spec.clone(),
            shared: shared.clone(),
            record,
            conn: Connection::new(template, tls, timeout),
        };
        clients.spawn(client.run(i, start));
    }
    let mut collector = Collector {
        records,
        spare: Record::default(),
        merged: Record::default(),
        total: Record::default(),
        index: 0,
        start,
        last: start,
        tx,
        shared: shared.clone(),
    };
    let every = spec.interval();
    let mut ticker = tokio::time::interval_at((start + every).into(), every);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let deadline = spec
        .stop
        .duration_s
        .map(|d| start + Duration::from_secs_f64(d));
    let far = start + Duration::from_secs(100 * 365 * 86_400);
    let mut stop_rx = shared.stop_tx.subscribe();
    let mut drain_until: Option<Instant> = None;
    let mut abandoned = 0;
    while !clients.is_empty() {
        tokio::select! {
            _ = ticker.tick() => collector.emit(Instant::now()),
            Some(res) = clients.join_next() => {
                if let Err(e) = res {
                    lock(&shared.errors).note(&[ErrorEvent {
                        kind: "engine panic".into(),
                        count: 1,
                        example: e.to_string(),
                    }]);
                }
            }
            _ = sleep_until(deadline.unwrap_or(far).into()), if drain_until.is_none() => {
                shared.request_stop(StopReason::Duration);
            }
            _ = stop_rx.wait_for(|s| *s), if drain_until.is_none() => {
                drain_until = Some(Instant::now() + Duration::from_secs_f64(spec.drain_timeout_s));
            }
            _ = sleep_until(drain_until.unwrap_or(far).into()), if drain_until.is_some() => {
                abandoned = shared.in_flight.load(Acquire);
                clients.abort_all();
                while clients.join_next().await.is_some() {}
            }
        }
    }
    let end = Instant::now();
    collector.emit(end);
    let total = &collector.total;
    Totals {
        elapsed_s: (end - start).as_secs_f64(),
        stopped_by: shared.stopped_by(),
        in_flight_abandoned: abandoned,
        counters: total.counters,
        service: total.service.summary(),
        response: total.response.summary(),
        errors: lock(&shared.errors).samples(),
    }
}
