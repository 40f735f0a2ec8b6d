//! Token prefixes: both prompt caches (the slots in memory, the states on disk) match a prompt by the longest
//! common prefix of its tokens.

/// Length of the common prefix of two token lists.
pub fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
