//! The binary artifact format every stage writes and reads.
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"HUARONG\x01"
//!      8     4  format version (little endian u32)
//!     12     4  header length (128)
//!     16    16  kind, NUL-padded ASCII ("states", "csr", ...)
//!     32     8  fingerprint: hash of puzzle, space, parameters and input-artifact checksums
//!     40     8  checksum: xxh3 over the payload (in 4 MiB chunks, then over the chunk hashes)
//!     48    48  three sections: (element size u32, reserved u32, element count u64)
//!     96    32  label, NUL-padded UTF-8 (for humans: puzzle space and stage)
//!    128     …  payload: the sections in order, each padded to a multiple of 64 bytes
//! ```
//!
//! Writes are atomic: the artifact is built in a temporary file beside its destination, its
//! checksum and header are written last, the file is flushed and synced, then renamed into place.
//! A reader checks magic, version, kind, size, fingerprint and checksum before handing out data.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use bytemuck::Pod;
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Magic bytes at the start of every artifact.
pub const MAGIC: [u8; 8] = *b"HUARONG\x01";
/// Current artifact format version.
pub const FORMAT_VERSION: u32 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 128;
/// Maximum number of sections in one artifact.
pub const MAX_SECTIONS: usize = 3;
const CHUNK: usize = 4 << 20;

/// Why an artifact could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not a huarong artifact (bad magic bytes)")]
    BadMagic { path: PathBuf },
    #[error("{path}: artifact format version {found}, this build reads version {FORMAT_VERSION}")]
    BadVersion { path: PathBuf, found: u32 },
    #[error("{path}: expected a {expected:?} artifact, found {found:?}")]
    WrongKind {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{path}: truncated or extended: header promises {expected} bytes, file has {found}")]
    WrongSize {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error(
        "{path}: checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
    )]
    BadChecksum {
        path: PathBuf,
        stored: u64,
        computed: u64,
    },
    #[error(
        "{path}: stale: built from other inputs or parameters (fingerprint {found:016x}, expected {expected:016x})"
    )]
    Stale {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{path}: malformed header: {what}")]
    BadHeader { path: PathBuf, what: String },
}

impl ArtifactError {
    fn io(path: &Path, source: io::Error) -> Self {
        ArtifactError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// The shape of one payload section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// Bytes per element (1, 2, 4 or 8).
    pub elem_size: u32,
    /// Number of elements.
    pub len: u64,
}

impl Section {
    /// A section of `len` elements of type `T`.
    pub fn of<T: Pod>(len: u64) -> Self {
        Section {
            elem_size: std::mem::size_of::<T>() as u32,
            len,
        }
    }

    fn padded_bytes(&self) -> u64 {
        (self.elem_size as u64 * self.len).div_ceil(64) * 64
    }
}

/// The decoded header of an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub kind: String,
    pub fingerprint: u64,
    pub checksum: u64,
    pub sections: Vec<Section>,
    pub label: String,
}

impl Header {
    fn payload_len(&self) -> u64 {
        self.sections.iter().map(Section::padded_bytes).sum()
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        put_str(&mut h[16..32], &self.kind);
        h[32..40].copy_from_slice(&self.fingerprint.to_le_bytes());
        h[40..48].copy_from_slice(&self.checksum.to_le_bytes());
        for (i, s) in self.sections.iter().enumerate() {
            let o = 48 + 16 * i;
            h[o..o + 4].copy_from_slice(&s.elem_size.to_le_bytes());
            h[o + 8..o + 16].copy_from_slice(&s.len.to_le_bytes());
        }
        put_str(&mut h[96..128], &self.label);
        h
    }

