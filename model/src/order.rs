//! One sort for the wasm app.
//!
//! `slice::sort_by` is generic over the element type *and* the comparator closure, so every call
//! site compiles its own copy of the standard library's driftsort (or ipnsort for the unstable
//! sorts): in the app that was ≈ 100 KB of its wasm, 8 % of the page's code. These functions sort
//! `u32` positions through a `dyn` comparator, so the standard sort is compiled once, and then
//! move the elements into that order (a small loop per element type). They are stable, and give
//! exactly what `sort_by` gives on the same comparator (tested against it).
//!
//! The app and the model code it runs use these; the importer's hot native paths keep the
//! standard sorts.

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably: same result as `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<u32> = (0..v.len() as u32).collect();
    sort_positions(&mut order, &|a, b| cmp(&v[a as usize], &v[b as usize]));
    permute(v, &mut order);
}

/// Sorts `v` by a key, stably: same result as `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in ascending order: same result as `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The one instantiation of the standard stable sort.
fn sort_positions(order: &mut [u32], cmp: &dyn Fn(u32, u32) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

/// Reorders `v` so that the new `v[i]` is the old `v[order[i]]`, by following each cycle of the
/// permutation with swaps (no clone, no extra buffer of `T`). Leaves `order` as the identity.
fn permute<T>(v: &mut [T], order: &mut [u32]) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at] as usize;
            order[at] = at as u32;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    #[test]
    #[allow(clippy::unnecessary_sort_by)] // the standard sort with the very comparator ours is given
    fn sorts_exactly_as_the_standard_stable_sort() {
        let mut rng = XorShift::new(7);
        for len in [0usize, 1, 2, 3, 5, 17, 64, 257, 1000] {
            // Keys with many ties, so stability shows: (key, original position).
            let items: Vec<(u32, usize)> = (0..len).map(|i| ((rng.next_u64() % 13) as u32, i)).collect();
            let mut ours = items.clone();
            let mut std = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            std.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(ours, std, "len {len}");
            let mut ours = items.clone();
            let mut std = items;
            sort_by_key(&mut ours, |a| std::cmp::Reverse(a.0));
            std.sort_by_key(|a| std::cmp::Reverse(a.0));
            assert_eq!(ours, std, "len {len}, by key");
        }
    }

    #[test]
    fn moves_owned_values_without_losing_any() {
        let mut words: Vec<String> =
            ["pear", "fig", "apple", "kiwi", "date", "fig"].iter().map(|s| s.to_string()).collect();
        sort(&mut words);
        assert_eq!(words, ["apple", "date", "fig", "fig", "kiwi", "pear"]);
    }
}
