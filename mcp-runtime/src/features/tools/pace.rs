//! How quickly a fn without `async` has run, which decides where its calls run: in its
//! call's task, on the blocking pool, or (over stdio) on the reader itself.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

/// How long a fn without `async` may hold a thread before its run counts as slow.
const BLOCKING: Duration = Duration::from_millis(1);

/// How quickly a fn without `async` has run, which decides where its calls run. Each run
/// within [`BLOCKING`] is quick, each run past it slow, wherever it ran (runs on the blocking
/// pool are timed on their thread, without the hop); but one slow run proves little, since a
/// thread descheduled on a busy machine makes any call slow. What holds:
/// - **The blocking pool.** A score counts slow runs against quick ones: a slow run adds
///   [`SLOW_WEIGHT`], a quick one takes one off, and it stays within [`SCORE_MAX`]. The tool
///   moves to the pool when the score reaches [`POOL_AT`] (two slow runs in a row do it; a
///   tool slow in fewer than one run in five never moves, and each of its slow runs holds a
///   runtime thread), and moves back when quick runs bring the score down to 0: after
///   between [`POOL_AT`] and [`SCORE_MAX`] quick runs more than slow ones. A pooled tool
///   slow in more than one run in five stays pooled; one slow in fewer comes back. So no
///   burst of slow calls, from any client, keeps a tool that has turned quick on the pool:
///   its next [`SCORE_MAX`] quick runs in a row bring it back, whoever makes them.
/// - **The stdio reader** (and, over HTTP, the request's own task) runs it with no task of
///   its own once it has run quick [`READER_AFTER`] times in a row, doubled for each *strike*:
///   a slow run while the tool was on the reader, which held the reader for its duration. A
///   strike takes the tool off the reader until twice as many quick runs in a row as before
///   (up to [`MAX_STRIKES`] doublings), and strikes are never forgotten. So a tool slow once
///   every `n` runs holds the reader at most `log2(n / 16) + 1` times in all (once for
///   `n` up to 32), whoever calls it; and one slow call costs other callers no
///   more than running in tasks (a spawn each) until the tool is seen quick that often again.
///   A pooled tool never runs on the reader.
///
/// Racing calls may lose a count (each figure is loaded and stored, not locked): the figures
/// steer, they do not account. Strikes only ever grow.
#[derive(Default)]
pub(crate) struct Pace {
    score: AtomicU32,
    pooled: AtomicBool,
    quick_in_a_row: AtomicU32,
    strikes: AtomicU32,
}

/// What a slow run adds to the score.
const SLOW_WEIGHT: u32 = 4;
/// The score at which a tool moves to the blocking pool: two slow runs in a row.
const POOL_AT: u32 = 2 * SLOW_WEIGHT;
/// The highest score: a pooled tool comes back after at most this many quick runs in a row.
const SCORE_MAX: u32 = 8 * POOL_AT;
/// Quick runs in a row after which stdio calls a fn without `async` on the reader, with no
/// task and no thread hop, before any strike.
pub(crate) const READER_AFTER: u32 = 16;
/// Strikes past which the quick runs a tool needs for the reader double no more: then
/// 16 × 2^16, about a million.
const MAX_STRIKES: u32 = 16;

/// Quick runs in a row a tool with `strikes` needs to run on the reader.
fn reader_after(strikes: u32) -> u32 {
    READER_AFTER << strikes.min(MAX_STRIKES)
}

/// What a run changed about where the tool's calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moved {
    /// Nothing.
    No,
    /// It runs on the blocking pool from now on.
    ToPool,
    /// It runs off the blocking pool again.
    OffPool,
}

impl Pace {
    /// Its calls run on the blocking pool.
    pub(crate) fn pooled(&self) -> bool {
        self.pooled.load(Ordering::Relaxed)
    }

    /// Its calls may run on the stdio reader.
    pub(crate) fn on_reader(&self) -> bool {
        self.quick_in_a_row.load(Ordering::Relaxed) >= reader_after(self.strikes.load(Ordering::Relaxed))
            && !self.pooled()
    }