    fn decode(path: &Path, bytes: &[u8]) -> Result<Header, ArtifactError> {
        if bytes.len() < HEADER_LEN {
            return Err(ArtifactError::WrongSize {
                path: path.to_owned(),
                expected: HEADER_LEN as u64,
                found: bytes.len() as u64,
            });
        }
        if bytes[0..8] != MAGIC {
            return Err(ArtifactError::BadMagic {
                path: path.to_owned(),
            });
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(ArtifactError::BadVersion {
                path: path.to_owned(),
                found: version,
            });
        }
        if u32_at(12) as usize != HEADER_LEN {
            return Err(ArtifactError::BadHeader {
                path: path.to_owned(),
                what: format!("header length {}", u32_at(12)),
            });
        }
        let mut sections = Vec::new();
        for i in 0..MAX_SECTIONS {
            let o = 48 + 16 * i;
            let elem_size = u32_at(o);
            let len = u64_at(o + 8);
            if elem_size == 0 {
                if len != 0 {
                    return Err(ArtifactError::BadHeader {
                        path: path.to_owned(),
                        what: format!("section {i} has elements of size 0"),
                    });
                }
                break;
            }
            if !matches!(elem_size, 1 | 2 | 4 | 8) || len > (1 << 40) {
                return Err(ArtifactError::BadHeader {
                    path: path.to_owned(),
                    what: format!("section {i}: {len} elements of {elem_size} bytes"),
                });
            }
            sections.push(Section { elem_size, len });
        }
        Ok(Header {
            kind: get_str(&bytes[16..32]),
            fingerprint: u64_at(32),
            checksum: u64_at(40),
            sections,
            label: get_str(&bytes[96..128]),
        })
    }
}

fn put_str(dst: &mut [u8], s: &str) {
    let mut n = s.len().min(dst.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    dst[..n].copy_from_slice(&s.as_bytes()[..n]);
}

fn get_str(src: &[u8]) -> String {
    let end = src.iter().position(|&b| b == 0).unwrap_or(src.len());
    String::from_utf8_lossy(&src[..end]).into_owned()
}

/// The payload checksum: xxh3 of each 4 MiB chunk (in parallel), then xxh3 of those hashes.
pub fn checksum(payload: &[u8]) -> u64 {
    let hashes: Vec<u64> = payload.par_chunks(CHUNK).map(xxh3_64).collect();
    let mut h = Xxh3::new();
    h.update(&(payload.len() as u64).to_le_bytes());
    for x in hashes {
        h.update(&x.to_le_bytes());
    }
    h.digest()
}

/// Builds a fingerprint from the parts that determine an artifact's content.
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
    /// A fingerprint seeded with the stage name and its code version.
    pub fn new(stage: &str, stage_version: u32) -> Self {
        let mut f = Fingerprint::default();
        f.add_str(stage).add_u64(stage_version as u64);
        f
    }

    pub fn add_str(&mut self, s: &str) -> &mut Self {
        self.0.0.update(&(s.len() as u64).to_le_bytes());
        self.0.0.update(s.as_bytes());
        self
    }

    pub fn add_u64(&mut self, x: u64) -> &mut Self {
        self.0.0.update(&x.to_le_bytes());
        self
    }

    pub fn finish(&self) -> u64 {
        self.0.0.digest()
    }
}

/// An artifact under construction in a temporary file; dropped unfinished, the file is removed.
#[derive(Debug)]
pub struct ArtifactWriter {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<File>,
    map: MmapMut,
    header: Header,
}

impl ArtifactWriter {
    /// Creates the temporary file for an artifact at `dest` with the given sections.
    pub fn create(
        dest: &Path,
        kind: &str,
        fingerprint: u64,
        label: &str,
        sections: &[Section],
    ) -> Result<Self, ArtifactError> {
        assert!(sections.len() <= MAX_SECTIONS && kind.len() <= 16);
        let header = Header {
            kind: kind.to_owned(),
            fingerprint,
            checksum: 0,
            sections: sections.to_vec(),
            label: label.to_owned(),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dest.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| ArtifactError::io(&tmp, e))?;
        let total = HEADER_LEN as u64 + header.payload_len();
        let mut writer = ArtifactWriter {
            tmp,
            dest: dest.to_owned(),
            file: Some(file),
            map: MmapMut::map_anon(1).map_err(|e| ArtifactError::io(dest, e))?,
            header,
        };
        let file = writer.file.as_ref().unwrap();
        file.set_len(total)
            .map_err(|e| ArtifactError::io(&writer.tmp, e))?;
        // SAFETY: the file was just created by us and is not shared with other processes.
        writer.map =
            unsafe { MmapMut::map_mut(file) }.map_err(|e| ArtifactError::io(&writer.tmp, e))?;
        Ok(writer)
    }

