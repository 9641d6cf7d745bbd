//! The run's targets, shared by every client: one entry per target URL with its endpoint,
//! its health (the policy is in failover.rs) and its connection error counts. A client asks
//! `pick` where to send, and reports what happened to its connections.

use crate::failover::{choose, Choice, Health};
use crate::http::{Endpoint, RequestTemplate, TlsTarget};
use crate::rng::Rng;
use crate::shared::lock;
use crate::spec::Spec;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify};
use tokio::time::sleep_until;

/// Connection errors of one target URL over the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetErrors {
    pub url: String,
    /// Connections that could not be made (refused, timed out, TLS handshake failed).
    pub connect_errors: u64,
    /// Requests sent that got no answer (the connection broke, or timed out).
    pub transport_errors: u64,
}

struct Entry {
    url: String,
    endpoint: Endpoint,
    /// `health.is_up()`, readable without the lock: clients of a healthy target never lock.
    up: AtomicBool,
    /// `health.failures > 0`, likewise, so an answer locks only to clear failures.
    failing: AtomicBool,
    connect_errors: AtomicU64,
    transport_errors: AtomicU64,
}

struct State {
    health: Vec<Health>,
    /// Backoff jitter.
    rng: Rng,
}

/// Where a client sends: a target, and whether connecting to it is a probe.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pick {
    pub(crate) target: usize,
    pub(crate) probe: bool,
}

pub(crate) struct Targets {
    entries: Vec<Entry>,
    state: Mutex<State>,
    /// Woken whenever a target goes up or down, for clients waiting for one.
    changed: Notify,
    /// Since when every target has been down (None: some target is up).
    all_down_since: Mutex<Option<Instant>>,
}

impl Targets {
    pub(crate) fn new(spec: &Spec) -> Targets {
        let timeout = Duration::from_secs_f64(spec.request_timeout_s);
        let entries: Vec<Entry> = spec
            .parsed_targets()
            .into_iter()
            .zip(&spec.targets)
            .map(|(target, url)| {
                let template =
                    RequestTemplate::new(&target.authority, &spec.bulk_path, &spec.headers);
                let tls = target.tls_name.map(|name| {
                    let config = spec.tls_config.clone().expect("compiled for https targets");
                    TlsTarget::new(config, name)
                });
                Entry {
                    url: url.clone(),
                    endpoint: Endpoint::new(template, tls, timeout),
                    up: AtomicBool::new(true),
                    failing: AtomicBool::new(false),
                    connect_errors: AtomicU64::new(0),
                    transport_errors: AtomicU64::new(0),
                }
            })
            .collect();
        Targets {
            state: Mutex::new(State {
                health: vec![Health::default(); entries.len()],
                rng: Rng::for_stream(spec.generator.seed, u64::MAX),
            }),
            entries,
            changed: Notify::new(),
            all_down_since: Mutex::new(None),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn endpoint(&self, target: usize) -> &Endpoint {
        &self.entries[target].endpoint
    }

    /// Where to send next (see `failover::choose`). While every target is down, waits until
    /// the earliest may be probed, or one comes back; None if the run stops meanwhile.
    pub(crate) async fn pick(&self, home: usize, stop: &mut watch::Receiver<bool>) -> Option<Pick> {
        let pick = |target, probe| Some(Pick { target, probe });
        if self.entries[home].up.load(Acquire) {
            return pick(home, false);
        }
        loop {
            // Registered before looking, so a change in between is not missed.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let until = {
                let mut state = lock(&self.state);
                match choose(&state.health, home, Instant::now()) {
                    Choice::Use(target) => return pick(target, false),
                    Choice::Probe(target) => {
                        state.health[target].probing = true;
                        return pick(target, true);
                    }
                    Choice::Wait(until) => until,
                }
            };
            if *stop.borrow() {
                return None;
            }
            // Every down target being probed: a probe's end wakes us (`changed`).
            let far = Instant::now() + Duration::from_secs(3600);
            tokio::select! {
                _ = sleep_until(until.unwrap_or(far).into()) => {}
                _ = &mut changed => {}
                _ = stop.wait_for(|s| *s) => return None,
            }
        }
    }

    /// Apply a change to one target's health, publish it, and wake the clients waiting for
    /// a target (it may have come back, or have a new retry time).
    fn update(&self, target: usize, change: impl FnOnce(&mut Health, f64)) {
        {
            let mut state = lock(&self.state);
            let jitter_unit = state.rng.unit_open0();
            let health = &mut state.health[target];
            change(health, jitter_unit);
            let entry = &self.entries[target];
            entry.up.store(health.is_up(), Release);
            entry.failing.store(health.failures > 0, Release);
            let all_down = state.health.iter().all(|h| !h.is_up());
            let mut since = lock(&self.all_down_since);
            match (all_down, *since) {
                (true, None) => *since = Some(Instant::now()),
                (false, Some(_)) => *since = None,
                _ => {}
            }
        }
        self.changed.notify_waiters();
    }

    /// How long every target has been down, if they all are.
    pub(crate) fn all_down_for(&self, now: Instant) -> Option<Duration> {
        lock(&self.all_down_since).map(|since| now.saturating_duration_since(since))
    }

    pub(crate) fn connected(&self, target: usize, probe: bool) {
        if probe || !self.entries[target].up.load(Acquire) {
            self.update(target, |h, _| h.connected(probe));
        }
    }

    /// A connection to `target` could not be made.
    pub(crate) fn connect_failed(&self, target: usize, probe: bool) {
        self.entries[target].connect_errors.fetch_add(1, Relaxed);
        let now = Instant::now();
        self.update(target, |h, jitter| h.failed(probe, now, jitter));
    }

    /// A request sent to `target` got no answer; `down`: its connection died.
    pub(crate) fn no_answer(&self, target: usize, down: bool) {
        self.entries[target].transport_errors.fetch_add(1, Relaxed);
        if down {
            let now = Instant::now();
            self.update(target, |h, jitter| h.failed(false, now, jitter));
        }
    }

    pub(crate) fn answered(&self, target: usize) {
        if self.entries[target].failing.load(Acquire) {
            self.update(target, |h, _| h.answered());
        }
    }

    pub(crate) fn errors(&self) -> Vec<TargetErrors> {
        self.entries
            .iter()
            .map(|e| TargetErrors {
                url: e.url.clone(),
                connect_errors: e.connect_errors.load(Relaxed),
                transport_errors: e.transport_errors.load(Relaxed),
            })
            .collect()
    }
}
