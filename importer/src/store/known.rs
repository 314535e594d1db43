//! Files an import need not serialise again. The files the importer makes from values (trend
//! chunks, job compare files, changes pages) are named by the value's fingerprint: XXH3-64 of the
//! value in an unambiguous binary encoding (`print`), several times cheaper to make than the JSON,
//! whose floats must be formatted. An import that makes a value whose file is already in the
//! directory names that file and does not serialise the value again. Because the JSON of a value
//! is a function of the value, the same name still means the same bytes; `lkpx check` verifies
//! each such file by the fingerprint of the value it parses to. Each of these values carries
//! `SCHEMA_VERSION`, so the fingerprint covers the schema: a change of how a value is written as
//! JSON must bump it (as any change of a published shape must), or an import into a directory of
//! the older encoding would keep those files.

use serde::ser::{self, Serialize};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The fingerprint of `v` as a file name's hash part: 16 hex digits of XXH3-64 of its encoding.
pub fn print<T: Serialize + ?Sized>(v: &T) -> String {
    let mut e = Encoder { buf: Vec::with_capacity(BUF), hash: Xxh3::new() };
    v.serialize(&mut e).expect("every published shape encodes");
    e.hash.update(&e.buf);
    format!("{:016x}", e.hash.digest())
}

const BUF: usize = 1 << 16;

/// The directory an import writes into, as far as value files go: which are there already.
#[derive(Default)]
pub struct Known {
    dir: Option<PathBuf>,
}

impl Known {
    /// Nothing there (a new directory, or files to be made whatever is there).
    pub fn none() -> Known {
        Known::default()
    }

    /// The files in `dir`.
    pub fn at(dir: &Path) -> Known {
        Known { dir: Some(dir.to_path_buf()) }
    }

    /// The size of the file `rel`, when it is there (and not empty).
    pub fn size(&self, rel: &str) -> Option<u64> {
        let m = std::fs::metadata(self.dir.as_ref()?.join(rel)).ok()?;
        (m.is_file() && m.len() > 0).then_some(m.len())
    }
}

/// The encoding: numbers as their little-endian bytes, strings with their length, `None` 0 and
/// `Some` 1 before the value, each element of a sequence or map after a 1 and the sequence ended
/// by a 0, each struct field after its name (a skipped field writes nothing) and the struct ended
/// by a length no name has. For values of one type, different values encode differently.
struct Encoder {
    buf: Vec<u8>,
    hash: Xxh3,
}

impl Encoder {
    fn put(&mut self, b: &[u8]) {
        if self.buf.len() + b.len() > BUF {
            self.hash.update(&self.buf);
            self.buf.clear();
        }
        self.buf.extend_from_slice(b);
    }

    fn put_str(&mut self, s: &[u8]) {
        self.put(&(s.len() as u64).to_le_bytes());
        self.put(s);
    }
}

#[derive(Debug)]
struct Never(String);

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Never(msg.to_string())
    }
}

macro_rules! le {
    ($($f:ident: $t:ty),*) => { $( fn $f(self, v: $t) -> Result<(), Never> { self.put(&v.to_le_bytes()); Ok(()) } )* };
}

impl ser::Serializer for &mut Encoder {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    le!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_u8: u8,
        serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    // every NaN alike: JSON writes each as `null`, and a file is checked by what it parses to
    fn serialize_f32(self, v: f32) -> Result<(), Never> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Never> {
        let v = if v.is_nan() { f64::NAN } else { v };
        self.put(&v.to_le_bytes());
        Ok(())
    }

    fn serialize_bool(self, v: bool) -> Result<(), Never> {
        self.put(&[u8::from(v)]);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Never> {
        self.serialize_u32(v as u32)
    }
    fn serialize_str(self, v: &str) -> Result<(), Never> {
        self.put_str(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Never> {
        self.put_str(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Never> {
        self.put(&[0]);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Never> {
        self.put(&[1]);
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Never> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Never> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, i: u32, _: &'static str) -> Result<(), Never> {
        self.serialize_u32(i)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Never> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        i: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), Never> {
        self.serialize_u32(i)?;
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Never> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Never> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, i: u32, _: &'static str, _: usize) -> Result<Self, Never> {
        self.serialize_u32(i)?;
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Never> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, i: u32, _: &'static str, _: usize) -> Result<Self, Never> {
        self.serialize_u32(i)?;
        Ok(self)
    }
}

/// Sequences, tuples and maps: each element after a 1, the end a 0.
macro_rules! elements {
    ($($tr:ident :: $f:ident),*) => { $(
        impl ser::$tr for &mut Encoder {
            type Ok = ();
            type Error = Never;
            fn $f<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
                self.put(&[1]);
                v.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Never> {
                self.put(&[0]);
                Ok(())
            }
        }
    )* };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for &mut Encoder {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Never> {
        self.put(&[1]);
        k.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Never> {
        self.put(&[0]);
        Ok(())
    }
}

/// Structs: each field after its name, the end a length no name has.
macro_rules! fields {
    ($($tr:ident),*) => { $(
        impl ser::$tr for &mut Encoder {
            type Ok = ();
            type Error = Never;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<(), Never> {
                self.put_str(k.as_bytes());
                v.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Never> {
                self.put(&u64::MAX.to_le_bytes());
                Ok(())
            }
        }
    )* };
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;

    /// Values a JSON file tells apart have different fingerprints: fields skipped or not, where
    /// a string ends, which element of a sequence a value is in.
    #[test]
    fn values_that_differ_print_differently() {
        let rec =
            |p: Option<f64>, n: Option<f64>| model::ChangeRecord { p_value: p, noise_ratio: n, ..Default::default() };
        assert_ne!(print(&rec(Some(1.0), None)), print(&rec(None, Some(1.0))));
        assert_ne!(print(&vec!["ab", "c"]), print(&vec!["a", "bc"]));
        assert_ne!(print(&vec![vec![1u32], vec![]]), print(&vec![vec![], vec![1u32]]));
        assert_ne!(print(&vec![Some(0u32)]), print(&vec![None::<u32>]));
        assert_eq!(print(&rec(Some(0.5), None)), print(&rec(Some(0.5), None)));
        assert_eq!(print(&f64::NAN), print(&-f64::NAN), "a NaN is a NaN");
    }
}
