//! The run's one clock: the monotonic start and the wall-clock time read at the same moment.
//! Every wall time is that reading plus a monotonic offset, so interval times never jump when
//! the system clock is stepped, and they are comparable with Python's `time.time()`.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy)]
pub(crate) struct RunClock {
    pub(crate) start: Instant,
    /// Seconds since the Unix epoch at `start`.
    pub(crate) started_unix_s: f64,
}

impl RunClock {
    pub(crate) fn now() -> RunClock {
        let start = Instant::now();
        let wall = SystemTime::now();
        RunClock {
            start,
            // A clock set before 1970 is a broken clock; 0 says so without failing the run.
            started_unix_s: wall
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
        }
    }

    /// Seconds from the start to `at` (0 for an instant before the start).
    pub(crate) fn offset_s(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.start).as_secs_f64()
    }

    /// `at` on the wall clock, in seconds since the Unix epoch.
    pub(crate) fn unix_s(&self, at: Instant) -> f64 {
        self.started_unix_s + self.offset_s(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn wall_times_are_the_start_plus_the_monotonic_offset() {
        let clock = RunClock::now();
        let wall_now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!((clock.started_unix_s - wall_now).abs() < 1.0);
        let later = clock.start + Duration::from_millis(1500);
        assert_eq!(clock.offset_s(later), 1.5);
        assert!((clock.unix_s(later) - (clock.started_unix_s + 1.5)).abs() < 1e-6);
        assert_eq!(clock.unix_s(clock.start), clock.started_unix_s);
    }
}
