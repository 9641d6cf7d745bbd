//! The failover policy as pure functions over plain data: the reconnect backoff, the health
//! of one target, which target a client uses next, and the fate of a bulk whose request got
//! no answer (sent again elsewhere, or its documents' fate unknown). targets.rs applies it to
//! the run's shared state.

use crate::http::Failure;
use std::time::{Duration, Instant};

/// The first backoff after a target fails; it doubles with every further failure.
pub const BACKOFF_FIRST_MS: u64 = 50;
pub const BACKOFF_MAX_MS: u64 = 5_000;
/// ±20%, so the clients of a dead node do not all come back to it in step.
pub const BACKOFF_JITTER: f64 = 0.2;

/// How long a target stays down after its `failures`-th consecutive failure (at least 1):
/// 50 ms doubling to 5 s, scaled by a jitter of ±20% (`jitter_unit` in [0, 1]: 0 gives
/// -20%, 0.5 none, 1 gives +20%).
pub fn backoff_ms(failures: u32, jitter_unit: f64) -> u64 {
    let doublings = failures.saturating_sub(1).min(16);
    let base = (BACKOFF_FIRST_MS << doublings).min(BACKOFF_MAX_MS);
    let unit = if jitter_unit.is_nan() {
        0.5
    } else {
        jitter_unit.clamp(0.0, 1.0)
    };
    (base as f64 * (1.0 + BACKOFF_JITTER * (2.0 * unit - 1.0))).round() as u64
}

/// One target's health. Up until a connection to it fails or dies; then down until
/// `retry_at`, when the next client that wants it probes it (tries to connect).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Health {
    /// Failures since the target last answered a request; 0: healthy.
    pub failures: u32,
    /// Some: down, and nobody connects to it before this instant.
    pub retry_at: Option<Instant>,
    /// A client is probing this down target now; no other one does.
    pub probing: bool,
}

impl Health {
    pub fn is_up(&self) -> bool {
        self.retry_at.is_none()
    }

    fn probe_due(&self, now: Instant) -> bool {
        !self.probing && self.retry_at.is_some_and(|t| t <= now)
    }

    /// A connection could not be made, or died: down for the next backoff. Only the first
    /// failure of an up target, or a failed probe, counts: the other clients that were
    /// connecting or sending when it went down fail too, and must not lengthen the backoff.
    pub fn failed(&mut self, probe: bool, now: Instant, jitter_unit: f64) {
        if probe {
            self.probing = false;
        }
        if self.is_up() || probe {
            self.failures = self.failures.saturating_add(1);
            let backoff = Duration::from_millis(backoff_ms(self.failures, jitter_unit));
            self.retry_at = Some(now + backoff);
        }
    }

    /// A connection was made: up again. The failures stay until it answers a request, so a
    /// node that accepts connections and then drops every request backs off further each
    /// time.
    pub fn connected(&mut self, probe: bool) {
        if probe {
            self.probing = false;
        }
        self.retry_at = None;
    }

    pub fn answered(&mut self) {
        self.failures = 0;
    }
}

/// Which target a client sends its next request to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Use(usize),
    /// Connect to this down target (its backoff has passed) to see if it is back.
    Probe(usize),
    /// Every target is down: wait until the earliest may be probed (None: every down
    /// target is being probed; wait for a probe to end).
    Wait(Option<Instant>),
}

/// The home target when it is up or due for a probe; otherwise the next live target after
/// it, in order; otherwise the next one due for a probe.
pub fn choose(health: &[Health], home: usize, now: Instant) -> Choice {
    let n = health.len();
    let order = || (0..n).map(|k| (home + k) % n);
    if health[home].is_up() {
        Choice::Use(home)
    } else if health[home].probe_due(now) {
        Choice::Probe(home)
    } else if let Some(j) = order().find(|&j| health[j].is_up()) {
        Choice::Use(j)
    } else if let Some(j) = order().find(|&j| health[j].probe_due(now)) {
        Choice::Probe(j)
    } else {
        let waiting = health.iter().filter(|h| !h.probing);
        Choice::Wait(waiting.filter_map(|h| h.retry_at).min())
    }
}

/// What becomes of a bulk whose request failed without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Nothing left the client: send the same bulk again (no duplicate is possible).
    /// `connect_error`: count a failed connection and put the target on its backoff.
    Resend { connect_error: bool },
    /// The body may have reached the cluster, which may or may not have applied it: its
    /// documents are unknown, and are not resent (that could index them twice).
    /// `target_down`: put the target on its backoff.
    Unknown { target_down: bool },
}