    /// Mutable views of all sections, typed by the caller with [`cast_mut`].
    pub fn sections_mut(&mut self) -> Vec<&mut [u8]> {
        let mut rest = &mut self.map[HEADER_LEN..];
        let mut out = Vec::new();
        for s in &self.header.sections {
            let (head, tail) = rest.split_at_mut(s.padded_bytes() as usize);
            out.push(&mut head[..(s.elem_size as u64 * s.len) as usize]);
            rest = tail;
        }
        out
    }

    /// The single section of a one-section artifact, typed.
    pub fn section_mut<T: Pod>(&mut self) -> &mut [T] {
        let mut all = self.sections_mut();
        cast_mut(all.swap_remove(0))
    }

    /// Checksums the payload, writes the header, syncs and renames the file into place.
    pub fn finish(mut self) -> Result<Header, ArtifactError> {
        self.header.checksum = checksum(&self.map[HEADER_LEN..]);
        let h = self.header.encode();
        self.map[..HEADER_LEN].copy_from_slice(&h);
        self.map
            .flush()
            .map_err(|e| ArtifactError::io(&self.tmp, e))?;
        let file = self.file.take().unwrap();
        file.sync_all()
            .map_err(|e| ArtifactError::io(&self.tmp, e))?;
        drop(file);
        fs::rename(&self.tmp, &self.dest).map_err(|e| ArtifactError::io(&self.dest, e))?;
        if let Some(dir) = self.dest.parent()
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(self.header.clone())
    }
}

impl Drop for ArtifactWriter {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Reinterprets a byte section as elements of `T` (sections are 64-byte aligned).
pub fn cast_mut<T: Pod>(bytes: &mut [u8]) -> &mut [T] {
    bytemuck::cast_slice_mut(bytes)
}

/// What a reader expects of an artifact.
#[derive(Debug, Clone, Copy)]
pub struct Expect<'a> {
    pub kind: &'a str,
    /// `None` accepts any fingerprint (e.g. `huarong verify` checking integrity only).
    pub fingerprint: Option<u64>,
}

/// A verified, memory-mapped artifact.
#[derive(Debug)]
pub struct Artifact {
    path: PathBuf,
    map: Mmap,
    header: Header,
}

impl Artifact {
    /// Opens and fully verifies an artifact: magic, version, kind, size, fingerprint, checksum.
    pub fn open(path: &Path, expect: Expect<'_>) -> Result<Artifact, ArtifactError> {
        let file = File::open(path).map_err(|e| ArtifactError::io(path, e))?;
        // SAFETY: artifacts are only ever replaced by rename, never modified in place.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| ArtifactError::io(path, e))?;
        let header = Header::decode(path, &map)?;
        if header.kind != expect.kind {
            return Err(ArtifactError::WrongKind {
                path: path.to_owned(),
                expected: expect.kind.to_owned(),
                found: header.kind,
            });
        }
        let expected_len = HEADER_LEN as u64 + header.payload_len();
        if map.len() as u64 != expected_len {
            return Err(ArtifactError::WrongSize {
                path: path.to_owned(),
                expected: expected_len,
                found: map.len() as u64,
            });
        }
        if let Some(fp) = expect.fingerprint
            && fp != header.fingerprint
        {
            return Err(ArtifactError::Stale {
                path: path.to_owned(),
                expected: fp,
                found: header.fingerprint,
            });
        }
        let computed = checksum(&map[HEADER_LEN..]);
        if computed != header.checksum {
            return Err(ArtifactError::BadChecksum {
                path: path.to_owned(),
                stored: header.checksum,
                computed,
            });
        }
        Ok(Artifact {
            path: path.to_owned(),
            map,
            header,
        })
    }

