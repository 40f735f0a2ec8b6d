//! Mapping a slice on several threads while consuming the results in order, with bounded memory.

use std::sync::mpsc;

/// Computes `map(0)`, …, `map(n - 1)` on up to `threads` threads, in batches of `batch`, and hands every result
/// to `sink` in index order. Worker `w` takes batches `w`, `w + threads`, … and keeps at most one finished
/// batch waiting, so memory holds a few batches whatever `n` is. An `Err` from `sink` stops the work and is
/// returned.
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
    std::thread::scope(|s| {
        let map = &map;
        let receivers: Vec<mpsc::Receiver<Vec<R>>> = (0..threads)
            .map(|w| {
                let (tx, rx) = mpsc::sync_channel(1);
                s.spawn(move || {
                    for b in (w..batches).step_by(threads) {
                        let start = b * batch;
                        let out = (start..(start + batch).min(n)).map(map).collect();
                        if tx.send(out).is_err() {
                            return; // the consumer stopped
                        }
                    }
                });
                rx
            })
            .collect();
        for b in 0..batches {
            // A worker only ends early when its receiver is gone, so every batch arrives.
            let Ok(results) = receivers[b % threads].recv() else { break };
            for r in results {
                sink(r)?;
            }
        }
        Ok(())
    })
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
            }
        }
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
    fn no_items_no_calls() {
        let r: Result<(), ()> = map_in_order(0, 4, 8, |_| panic!("no item"), |_: ()| panic!("no result"));
        assert!(r.is_ok());
    }
}