/// The fate of a request that failed with `failure` on a connection made for it (`fresh`)
/// or reused.
pub fn fate(failure: &Failure, fresh: bool) -> Fate {
    match failure {
        Failure::Connect(_) => Fate::Resend {
            connect_error: true,
        },
        // A reused connection that closed while idle is the normal end of a keep-alive
        // connection: reconnect. A fresh one that closed before taking a single request
        // counts as a failed connection, or a node that accepts and closes at once would be
        // reconnected to in a loop.
        Failure::NotSent(_) => Fate::Resend {
            connect_error: fresh,
        },
        Failure::Broken(_) => Fate::Unknown { target_down: true },
        // The node is slow, not gone: keep sending to it.
        Failure::TimedOut(_) => Fate::Unknown { target_down: false },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_50_ms_to_5_s() {
        let schedule: Vec<u64> = (1..=9).map(|f| backoff_ms(f, 0.5)).collect();
        assert_eq!(schedule, [50, 100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(backoff_ms(0, 0.5), 50, "0 failures: as after the first");
        assert_eq!(backoff_ms(u32::MAX, 0.5), 5000);
    }

    #[test]
    fn backoff_jitter_is_within_20_percent() {
        assert_eq!((backoff_ms(1, 0.0), backoff_ms(1, 1.0)), (40, 60));
        assert_eq!((backoff_ms(3, 0.25), backoff_ms(3, 0.75)), (180, 220));
        assert_eq!((backoff_ms(8, 0.0), backoff_ms(8, 1.0)), (4000, 6000));
        assert_eq!(backoff_ms(2, -3.0), 80, "clamped to [0, 1]");
        assert_eq!(backoff_ms(2, f64::NAN), 100);
    }

    fn ms(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn only_the_first_failure_and_failed_probes_lengthen_the_backoff() {
        let t0 = Instant::now();
        let mut h = Health::default();
        h.failed(false, t0, 0.5);
        assert_eq!((h.failures, h.retry_at), (1, Some(ms(t0, 50))));
        // The other clients that were connecting at the time fail too.
        h.failed(false, ms(t0, 1), 0.5);
        assert_eq!((h.failures, h.retry_at), (1, Some(ms(t0, 50))));
        h.probing = true;
        h.failed(true, ms(t0, 60), 0.5);
        assert_eq!((h.failures, h.retry_at), (2, Some(ms(t0, 160))));
        assert!(!h.probing);
        h.probing = true;
        h.connected(true);
        assert!(h.is_up() && !h.probing);
        assert_eq!(h.failures, 2, "kept until an answer");
        // It accepted the connection, then broke the request: it backs off further.
        h.failed(false, ms(t0, 200), 0.5);
        assert_eq!((h.failures, h.retry_at), (3, Some(ms(t0, 400))));
        h.connected(false);
        h.answered();
        assert_eq!(h, Health::default());
    }

    #[test]
    fn clients_prefer_home_then_the_next_live_target() {
        let t0 = Instant::now();
        let up = Health::default();
        let down = |retry_ms: u64| Health {
            failures: 1,
            retry_at: Some(ms(t0, retry_ms)),
            probing: false,
        };
        let now = ms(t0, 100);
        assert_eq!(choose(&[up, up, up], 1, now), Choice::Use(1));
        assert_eq!(choose(&[up, down(500), up], 1, now), Choice::Use(2));
        assert_eq!(choose(&[up, down(500), down(500)], 1, now), Choice::Use(0));
        // Home's backoff has passed: probe it, though another target is up.
        assert_eq!(choose(&[up, down(50), up], 1, now), Choice::Probe(1));
        // Another's has passed but one is up: use the live one.
        assert_eq!(choose(&[down(50), down(500), up], 1, now), Choice::Use(2));
        assert_eq!(
            choose(&[down(50), down(500), down(500)], 1, now),
            Choice::Probe(0)
        );
        // All down, none due: wait for the earliest.
        assert_eq!(
            choose(&[down(300), down(500), down(200)], 1, now),
            Choice::Wait(Some(ms(t0, 200)))
        );
        // A target being probed is nobody else's to probe.
        let probing = Health {
            probing: true,
            ..down(50)
        };
        assert_eq!(
            choose(&[probing, down(400)], 0, now),
            Choice::Wait(Some(ms(t0, 400)))
        );
        assert_eq!(choose(&[probing], 0, now), Choice::Wait(None));
    }

    #[test]
    fn unsent_requests_are_resent_and_sent_ones_are_unknown() {
        let m = || "m".to_string();
        let resend = |connect_error| Fate::Resend { connect_error };
        let unknown = |target_down| Fate::Unknown { target_down };
        // Refused, timed out connecting, TLS handshake failed: nothing was sent.
        assert_eq!(fate(&Failure::Connect(m()), true), resend(true));
        // hyper returned the request unwritten: an idle keep-alive connection had closed.
        assert_eq!(fate(&Failure::NotSent(m()), false), resend(false));
        assert_eq!(fate(&Failure::NotSent(m()), true), resend(true));
        // Written (at least partly), then the connection broke or no answer came in time.
        for fresh in [false, true] {
            assert_eq!(fate(&Failure::Broken(m()), fresh), unknown(true));
            assert_eq!(fate(&Failure::TimedOut(m()), fresh), unknown(false));
        }
    }
}
