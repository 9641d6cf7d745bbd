//! The state one run shares between the caller, the collector and the clients: the stop
//! flag (and its watch channel) with the first stop reason, the `stop.docs` budget that
//! builders claim from and settle with, the in-flight bulk count and the error log.

use crate::bulk::DocBudget;
use crate::interval::ErrorLog;
use crate::run::StopReason;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::*};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::watch;

/// State shared by the caller, the collector and the clients.
pub(crate) struct Shared {
    pub(crate) stop_tx: watch::Sender<bool>,
    stopping: AtomicBool,
    stopped_by: AtomicU8,
    /// The doc budget, when the run stops after a number of docs.
    docs: Option<DocsBudget>,
    /// Bulks (with their retries) started and not yet finished.
    pub(crate) in_flight: AtomicU64,
    pub(crate) errors: Mutex<ErrorLog>,
    /// Intervals handed to the caller's channel by the collector.
    pub(crate) intervals_sent: AtomicU64,
    /// Set once the engine thread has ended, however it ended.
    pub(crate) done: AtomicBool,
}

impl Shared {
    /// A run not yet stopped, with `docs` as its doc budget (`stop.docs`), if any.
    pub(crate) fn new(docs: Option<u64>) -> Shared {
        let (stop_tx, _) = watch::channel(false);
        Shared {
            stop_tx,
            stopping: AtomicBool::new(false),
            stopped_by: AtomicU8::new(0),
            docs: docs.map(|total| DocsBudget {
                total,
                left: AtomicU64::new(total),
                used: AtomicU64::new(0),
            }),
            in_flight: AtomicU64::new(0),
            errors: Mutex::new(ErrorLog::default()),
            intervals_sent: AtomicU64::new(0),
            done: AtomicBool::new(false),
        }
    }

    /// First reason wins; later calls (e.g. `stop()` twice) change nothing.
    pub(crate) fn request_stop(&self, why: StopReason) {
        let _ = self
            .stopped_by
            .compare_exchange(0, why as u8, AcqRel, Acquire);
        self.stopping.store(true, Release);
        self.stop_tx.send_replace(true);
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(Acquire)
    }

    /// Claim up to `n` docs from the run's budget.
    pub(crate) fn claim(&self, n: u64) -> u64 {
        let Some(docs) = &self.docs else {
            return n;
        };
        let before = docs
            .left
            .fetch_update(AcqRel, Acquire, |l| Some(l - l.min(n)))
            .expect("closure always returns Some");
        before.min(n)
    }

    /// After a build: give back `unused` claimed docs; `used` docs will be sent. The run
    /// stops by docs when every doc of the budget was used (not merely claimed: a builder
    /// may still give some back, and those must be sent too).
    pub(crate) fn settle(&self, unused: u64, used: u64) {
        let Some(docs) = &self.docs else {
            return;
        };
        if unused > 0 {
            docs.left.fetch_add(unused, AcqRel);
        }
        if used > 0 && docs.used.fetch_add(used, AcqRel) + used == docs.total {
            self.request_stop(StopReason::Docs); // that was the last doc
        }
    }

    pub(crate) fn stopped_by(&self) -> StopReason {
        match self.stopped_by.load(Acquire) {
            1 => StopReason::Duration,
            2 => StopReason::Docs,
            4 => StopReason::Unreachable,
            _ => StopReason::Stop,
        }
    }
}

/// `stop.docs`: what is left to claim and what was used (claimed and generated).
struct DocsBudget {
    total: u64,
    left: AtomicU64,
    used: AtomicU64,
}

/// The run's budget, as the bulk builder sees it.
pub(crate) struct RunBudget<'a>(pub(crate) &'a Shared);

impl DocBudget for RunBudget<'_> {
    fn claim(&mut self, n: u64) -> u64 {
        self.0.claim(n)
    }
    fn settle(&mut self, unused: u64, used: u64) {
        self.0.settle(unused, used)
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
