//! When each client's next request is due. One interface for all load models, so there is
//! exactly one engine loop: ask `next_due(now)`, wait until then, send, repeat.
//!
//! The spec's rate is the total over all clients; each client runs at `rate / clients`.
//! Fixed-rate clients are staggered by `i / rate` so the aggregate is evenly spaced, and
//! their due times are computed from the start (`start + k * period`), so they never drift.

use crate::rng::Rng;
use crate::spec::ScheduleSpec;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Schedule {
    model: Model,
}

#[derive(Debug, Clone)]
enum Model {
    /// Closed loop: due as soon as the client is ready.
    Closed,
    /// Open loop, constant spacing.
    Fixed { next: Instant, period: Duration },
    /// Open loop, exponential interarrival times (mean `mean_s`).
    Poisson {
        next: Instant,
        mean_s: f64,
        rng: Rng,
    },
}

impl Schedule {
    pub fn new(
        spec: ScheduleSpec,
        clients: u32,
        client_index: u32,
        seed: u64,
        start: Instant,
    ) -> Schedule {
        let per_client = |rate: f64| rate / f64::from(clients.max(1));
        let model = match spec {
            ScheduleSpec::Closed => Model::Closed,
            ScheduleSpec::Fixed { rate_per_s } => {
                let offset = Duration::from_secs_f64(f64::from(client_index) / rate_per_s);
                Model::Fixed {
                    next: start + offset,
                    period: Duration::from_secs_f64(1.0 / per_client(rate_per_s)),
                }
            }
            ScheduleSpec::Poisson { rate_per_s } => {
                let mut rng = Rng::for_stream(seed ^ 0x5C4E_D01E, u64::from(client_index));
                let mean_s = 1.0 / per_client(rate_per_s);
                let first = exp(&mut rng, mean_s);
                Model::Poisson {
                    next: start + Duration::from_secs_f64(first),
                    mean_s,
                    rng,
                }
            }
        };
        Schedule { model }
    }

    /// The instant the next request is due. For the closed model that is `now`; for open
    /// models it may lie in the past when the client is behind (the request then goes out
    /// at once, and the response clock still starts at the due time).
    pub fn next_due(&mut self, now: Instant) -> Instant {
        match &mut self.model {
            Model::Closed => now,
            Model::Fixed { next, period } => {
                let due = *next;
                *next += *period;
                due
            }
            Model::Poisson { next, mean_s, rng } => {
                let due = *next;
                *next += Duration::from_secs_f64(exp(rng, *mean_s));
                due
            }
        }
    }
}

/// An exponentially distributed draw with the given mean.
fn exp(rng: &mut Rng, mean_s: f64) -> f64 {
    -rng.unit_open0().ln() * mean_s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_is_always_due_now() {
        let t0 = Instant::now();
        let mut s = Schedule::new(ScheduleSpec::Closed, 4, 1, 0, t0);
        for k in 0..5 {
            let now = t0 + Duration::from_millis(k * 37);
            assert_eq!(s.next_due(now), now);
        }
    }

    #[test]
    fn fixed_spacing_is_exact_and_clients_interleave() {
        let t0 = Instant::now();
        let spec = ScheduleSpec::Fixed { rate_per_s: 20.0 };
        // 20/s over 2 clients: each every 100 ms, client 1 offset by 50 ms.
        let mut a = Schedule::new(spec, 2, 0, 0, t0);
        let mut b = Schedule::new(spec, 2, 1, 0, t0);
        let late = t0 + Duration::from_secs(100); // `now` does not move a fixed schedule
        let da: Vec<Instant> = (0..1000).map(|_| a.next_due(late)).collect();
        let db: Vec<Instant> = (0..3).map(|_| b.next_due(late)).collect();
        assert_eq!(da[0], t0);
        assert_eq!(db[0] - t0, Duration::from_millis(50));
        for w in da.windows(2) {
            assert_eq!(w[1] - w[0], Duration::from_millis(100));
        }
        assert_eq!(da[999] - t0, Duration::from_millis(99_900));
    }

    #[test]
    fn poisson_mean_interarrival_matches_rate() {
        let t0 = Instant::now();
        let mut s = Schedule::new(ScheduleSpec::Poisson { rate_per_s: 200.0 }, 1, 0, 42, t0);
        let n = 200_000;
        let mut prev = s.next_due(t0);
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        for _ in 0..n {
            let d = s.next_due(t0);
            let gap = (d - prev).as_secs_f64();
            sum += gap;
            sum_sq += gap * gap;
            prev = d;
        }
        let mean = sum / f64::from(n);
        let sd = (sum_sq / f64::from(n) - mean * mean).sqrt();
        assert!((mean - 0.005).abs() < 0.005 * 0.01, "mean {mean}");
        // exponential: standard deviation equals the mean
        assert!((sd - 0.005).abs() < 0.005 * 0.03, "sd {sd}");
        // deterministic per seed
        let mut s2 = Schedule::new(ScheduleSpec::Poisson { rate_per_s: 200.0 }, 1, 0, 42, t0);
        let mut s3 = Schedule::new(ScheduleSpec::Poisson { rate_per_s: 200.0 }, 1, 0, 42, t0);
        assert_eq!(s2.next_due(t0), s3.next_due(t0));
    }
}