    /// Counts one run that held its thread for `took`: whether it moved the tool on or off
    /// the blocking pool.
    pub(crate) fn ran(&self, took: Duration) -> Moved {
        let score = self.score.load(Ordering::Relaxed);
        if took > BLOCKING {
            if self.on_reader() {
                // It held the reader: twice as many quick runs before it may again.
                self.strikes.fetch_max(self.strikes.load(Ordering::Relaxed).saturating_add(1), Ordering::Relaxed);
            }
            // A pooled tool slow in every run, on many threads at once, writes nothing.
            if self.quick_in_a_row.load(Ordering::Relaxed) != 0 {
                self.quick_in_a_row.store(0, Ordering::Relaxed);
            }
            let now = score.saturating_add(SLOW_WEIGHT).min(SCORE_MAX);
            if now != score {
                self.score.store(now, Ordering::Relaxed);
            }
            let moves = now >= POOL_AT && !self.pooled() && !self.pooled.swap(true, Ordering::Relaxed);
            return if moves { Moved::ToPool } else { Moved::No };
        }
        // Counted up to what the reader needs, then only read.
        let quick = self.quick_in_a_row.load(Ordering::Relaxed);
        if quick < reader_after(self.strikes.load(Ordering::Relaxed)) {
            self.quick_in_a_row.store(quick + 1, Ordering::Relaxed);
        }
        if score == 0 {
            return Moved::No;
        }
        self.score.store(score - 1, Ordering::Relaxed);
        if score == 1 && self.pooled.swap(false, Ordering::Relaxed) { Moved::OffPool } else { Moved::No }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Duration = Duration::from_micros(10);
    const SLOW: Duration = Duration::from_millis(5);

    /// Runs `pace` `runs` times, slow every `period`-th run: how many of those slow runs
    /// found the tool on the reader (each held the reader for its duration).
    fn stalls(pace: &Pace, period: u32, runs: u32) -> Vec<u32> {
        let mut stalls = Vec::new();
        for run in 1..=runs {
            let slow = run % period == 0;
            if slow && pace.on_reader() {
                stalls.push(run);
            }
            pace.ran(if slow { SLOW } else { QUICK });
        }
        stalls
    }

    #[test]
    fn one_slow_run_now_and_then_keeps_a_tool_off_the_pool() {
        let pace = Pace::default();
        for _ in 0..20 {
            assert_eq!(pace.ran(SLOW), Moved::No);
            for _ in 0..5 {
                assert_eq!(pace.ran(QUICK), Moved::No);
            }
        }
        assert!(!pace.pooled(), "one slow run in six is a busy machine, not a blocking tool");
    }

    #[test]
    fn two_slow_runs_in_a_row_move_a_tool_to_the_pool_until_sustained_quick_runs_bring_it_back() {
        let pace = Pace::default();
        assert_eq!(pace.ran(SLOW), Moved::No);
        assert_eq!(pace.ran(SLOW), Moved::ToPool, "the run that moves it says so, once");
        assert!(pace.pooled());
        assert_eq!(pace.ran(SLOW), Moved::No);
        // Score 12: eleven quick runs keep it pooled, the twelfth brings it back.
        for _ in 0..11 {
            assert_eq!(pace.ran(QUICK), Moved::No);
        }
        assert!(pace.pooled(), "a few quick runs do not bring it back");
        assert_eq!(pace.ran(QUICK), Moved::OffPool, "the run that brings it back says so");
        assert!(!pace.pooled());
    }

    #[test]
    fn however_long_a_tool_was_slow_its_next_sixty_four_quick_runs_bring_it_back() {
        let pace = Pace::default();
        for _ in 0..10_000 {
            pace.ran(SLOW);
        }
        let back = (1..=SCORE_MAX).find(|_| pace.ran(QUICK) == Moved::OffPool);
        assert_eq!(back, Some(SCORE_MAX));
        assert!(!pace.pooled());
    }

    #[test]
    fn a_tool_slow_in_most_runs_moves_to_the_pool_and_stays() {
        let pace = Pace::default();
        let moved = (0..10).any(|_| (pace.ran(SLOW) == Moved::ToPool) | (pace.ran(QUICK) == Moved::ToPool));
        assert!(moved && pace.pooled(), "slow every other run");
        for _ in 0..1000 {
            assert_eq!(pace.ran(SLOW), Moved::No);
            for _ in 0..3 {
                assert_eq!(pace.ran(QUICK), Moved::No);
            }
        }
        assert!(pace.pooled(), "slow in one run in four");
    }

    #[test]
    fn the_reader_takes_a_tool_after_sixteen_quick_runs_in_a_row_then_twice_as_many_per_strike() {
        let pace = Pace::default();
        for _ in 1..READER_AFTER {
            pace.ran(QUICK);
        }
        assert!(!pace.on_reader());
        pace.ran(QUICK);
        assert!(pace.on_reader());
        pace.ran(SLOW);
        assert!(!pace.on_reader(), "a slow run takes it off the reader");
        for strikes in 1..=3 {
            for _ in 1..READER_AFTER << strikes {
                pace.ran(QUICK);
            }
            assert!(!pace.on_reader(), "{strikes} strikes: not yet");
            pace.ran(QUICK);
            assert!(pace.on_reader(), "{strikes} strikes: 16 × 2^{strikes} quick runs in a row give it back");
            pace.ran(SLOW);
        }
        // A slow run off the reader (in a task) is no strike: sixteen × 2^4 give it back.
        pace.ran(SLOW);
        for _ in 0..READER_AFTER << 4 {
            pace.ran(QUICK);
        }
        assert!(pace.on_reader() && !pace.pooled());
    }

    #[test]
    fn a_tool_slow_once_every_seventeen_runs_holds_the_reader_once() {
        let pace = Pace::default();
        assert_eq!(stalls(&pace, 17, 17 * 100), [17], "then never again");
    }

    #[test]
    fn a_periodic_slow_run_holds_the_reader_a_bounded_number_of_times() {
        for period in [17, 40, 100, 1000, 5000] {
            let pace = Pace::default();
            let stalls = stalls(&pace, period, period * 200);
            let bound = (period / READER_AFTER).ilog2() + 1;
            assert!(!stalls.is_empty() && stalls.len() <= bound as usize, "slow every {period}: {stalls:?}");
            assert!(
                stalls.iter().all(|&run| run <= period * bound),
                "none after the first {bound} periods: {stalls:?}"
            );
        }
    }

    #[test]
    fn a_pooled_tool_never_runs_on_the_reader() {
        let pace = Pace::default();
        pace.ran(SLOW);
        pace.ran(SLOW);
        for _ in 0..POOL_AT - 1 {
            pace.ran(QUICK);
        }
        assert!(pace.pooled() && !pace.on_reader(), "pooled, though not a slow run in the last seven");
        for _ in 0..READER_AFTER {
            pace.ran(QUICK);
        }
        assert!(!pace.pooled() && pace.on_reader(), "back from the pool, with its quick runs counted");
    }
}
