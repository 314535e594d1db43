//! LKP Explorer web app: plain, natively tested modules (URL state, facets, metric search,
//! chart geometry, compare rows, the changes list, latency distributions, HTML of large tables)
//! plus thin Leptos components that only exist on wasm32.

/// `as_str`, `FromStr` and `ALL` for an enum from one table of spellings (the view state's, the
/// actions' of `html::Act`): the URL, the HTML and their handlers all go through it, so each
/// string is written once.
macro_rules! spelled {
    ($t:ident { $($v:ident => $s:literal),+ $(,)? }) => {
        impl $t {
            pub const ALL: &'static [$t] = &[$($t::$v),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($t::$v => $s),+
                }
            }
        }

        impl std::str::FromStr for $t {
            type Err = ();

            fn from_str(s: &str) -> Result<$t, ()> {
                $t::ALL.iter().copied().find(|v| v.as_str() == s).ok_or(())
            }
        }
    };
}

pub mod catalog;
pub mod changes;
pub mod compare;
pub mod data;
pub mod dist;
pub mod export;
pub mod facets;
pub mod html;
pub mod mail;
pub mod reports;
pub mod search;
pub mod shared;
pub mod state;
pub mod trend;
pub mod views;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
