//! How quickly a fn without `async` has run, which decides where its calls run: in its
//! call's task, on the blocking pool, or (over stdio) on the reader itself.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// How long a fn without `async` may hold a runtime thread before its run counts as slow.
const BLOCKING: Duration = Duration::from_millis(1);

/// How quickly a fn without `async` has run, which decides where its calls run. Each run
/// within [`BLOCKING`] is quick, each run past it slow; but one slow run proves little, since a
/// thread descheduled on a busy machine makes any call slow. So:
/// - A tool runs on the blocking pool from the moment slow runs outweigh quick ones, counted
///   as a score: a slow run adds [`SLOW_WEIGHT`], a quick one takes one off, and the tool
///   moves at [`POOL_AT`]. Two slow runs in a row move it; a tool slow in fewer than one run in
///   five never does (each of its slow runs holds a runtime thread); a pooled tool stays
///   pooled (runs there are not measured).
/// - A transport runs it where it read the call (the stdio reader, the HTTP request's task),
///   with no task of its own, only after [`READER_AFTER`] quick runs in a row.
#[derive(Default)]
pub(crate) struct Pace {
    score: AtomicU32,
    quick_in_a_row: AtomicU32,
}

const SLOW_WEIGHT: u32 = 4;
const POOL_AT: u32 = 2 * SLOW_WEIGHT;
/// Quick runs in a row after which stdio calls a fn without `async` on the reader, with no
/// task and no thread hop.
pub(crate) const READER_AFTER: u32 = 16;

impl Pace {
    /// Its calls run on the blocking pool.
    pub(crate) fn pooled(&self) -> bool {
        self.score.load(Ordering::Relaxed) >= POOL_AT
    }

    /// Its calls may run on the stdio reader.
    pub(crate) fn on_reader(&self) -> bool {
        self.quick_in_a_row.load(Ordering::Relaxed) >= READER_AFTER
    }

    /// Counts one run that took `took` on a runtime thread; true when this run moved the
    /// tool to the blocking pool. Racing calls may lose a count: the figures steer, they do
    /// not account.
    pub(crate) fn ran(&self, took: Duration) -> bool {
        let score = self.score.load(Ordering::Relaxed);
        if took > BLOCKING {
            self.quick_in_a_row.store(0, Ordering::Relaxed);
            let now = score.saturating_add(SLOW_WEIGHT);
            self.score.store(now, Ordering::Relaxed);
            return score < POOL_AT && now >= POOL_AT;
        }
        if score > 0 && score < POOL_AT {
            self.score.store(score - 1, Ordering::Relaxed);
        }
        let quick = self.quick_in_a_row.load(Ordering::Relaxed);
        if quick < READER_AFTER {
            self.quick_in_a_row.store(quick + 1, Ordering::Relaxed);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Duration = Duration::from_micros(10);
    const SLOW: Duration = Duration::from_millis(5);

    #[test]
    fn one_slow_run_now_and_then_keeps_a_tool_off_the_pool() {
        let pace = Pace::default();
        for _ in 0..20 {
            assert!(!pace.ran(SLOW));
            for _ in 0..5 {
                assert!(!pace.ran(QUICK));
            }
        }
        assert!(!pace.pooled(), "one slow run in six is a busy machine, not a blocking tool");
    }

    #[test]
    fn two_slow_runs_in_a_row_move_a_tool_to_the_pool_for_good() {
        let pace = Pace::default();
        assert!(!pace.ran(SLOW));
        assert!(pace.ran(SLOW), "the run that moves it says so, once");
        assert!(pace.pooled());
        assert!(!pace.ran(SLOW));
        for _ in 0..100 {
            pace.ran(QUICK);
        }
        assert!(pace.pooled(), "a pooled tool stays pooled");
    }

    #[test]
    fn a_tool_slow_in_most_runs_moves_to_the_pool() {
        let pace = Pace::default();
        let moved = (0..10).any(|_| pace.ran(SLOW) | pace.ran(QUICK));
        assert!(moved && pace.pooled(), "slow every other run");
    }

    #[test]
    fn the_reader_takes_a_tool_after_sixteen_quick_runs_in_a_row() {
        let pace = Pace::default();
        for _ in 1..READER_AFTER {
            pace.ran(QUICK);
        }
        assert!(!pace.on_reader());
        pace.ran(QUICK);
        assert!(pace.on_reader());
        pace.ran(SLOW);
        assert!(!pace.on_reader(), "a slow run takes it off the reader");
        for _ in 0..READER_AFTER {
            pace.ran(QUICK);
        }
        assert!(pace.on_reader() && !pace.pooled(), "and sixteen quick ones give it back");
    }
}