    /// Reads just the header of any artifact (no checksum check).
    pub fn peek_header(path: &Path) -> Result<Header, ArtifactError> {
        use std::io::Read;
        let mut buf = [0u8; HEADER_LEN];
        let mut f = File::open(path).map_err(|e| ArtifactError::io(path, e))?;
        let n = f.read(&mut buf).map_err(|e| ArtifactError::io(path, e))?;
        Header::decode(path, &buf[..n])
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Section `i`, typed. Panics if `T` does not match the stored element size.
    pub fn section<T: Pod>(&self, i: usize) -> &[T] {
        let mut start = HEADER_LEN;
        for s in &self.header.sections[..i] {
            start += s.padded_bytes() as usize;
        }
        let s = self.header.sections[i];
        assert_eq!(s.elem_size as usize, std::mem::size_of::<T>());
        bytemuck::cast_slice(&self.map[start..start + (s.elem_size as u64 * s.len) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_sample(path: &Path) -> Header {
        let mut w = ArtifactWriter::create(
            path,
            "sample",
            42,
            "test",
            &[Section::of::<u64>(1000), Section::of::<u16>(7)],
        )
        .unwrap();
        {
            let mut s = w.sections_mut();
            let (a, b) = s.split_at_mut(1);
            let a: &mut [u64] = cast_mut(a[0]);
            let b: &mut [u16] = cast_mut(b[0]);
            for (i, x) in a.iter_mut().enumerate() {
                *x = i as u64 * 3;
            }
            b.fill(9);
        }
        w.finish().unwrap()
    }

    const EXPECT: Expect<'static> = Expect {
        kind: "sample",
        fingerprint: Some(42),
    };

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        let h = write_sample(&p);
        let a = Artifact::open(&p, EXPECT).unwrap();
        assert_eq!(a.header(), &h);
        assert_eq!(a.section::<u64>(0)[999], 2997);
        assert_eq!(a.section::<u16>(1), &[9; 7]);
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn detects_truncation_flips_staleness_and_kind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        write_sample(&p);
        let bytes = fs::read(&p).unwrap();

        fs::write(&p, &bytes[..bytes.len() - 1]).unwrap();
        assert!(matches!(
            Artifact::open(&p, EXPECT),
            Err(ArtifactError::WrongSize { .. })
        ));
        fs::write(&p, &bytes[..50]).unwrap();
        assert!(Artifact::open(&p, EXPECT).is_err());

        let mut flipped = bytes.clone();
        flipped[HEADER_LEN + 100] ^= 0x10;
        fs::write(&p, &flipped).unwrap();
        assert!(matches!(
            Artifact::open(&p, EXPECT),
            Err(ArtifactError::BadChecksum { .. })
        ));

        let mut magic = bytes.clone();
        magic[0] = b'X';
        fs::write(&p, &magic).unwrap();
        assert!(matches!(
            Artifact::open(&p, EXPECT),
            Err(ArtifactError::BadMagic { .. })
        ));

        fs::write(&p, &bytes).unwrap();
        let stale = Expect {
            kind: "sample",
            fingerprint: Some(43),
        };
        assert!(matches!(
            Artifact::open(&p, stale),
            Err(ArtifactError::Stale { .. })
        ));
        let other = Expect {
            kind: "other",
            fingerprint: None,
        };
        assert!(matches!(
            Artifact::open(&p, other),
            Err(ArtifactError::WrongKind { .. })
        ));
    }

    #[test]
    fn unfinished_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        let w = ArtifactWriter::create(&p, "sample", 1, "", &[Section::of::<u32>(10)]).unwrap();
        drop(w);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
