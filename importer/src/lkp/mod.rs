//! lkp-tests' own formats and rules: result roots (`resultroot`) and its "is this stat changed"
//! comparison (`compare`, `lkp compare`'s rule). The metric lists they share are `reader::direction`.

pub mod compare;
pub mod resultroot;
