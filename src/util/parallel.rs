//! Mapping an index range on several threads while consuming the results in order, with bounded memory.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, mpsc};

/// Batches handed out but not yet consumed, per thread: the bound on memory.
const WINDOW_PER_THREAD: usize = 4;

/// The threads to use: one per core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Computes `map(0)`, …, `map(n - 1)` on up to `threads` threads, in batches of `batch`, and hands every result
/// to `sink` in index order. A thread that is done takes the next batch (a slow or preempted thread does not
/// hold the others up), but no more than a few batches per thread are ever waiting to be consumed, so memory
/// holds a few batches whatever `n` is. An `Err` from `sink` stops the work and is returned.
pub fn map_in_order<R: Send, E>(
    n: usize,
    threads: usize,
    batch: usize,
    map: impl Fn(usize) -> R + Sync,
    mut sink: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let batch = batch.max(1);
    let batches = n.div_ceil(batch);
    let threads = threads.clamp(1, batches.max(1));
    if threads == 1 {
        return (0..n).try_for_each(|i| sink(map(i)));
    }
    let window = threads * WINDOW_PER_THREAD;
    // (next batch to hand out, batches consumed, stopped)
    let state: State = Mutex::new((0, 0, false));
    let moved = Condvar::new();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<R>)>();
        for _ in 0..threads {
            let (tx, map, state, moved) = (tx.clone(), &map, &state, &moved);
            s.spawn(move || {
                let _stop_all_if_this_panics = StopOnPanic(state, moved);
                loop {
                    let b = {
                        let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
                        while !st.2 && st.0 < batches && st.0 >= st.1 + window {
                            st = moved.wait(st).unwrap_or_else(|p| p.into_inner());
                        }
                        if st.2 || st.0 >= batches {
                            return;
                        }
                        st.0 += 1;
                        st.0 - 1
                    };
                    let start = b * batch;
                    let out = (start..(start + batch).min(n)).map(map).collect();
                    if tx.send((b, out)).is_err() {
                        return; // the consumer stopped
                    }
                }
            });
        }
        drop(tx);
        let stop = || {
            state.lock().unwrap_or_else(|p| p.into_inner()).2 = true;
            moved.notify_all();
        };
        let mut waiting = BTreeMap::new();
        for b in 0..batches {
            let results = loop {
                if let Some(r) = waiting.remove(&b) {
                    break r;
                }
                match rx.recv() {
                    Ok((k, r)) => {
                        waiting.insert(k, r);
                    }
                    // Every worker ended: one panicked (the scope re-raises it).
                    Err(_) => return Ok(()),
                }
            };
            for r in results {
                if let Err(e) = sink(r) {
                    stop();
                    return Err(e);
                }
            }
            state.lock().unwrap_or_else(|p| p.into_inner()).1 += 1;
            moved.notify_all();
        }
        Ok(())
    })
}

type State = Mutex<(usize, usize, bool)>;

/// Stops the other workers when a worker panics, so that none waits for a batch that will never be consumed
/// (the scope then re-raises the panic).
struct StopOnPanic<'a>(&'a State, &'a Condvar);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().unwrap_or_else(|p| p.into_inner()).2 = true;
            self.1.notify_all();
        }
    }
}

/// `map(0)`, …, `map(n - 1)` computed on up to `threads` threads (batches of `batch`), in index order.
pub fn map_collect<R: Send>(n: usize, threads: usize, batch: usize, map: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let mut out = Vec::with_capacity(n);
    let _ = map_in_order(n, threads, batch, map, |r| -> Result<(), ()> {
        out.push(r);
        Ok(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_order_on_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            for batch in [1, 7, 64, 5000] {
                let mut got = Vec::new();
                let r: Result<(), ()> = map_in_order(
                    1003,
                    threads,
                    batch,
                    |i| (i, i * i),
                    |r| {
                        got.push(r);
                        Ok(())
                    },
                );
                assert!(r.is_ok());
                let want: Vec<(usize, usize)> = (0..1003).map(|x| (x, x * x)).collect();
                assert_eq!(got, want, "threads {threads}, batch {batch}");
                assert_eq!(map_collect(1003, threads, batch, |i| (i, i * i)), want);
            }
        }
    }

    #[test]
    fn uneven_work_still_arrives_in_order() {
        // Early items are slow: other threads run ahead, up to the window, and the order is kept.
        let slow = |i: usize| {
            if i < 40 {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            i
        };
        assert_eq!(map_collect(2000, 3, 4, slow), (0..2000).collect::<Vec<_>>());
    }

    #[test]
    fn a_sink_error_stops_the_work_and_is_returned() {
        let mut seen = 0;
        let r = map_in_order(
            10_000,
            2,
            16,
            |i| i,
            |x| {
                seen += 1;
                if x == 100 { Err(format!("stop at {x}")) } else { Ok(()) }
            },
        );
        assert_eq!(r, Err("stop at 100".to_string()));
        assert_eq!(seen, 101);
    }

    #[test]
    fn a_panicking_map_is_raised_not_a_hang() {
        let r = std::panic::catch_unwind(|| map_collect(10_000, 3, 2, |i| if i == 7 { panic!("item 7") } else { i }));
        assert!(r.is_err());
    }

    #[test]
    fn no_items_no_calls() {
        let r: Result<(), ()> = map_in_order(0, 4, 8, |_| panic!("no item"), |_: ()| panic!("no result"));
        assert!(r.is_ok());
    }
}
