//! The HTML of a report and of the lists, written by the same functions natively (`lkpx import`
//! writes every report's static page with them) and in wasm (the app shows the same markup and
//! upgrades it). No I/O; markup only through `html::Html`, which escapes every piece of text.

/// `as_str`, `FromStr` and `ALL` for an enum from one table of spellings (the view state's, the
/// actions' of `html::Act`): the URL, the HTML and their handlers all go through it, so each
/// string is written once.
#[macro_export]
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

pub mod carry;
pub mod chart;
pub mod draw;
pub mod html;
pub mod page;
pub mod profile;
pub mod record;
pub mod report;
pub mod rows;
pub mod trend;
