//! Fingerprints: what an artifact's bytes depend on, hashed in a stable, tagged encoding. A
//! puzzle writes its parameters into one ([`crate::Puzzle::parameters`]); the store checks it.

use xxhash_rust::xxh3::Xxh3;

/// Builds a fingerprint: xxh3-64 over a stable encoding of the values that determine an
/// artifact's (or an export's) bytes.
///
/// The encoding is part of the artifact format (changing it bumps the store's format version): each
/// value is a one-byte tag followed by its bytes, so no two different sequences of values
/// encode alike.
///
/// | value | encoding |
/// |---|---|
/// | number ([`Fingerprint::add_u64`]) | `u` then the `u64`, little endian |
/// | signed number ([`Fingerprint::add_i64`]) | `i` then the `i64`, little endian |
/// | string ([`Fingerprint::add_str`]) | `s`, the byte length as `u64` LE, the UTF-8 bytes |
/// | bytes ([`Fingerprint::add_bytes`], [`Fingerprint::add_u32s`]) | `b`, the length as `u64` LE, the bytes |
/// | list ([`Fingerprint::add_list`]) | `[`, the item count as `u64` LE; the items follow |
///
/// Every fingerprint starts with the stage (or export) name and its algorithm version, so a
/// build whose stage computes different bytes bumps the version and rebuilds.
#[derive(Debug, Default, Clone)]
pub struct Fingerprint(Xxh3Wrapper);

#[derive(Default, Clone)]
struct Xxh3Wrapper(Xxh3);

impl std::fmt::Debug for Xxh3Wrapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0.digest())
    }
}

impl Fingerprint {
    /// A fingerprint seeded with the stage name and its algorithm version.
    pub fn new(stage: &str, stage_version: u32) -> Self {
        let mut f = Fingerprint::default();
        f.add_str(stage).add_u64(stage_version as u64);
        f
    }

    fn tagged(&mut self, tag: u8, bytes: &[u8]) -> &mut Self {
        self.0.0.update(&[tag]);
        self.0.0.update(bytes);
        self
    }

    pub fn add_u64(&mut self, x: u64) -> &mut Self {
        self.tagged(b'u', &x.to_le_bytes())
    }

    pub fn add_i64(&mut self, x: i64) -> &mut Self {
        self.tagged(b'i', &x.to_le_bytes())
    }

    pub fn add_bool(&mut self, x: bool) -> &mut Self {
        self.add_u64(x as u64)
    }

    pub fn add_str(&mut self, s: &str) -> &mut Self {
        self.tagged(b's', &(s.len() as u64).to_le_bytes());
        self.0.0.update(s.as_bytes());
        self
    }

    pub fn add_bytes(&mut self, b: &[u8]) -> &mut Self {
        self.tagged(b'b', &(b.len() as u64).to_le_bytes());
        self.0.0.update(b);
        self
    }

    /// A slice of `u32`s, as bytes (`b`, the byte length, the values little endian).
    pub fn add_u32s(&mut self, values: &[u32]) -> &mut Self {
        if cfg!(target_endian = "little") {
            self.add_bytes(bytemuck::cast_slice(values))
        } else {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.add_bytes(&bytes)
        }
    }

    /// Starts a list of `len` items (the caller adds them next).
    pub fn add_list(&mut self, len: usize) -> &mut Self {
        self.tagged(b'[', &(len as u64).to_le_bytes())
    }

    pub fn finish(&self) -> u64 {
        self.0.0.digest()
    }
}
