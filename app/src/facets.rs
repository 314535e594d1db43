//! Facet filtering of jobs: which jobs match the selection, and per facet value how many jobs
//! would match if that value were chosen given the selections of the *other* facets.

use crate::catalog::facet_value;
use crate::state::{FacetKey, ViewState};
use model::Job;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// One value of a facet as the filter panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetValue {
    /// The value; empty for jobs without this parameter (shown as "(unset)").
    pub value: String,
    /// Jobs having this value among those matching every other facet's selection.
    pub count: usize,
    pub selected: bool,
}

/// A facet with its values, in display order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facet {
    pub key: FacetKey,
    pub values: Vec<FacetValue>,
}

impl Facet {
    /// Facets with one value and no selection say nothing; the panel folds them away.
    pub fn is_trivial(&self) -> bool {
        self.values.len() < 2 && !self.values.iter().any(|v| v.selected)
    }
}

/// Whether a job matches every facet selection, ignoring facet `except`.
pub fn job_matches(job: &Job, state: &ViewState, except: Option<&FacetKey>) -> bool {
    state
        .facets
        .iter()
        .filter(|(k, _)| Some(*k) != except)
        .all(|(k, values)| facet_value(k, job).is_some_and(|v| values.contains(v)))
}

/// Positions of the jobs matching the facet selection.
pub fn matching_jobs(jobs: &[Job], state: &ViewState) -> Vec<usize> {
    jobs.iter().enumerate().filter(|(_, j)| job_matches(j, state, None)).map(|(i, _)| i).collect()
}

/// All facets: testcase, machine, then every job parameter present in any job (or selected).
pub fn facets(jobs: &[Job], state: &ViewState) -> Vec<Facet> {
    let mut keys = vec![FacetKey::Testcase, FacetKey::Machine];
    let mut params: BTreeSet<&str> = jobs.iter().flat_map(|j| j.params.keys().map(|k| k.as_str())).collect();
    for k in state.facets.keys() {
        if let FacetKey::Param(p) = k {
            params.insert(p);
        }
    }
    let mut params: Vec<&str> = params.into_iter().collect();
    model::order::sort_by_key(&mut params, |k| model::param_rank(k));
    keys.extend(params.into_iter().map(|p| FacetKey::Param(p.to_string())));
    // A job counts in facet F when it matches every selection except F's: so per job, which
    // selections it misses. Missing none, it counts everywhere; missing one, only in that facet;
    // missing more, nowhere. One pass over the jobs instead of one per facet.
    let selections: Vec<(&FacetKey, &BTreeSet<String>)> = state.facets.iter().collect();
    let misses: Vec<Miss> = jobs
        .iter()
        .map(|job| {
            let mut miss = Miss::None;
            for (i, (k, values)) in selections.iter().enumerate() {
                if !facet_value(k, job).is_some_and(|v| values.contains(v)) {
                    miss = match miss {
                        Miss::None => Miss::One(i),
                        _ => return Miss::Many,
                    };
                }
            }
            miss
        })
        .collect();
    keys.into_iter()
        .map(|key| {
            let own = selections.iter().position(|(k, _)| **k == key);
            let counts = |m: &Miss| match *m {
                Miss::None => true,
                Miss::One(i) => Some(i) == own,
                Miss::Many => false,
            };
            facet(jobs, state, key, |j| counts(&misses[j]))
        })
        .collect()
}

/// Which facet selections a job fails.
#[derive(Clone, Copy)]
enum Miss {
    None,
    /// Exactly this one (position in `ViewState::facets`).
    One(usize),
    Many,
}

fn facet(jobs: &[Job], state: &ViewState, key: FacetKey, counts_here: impl Fn(usize) -> bool) -> Facet {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (j, job) in jobs.iter().enumerate() {
        let v = facet_value(&key, job).unwrap_or("");
        let c = counts.entry(v).or_default();
        if counts_here(j) {
            *c += 1;
        }
    }
    let mut values: Vec<FacetValue> = counts
        .into_iter()
        .map(|(v, count)| FacetValue { value: v.to_string(), count, selected: state.is_selected(&key, v) })
        .collect();
    for v in state.selected(&key) {
        if !values.iter().any(|x| &x.value == v) {
            values.push(FacetValue { value: v.clone(), count: 0, selected: true });
        }
    }
    model::order::sort_by(&mut values, |a, b| natural_cmp(&a.value, &b.value));
    Facet { key, values }
}

/// The testcase facet also lists the testcases whose catalogs are not loaded (`(name, jobs)`):
/// their count is the root's job count (the other facets' selections cannot narrow it until the
/// catalog is loaded, which choosing the testcase does).
pub fn with_unloaded(mut all: Vec<Facet>, unloaded: &[(String, usize)], state: &ViewState) -> Vec<Facet> {
    if let Some(f) = all.iter_mut().find(|f| f.key == FacetKey::Testcase) {
        for (name, jobs) in unloaded {
            if !f.values.iter().any(|v| &v.value == name) {
                let selected = state.is_selected(&FacetKey::Testcase, name);
                f.values.push(FacetValue { value: name.clone(), count: *jobs, selected });
            }
        }
        model::order::sort_by(&mut f.values, |a, b| natural_cmp(&a.value, &b.value));
    }
    all
}

