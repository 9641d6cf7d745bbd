//! The supervision of one run, on the engine's runtime: one tokio task per client (see
//! client.rs) sending to the run's shared targets (targets.rs) and recording into a bounded
//! set of shared interval records, a collector that
//! swaps those records every interval and merges them, the duration deadline, the drain
//! timeout after a stop, and the totals.

use crate::client::Client;
use crate::clock::RunClock;
use crate::interval::{Interval, Record, SharedRecord};
use crate::response::ErrorEvent;
use crate::run::{StopReason, Totals};
use crate::shared::{lock, Shared};
use crate::spec::Spec;
use crate::targets::Targets;
use std::sync::atomic::Ordering::*;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio::time::sleep_until;

/// Interval records per worker thread. A record holds three histograms of ~184 KiB each, so
/// one per client would need ~55 GB for 100,000 clients; shared records keep memory bounded
/// (at most 1,024 records at 256 threads). Clients lock their record once per request, and at
/// most `threads` of them run at once, so 4 records per thread keep lock collisions rare.
const RECORDS_PER_THREAD: u32 = 4;

/// How many interval records the clients share: client i records into record i % count.
pub(crate) fn record_count(clients: u32, threads: u32) -> usize {
    clients
        .min(threads.saturating_mul(RECORDS_PER_THREAD))
        .max(1) as usize
}

struct Collector {
    records: Vec<SharedRecord>,
    spare: Record,
    merged: Record,
    total: Record,
    index: u64,
    clock: RunClock,
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
            start_s: self.clock.offset_s(self.last),
            start_unix_s: self.clock.unix_s(self.last),
            duration_s: (now - self.last).as_secs_f64(),
            counters: self.merged.counters,
            service: self.merged.service.summary(),
            response: self.merged.response.summary(),
            failed_service: self.merged.failed_service.summary(),
            schedule_lag_max_ms: self.merged.schedule_lag_max_ms(),
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
    let clock = RunClock::now();
    let start = clock.start;
    let targets = Arc::new(Targets::new(&spec));
    let unreachable_after = Duration::from_secs_f64(spec.unreachable_timeout_s);
    let mut clients = JoinSet::new();
    let records: Vec<SharedRecord> = (0..record_count(spec.clients, spec.threads))
        .map(|_| SharedRecord::default())
        .collect();
    for i in 0..spec.clients {
        let record = records[i as usize % records.len()].clone();
        let client = Client::new(spec.clone(), shared.clone(), record, targets.clone(), i);
        clients.spawn(client.run(i, start));
    }
    let mut collector = Collector {
        records,
        spare: Record::default(),
        merged: Record::default(),
        total: Record::default(),
        index: 0,
        clock,
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
            _ = ticker.tick() => {
                let now = Instant::now();
                collector.emit(now);
                // A run whose every target has been down this long gives up, rather than
                // wait for ever (a `stop.docs` run would have no other end).
                if targets.all_down_for(now).is_some_and(|down| down >= unreachable_after) {
                    shared.request_stop(StopReason::Unreachable);
                }
            }
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
        started_unix_s: clock.started_unix_s,
        elapsed_s: (end - start).as_secs_f64(),
        stopped_by: shared.stopped_by(),
        in_flight_abandoned: abandoned,
        counters: total.counters,
        service: total.service.summary(),
        response: total.response.summary(),
        failed_service: total.failed_service.summary(),
        schedule_lag_max_ms: total.schedule_lag_max_ms(),
        errors: lock(&shared.errors).samples(),
        target_errors: targets.errors(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Runner;
    use crate::sink::NullSink;

    #[test]
    fn clients_share_at_most_four_records_per_thread() {
        assert_eq!(record_count(100_000, 8), 32);
        assert_eq!(record_count(100_000, 256), 1024);
        assert_eq!(record_count(3, 8), 3, "never more records than clients");
        assert_eq!(record_count(1, 0), 1);
        let spec = Spec::from_json(
            r#"{"targets": ["http://127.0.0.1:9200"], "bulk_path": "/x/_bulk",
            "generator": {"kind": "systembase", "variant": "bulk", "seed": 1},
            "bulk": {"docs": 1000}, "clients": 100000, "schedule": {"kind": "closed"},
            "stop": {"duration_s": 60.0}, "interval_s": 1.0, "retry": {"kind": "none"},
            "threads": 4, "request_timeout_s": 5.0, "drain_timeout_s": 5.0}"#,
        )
        .unwrap();
        assert_eq!(record_count(spec.clients, spec.threads), 4 * 4);
    }

    /// 50 clients over 8 shared records: the collector must sum every record, every interval.
    #[test]
    fn shared_records_add_up_to_what_the_sink_saw() {
        let sink = NullSink::start(0, 2).unwrap();
        let spec = format!(
            r#"{{"targets": ["http://127.0.0.1:{}"], "bulk_path": "/x/_bulk",
            "generator": {{"kind": "systembase", "variant": "bulk", "seed": 1}},
            "bulk": {{"docs": 10}}, "clients": 50, "schedule": {{"kind": "closed"}},
            "stop": {{"docs": 20000}}, "interval_s": 0.05, "retry": {{"kind": "none"}},
            "threads": 2, "request_timeout_s": 10.0, "drain_timeout_s": 5.0}}"#,
            sink.port()
        );
        let r = Runner::new(&spec).unwrap();
        r.start().unwrap();
        let t = r.finish().unwrap();
        let c = t.counters;
        assert_eq!(t.stopped_by, StopReason::Docs);
        assert_eq!((c.requests, c.docs_acked), (sink.requests(), sink.docs()));
        assert_eq!((c.requests, c.docs_acked), (2000, 20_000));
        assert_eq!(t.service.count, 2000);
        let mut intervals = Vec::new();
        while let Some(iv) = r.next_interval(Duration::ZERO) {
            intervals.push(iv);
        }
        let mut summed = crate::Counters::default();
        for iv in &intervals {
            summed.add(&iv.counters);
            // one clock: wall times are the run's wall start plus the monotonic offset
            assert!((iv.start_unix_s - (t.started_unix_s + iv.start_s)).abs() < 1e-6);
        }
        assert_eq!(summed, c);
        let lag_max = intervals.iter().map(|iv| iv.schedule_lag_max_ms);
        assert_eq!(lag_max.fold(0.0, f64::max), t.schedule_lag_max_ms);
        assert!(c.schedule_lag_us <= (t.schedule_lag_max_ms * 1000.0).round() as u64 * c.requests);
    }
}