/// Compare strings with digit runs compared as numbers (`8 < 16 < 64`, `1HDD < 2HDD`).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (trim_zeros(&a[..na]), trim_zeros(&b[..nb]));
                let ord = da.len().cmp(&db.len()).then(da.cmp(db)).then(na.cmp(&nb));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_index;

    fn counts(f: &Facet) -> Vec<(String, usize, bool)> {
        f.values.iter().map(|v| (v.value.clone(), v.count, v.selected)).collect()
    }

    fn find<'a>(fs: &'a [Facet], name: &str) -> &'a Facet {
        fs.iter().find(|f| f.key.name() == name).unwrap()
    }

    #[test]
    fn counts_follow_the_other_facets() {
        let idx = sample_index();
        let mut s = ViewState::default();
        let fs = facets(&idx.jobs, &s);
        let names: Vec<&str> = fs.iter().map(|f| f.key.name()).collect();
        assert_eq!(names, ["testcase", "machine", "fs", "disk", "rw"]);
        assert_eq!(counts(find(&fs, "fs")), [("ext4".into(), 1, false), ("xfs".into(), 2, false)]);
        assert_eq!(counts(find(&fs, "rw")), [("".into(), 2, false), ("write".into(), 1, false)]);

        s.toggle(&FacetKey::Testcase, "blogbench");
        let fs = facets(&idx.jobs, &s);
        // Own facet ignores its own selection; others follow it.
        assert_eq!(counts(find(&fs, "testcase")), [("blogbench".into(), 2, true), ("fio-basic".into(), 1, false)]);
        assert_eq!(counts(find(&fs, "fs")), [("ext4".into(), 1, false), ("xfs".into(), 1, false)]);
        assert_eq!(counts(find(&fs, "disk")), [("1HDD".into(), 0, false), ("1SSD".into(), 2, false)]);
        assert_eq!(matching_jobs(&idx.jobs, &s), [0, 1]);

        s.toggle(&FacetKey::Param("fs".into()), "xfs");
        assert_eq!(matching_jobs(&idx.jobs, &s), [0]);
        s.toggle(&FacetKey::Param("fs".into()), "ext4");
        assert_eq!(matching_jobs(&idx.jobs, &s), [0, 1]);
        // Jobs without a parameter match its "(unset)" value.
        s.toggle(&FacetKey::Param("rw".into()), "");
        assert_eq!(matching_jobs(&idx.jobs, &s), [0, 1]);
    }

    #[test]
    fn selected_values_absent_from_data_stay_visible() {
        let idx = sample_index();
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Param("bs".into()), "4k");
        let fs = facets(&idx.jobs, &s);
        assert_eq!(counts(find(&fs, "bs")), [("".into(), 3, false), ("4k".into(), 0, true)]);
        assert!(!find(&fs, "bs").is_trivial());
        assert!(find(&facets(&idx.jobs, &ViewState::default()), "machine").values.len() == 2);
    }

    #[test]
    fn counts_equal_the_definition_under_several_selections() {
        let idx = sample_index();
        let mut s = ViewState::default();
        for (k, v) in [
            (FacetKey::Param("fs".into()), "xfs"),
            (FacetKey::Machine, "lkp-csl-2sp3"),
            (FacetKey::Param("disk".into()), "1SSD"),
            (FacetKey::Param("rw".into()), ""),
            (FacetKey::Testcase, "blogbench"),
        ] {
            s.toggle(&k, v);
            for f in facets(&idx.jobs, &s) {
                for v in &f.values {
                    let want = idx
                        .jobs
                        .iter()
                        .filter(|j| {
                            facet_value(&f.key, j) == Some(v.value.as_str()) && job_matches(j, &s, Some(&f.key))
                        })
                        .count();
                    assert_eq!(v.count, want, "{:?} {:?} under {}", f.key, v.value, s.to_query());
                }
            }
        }
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["64", "8", "16", "1HDD", "2HDD", "10HDD", "", "a", "08", "100%"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["", "1HDD", "2HDD", "8", "08", "10HDD", "16", "64", "100%", "a"]);
    }

    #[test]
    fn unloaded_testcases_are_offered_with_their_root_counts() {
        let idx = crate::catalog::tests::sample_index();
        let mut s = ViewState::default();
        s.toggle(&FacetKey::Testcase, "blogbench");
        let all = with_unloaded(facets(&idx.jobs, &s), &[("aim7".into(), 4), ("blogbench".into(), 9)], &s);
        let tc = all.iter().find(|f| f.key == FacetKey::Testcase).unwrap();
        let got: Vec<(&str, usize, bool)> = tc.values.iter().map(|v| (v.value.as_str(), v.count, v.selected)).collect();
        assert_eq!(got, [("aim7", 4, false), ("blogbench", 2, true), ("fio-basic", 1, false)]);
    }
}
