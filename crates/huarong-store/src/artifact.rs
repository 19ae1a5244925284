//! The binary artifact format every stage writes and reads.
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"HUARONG\x01"
//!      8     4  format version (little endian u32)
//!     12     4  header length (128)
//!     16    16  kind, NUL-padded ASCII ("states", "csr", ...)
//!     32     8  fingerprint: hash of puzzle, space, parameters and input-artifact checksums
//!                 (what each stage puts in it: its crate's `fingerprint`; how: [`Fingerprint`])
//!     40     8  checksum: xxh3 over the payload (in 4 MiB chunks, then over the chunk hashes)
//!     48    48  three sections: (element size u32, reserved u32, element count u64)
//!     96    32  label, NUL-padded UTF-8 (for humans: puzzle space and stage)
//!    128     …  payload: the sections in order, each padded to a multiple of 64 bytes
//! ```
//!
//! Writes are atomic: the artifact is built in a temporary file beside its destination with
//! positioned writes (`pwrite`, safe from many threads at once), its checksum and header are
//! written last, then it is renamed into place; a writer dropped unfinished removes its temporary
//! file. `fsync` before the rename is optional ([`crate::atomic::set_durable`]): the checksum already guarantees
//! that a file torn by a power loss is detected, never read.
//!
//! A reader checks magic, version, kind, size, fingerprint and checksum before handing out data.
//! Verification reads the file with ordinary reads rather than through the map, so an artifact's
//! pages only count towards the process's resident memory once they are used.
//!
//! Every open hashes the payload, but for a reader that keeps a [`Hashed`] memo (the Python
//! package's `Outputs`, which hands the same tables out many times): a file it hashed in full,
//! unchanged since (same device, inode, size, modification and change times) and whose header
//! carries the same checksum, is not hashed again. A run needs none: its stages hand what they
//! built or verified to the export in memory.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bytemuck::Pod;
use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Magic bytes at the start of every artifact.
pub const MAGIC: [u8; 8] = *b"HUARONG\x01";
/// Current artifact format version. Version 2: fingerprints use the tagged encoding of
/// [`Fingerprint`] and cover every input (version 1 artifacts are rebuilt, never read).
pub const FORMAT_VERSION: u32 = 2;
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
    /// A missing file is not found, other IO the system failing; every other error is a file
    /// that is there but not this artifact as it must be (corrupt, or stale: rebuild it).
    pub fn kind(&self) -> huarong_core::ErrorKind {
        match self {
            ArtifactError::Io { source, .. } => huarong_core::ErrorKind::of_io(source),
            _ => huarong_core::ErrorKind::Corrupt,
        }
    }

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

fn truncate(s: &str, max: usize) -> &str {
    let mut n = s.len().min(max);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

fn put_str(dst: &mut [u8], s: &str) {
    let s = truncate(s, dst.len());
    dst[..s.len()].copy_from_slice(s.as_bytes());
}

fn get_str(src: &[u8]) -> String {
    let end = src.iter().position(|&b| b == 0).unwrap_or(src.len());
    String::from_utf8_lossy(&src[..end]).into_owned()
}

/// The payload checksum: xxh3 of each 4 MiB chunk (in parallel), then xxh3 of those hashes.
pub fn checksum(payload: &[u8]) -> u64 {
    let hashes: Vec<u64> = payload.par_chunks(CHUNK).map(xxh3_64).collect();
    combine(payload.len() as u64, &hashes)
}

/// The payload checksum of an artifact file of `len` bytes, read in parallel chunks.
fn checksum_file(file: &File, len: u64) -> io::Result<u64> {
    let payload = len.saturating_sub(HEADER_LEN as u64);
    let chunks = payload.div_ceil(CHUNK as u64);
    // A buffer no larger than the payload: most artifacts are far smaller than a chunk (the
    // Klotski universe writes about 1,400), and each buffer is zeroed when it is allocated.
    let buffer = payload.min(CHUNK as u64) as usize;
    let hashes: Vec<u64> = (0..chunks)
        .into_par_iter()
        .map_init(
            || vec![0u8; buffer],
            |buf, k| {
                let start = k * CHUNK as u64;
                let n = (payload - start).min(CHUNK as u64) as usize;
                file.read_exact_at(&mut buf[..n], HEADER_LEN as u64 + start)?;
                Ok(xxh3_64(&buf[..n]))
            },
        )
        .collect::<io::Result<_>>()?;
    Ok(combine(payload, &hashes))
}

fn combine(payload_len: u64, hashes: &[u64]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&payload_len.to_le_bytes());
    for x in hashes {
        h.update(&x.to_le_bytes());
    }
    h.digest()
}

/// xxh3 of a whole file's contents, streamed.
pub fn hash_file(path: &Path) -> io::Result<u64> {
    use std::io::Read;
    let mut f = File::open(path)?;
    let mut h = Xxh3::new();
    let len = f.metadata()?.len();
    let mut buf = vec![0u8; len.clamp(1, CHUNK as u64) as usize];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(h.digest());
        }
        h.update(&buf[..n]);
    }
}

/// What identifies a file's contents without reading them: where it lives and when it last
/// changed. Rename keeps the inode; any write changes the times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(meta: &fs::Metadata) -> Self {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The files one reader hashed in full, by identity, with their checksums: such a file,
/// unchanged since, reopens through [`Artifact::open_for_use_remembered`] without being hashed
/// again. Owned by the reader; nothing is remembered across readers.
#[derive(Debug, Default)]
pub struct Hashed(Mutex<HashMap<(u64, u64), (Identity, u64)>>);

impl Hashed {
    fn remember(&self, file: &File, checksum: u64) {
        if let Ok(meta) = file.metadata() {
            let id = Identity::of(&meta);
            let mut memo = self.0.lock().unwrap_or_else(|e| e.into_inner());
            memo.insert((id.dev, id.ino), (id, checksum));
        }
    }

    fn knows(&self, meta: &fs::Metadata, checksum: u64) -> bool {
        let id = Identity::of(meta);
        let memo = self.0.lock().unwrap_or_else(|e| e.into_inner());
        memo.get(&(id.dev, id.ino))
            .is_some_and(|&(seen, sum)| seen == id && sum == checksum)
    }
}

/// An artifact under construction in a temporary file; dropped unfinished, the file is removed.
///
/// Sections are filled with [`ArtifactWriter::write`], which takes `&self`, so parallel workers
/// can each write their own slice of a section.
#[derive(Debug)]
pub struct ArtifactWriter {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<File>,
    header: Header,
    /// Byte offset of each section in the file.
    starts: Vec<u64>,
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
            label: truncate(label, 32).to_owned(),
        };
        let tmp = crate::atomic::temp_path(dest);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| ArtifactError::io(&tmp, e))?;
        let mut starts = Vec::new();
        let mut at = HEADER_LEN as u64;
        for s in sections {
            starts.push(at);
            at += s.padded_bytes();
        }
        let writer = ArtifactWriter {
            tmp,
            dest: dest.to_owned(),
            file: Some(file),
            header,
            starts,
        };
        writer
            .file()
            .set_len(at)
            .map_err(|e| ArtifactError::io(&writer.tmp, e))?;
        Ok(writer)
    }

    fn file(&self) -> &File {
        self.file.as_ref().expect("the file is open until finish")
    }

    /// Writes `data` into section `section` starting at element `first`.
    ///
    /// Panics if the element type or the range does not fit the section (a programming error).
    pub fn write<T: Pod>(
        &self,
        section: usize,
        first: u64,
        data: &[T],
    ) -> Result<(), ArtifactError> {
        let s = self.header.sections[section];
        assert_eq!(s.elem_size as usize, std::mem::size_of::<T>());
        assert!(
            first + data.len() as u64 <= s.len,
            "write past the end of a section"
        );
        let offset = self.starts[section] + first * s.elem_size as u64;
        self.file()
            .write_all_at(bytemuck::cast_slice(data), offset)
            .map_err(|e| ArtifactError::io(&self.tmp, e))
    }

    /// Checksums the payload, writes the header and renames the file into place.
    pub fn finish(mut self) -> Result<Header, ArtifactError> {
        let file = self.file.take().expect("finish is called once");
        let total = HEADER_LEN as u64 + self.header.payload_len();
        let fail = |e| ArtifactError::io(&self.tmp, e);
        self.header.checksum = checksum_file(&file, total).map_err(fail)?;
        file.write_all_at(&self.header.encode(), 0).map_err(fail)?;
        crate::atomic::commit(Some(&file), &self.tmp, &self.dest)
            .map_err(|e| ArtifactError::io(&self.dest, e))?;
        Ok(self.header.clone())
    }
}

impl Drop for ArtifactWriter {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
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
    /// Byte range of each section in `map`.
    ranges: Vec<std::ops::Range<usize>>,
}

impl Artifact {
    /// Opens and fully verifies an artifact: magic, version, kind, size, fingerprint, checksum.
    pub fn open(path: &Path, expect: Expect<'_>) -> Result<Artifact, ArtifactError> {
        Self::open_hashing(path, expect, false, None)
    }

    /// [`Artifact::open`] for a reader about to use the whole payload (a notebook's array):
    /// the checksum is computed over the map itself, so its pages are read once, in place,
    /// and stay resident for the reader (about twice as fast as reading them into buffers).
    pub fn open_for_use(path: &Path, expect: Expect<'_>) -> Result<Artifact, ArtifactError> {
        Self::open_hashing(path, expect, true, None)
    }

    /// [`Artifact::open_for_use`] for a reader that keeps the memo `hashed`: a file it hashed
    /// before, unchanged since, is not hashed again; any other is, and is remembered.
    pub fn open_for_use_remembered(
        path: &Path,
        expect: Expect<'_>,
        hashed: &Hashed,
    ) -> Result<Artifact, ArtifactError> {
        Self::open_hashing(path, expect, true, Some(hashed))
    }

    fn open_hashing(
        path: &Path,
        expect: Expect<'_>,
        through_map: bool,
        memo: Option<&Hashed>,
    ) -> Result<Artifact, ArtifactError> {
        let (file, artifact) = Self::open_unverified(path, expect, through_map)?;
        let stored = artifact.header.checksum;
        if let Some(memo) = memo
            && let Ok(meta) = file.metadata()
            && memo.knows(&meta, stored)
        {
            return Ok(artifact);
        }
        let computed = if through_map {
            Ok(checksum(
                &artifact.map[HEADER_LEN.min(artifact.map.len())..],
            ))
        } else {
            checksum_file(&file, artifact.map.len() as u64)
        }
        .map_err(|e| ArtifactError::io(path, e))?;
        if computed != stored {
            return Err(ArtifactError::BadChecksum {
                path: path.to_owned(),
                stored,
                computed,
            });
        }
        if let Some(memo) = memo {
            memo.remember(&file, stored);
        }
        Ok(artifact)
    }

    /// Opens an artifact this process has just written, whose header [`ArtifactWriter::finish`]
    /// returned as `written`: everything is checked but the payload checksum, which was computed
    /// from the very bytes on disk a moment ago.
    pub fn open_written(path: &Path, written: &Header) -> Result<Artifact, ArtifactError> {
        let expect = Expect {
            kind: &written.kind,
            fingerprint: Some(written.fingerprint),
        };
        let (_, artifact) = Self::open_unverified(path, expect, false)?;
        if &artifact.header != written {
            return Err(ArtifactError::BadHeader {
                path: path.to_owned(),
                what: "header differs from the one just written".into(),
            });
        }
        Ok(artifact)
    }

    /// The header checked and the file mapped (`populate`: its pages read in now, in bulk).
    fn open_unverified(
        path: &Path,
        expect: Expect<'_>,
        populate: bool,
    ) -> Result<(File, Artifact), ArtifactError> {
        let file = File::open(path).map_err(|e| ArtifactError::io(path, e))?;
        let len = file
            .metadata()
            .map_err(|e| ArtifactError::io(path, e))?
            .len();
        let mut buf = [0u8; HEADER_LEN];
        let n = (len as usize).min(HEADER_LEN);
        file.read_exact_at(&mut buf[..n], 0)
            .map_err(|e| ArtifactError::io(path, e))?;
        let header = Header::decode(path, &buf[..n])?;
        if header.kind != expect.kind {
            return Err(ArtifactError::WrongKind {
                path: path.to_owned(),
                expected: expect.kind.to_owned(),
                found: header.kind,
            });
        }
        let expected_len = HEADER_LEN as u64 + header.payload_len();
        if len != expected_len {
            return Err(ArtifactError::WrongSize {
                path: path.to_owned(),
                expected: expected_len,
                found: len,
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
        // SAFETY: artifacts are only ever replaced by rename, never modified in place.
        let mut options = memmap2::MmapOptions::new();
        if populate {
            options.populate();
        }
        let map = unsafe { options.map(&file) }.map_err(|e| ArtifactError::io(path, e))?;
        let mut ranges = Vec::new();
        let mut start = HEADER_LEN;
        for s in &header.sections {
            ranges.push(start..start + (s.elem_size as u64 * s.len) as usize);
            start += s.padded_bytes() as usize;
        }
        let artifact = Artifact {
            path: path.to_owned(),
            map,
            header,
            ranges,
        };
        Ok((file, artifact))
    }

    /// Its file name in its folder and its payload checksum: what a listing of the folder's
    /// artifacts holds.
    pub fn listed(&self) -> (String, u64) {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        (name.unwrap_or_default(), self.header.checksum)
    }

    /// Reads just the header of any artifact (no checksum check).
    pub fn peek_header(path: &Path) -> Result<Header, ArtifactError> {
        let file = File::open(path).map_err(|e| ArtifactError::io(path, e))?;
        let mut buf = [0u8; HEADER_LEN];
        let mut n = 0;
        while n < HEADER_LEN {
            match file.read_at(&mut buf[n..], n as u64) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) => return Err(ArtifactError::io(path, e)),
            }
        }
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
        assert_eq!(
            self.header.sections[i].elem_size as usize,
            std::mem::size_of::<T>()
        );
        bytemuck::cast_slice(&self.map[self.ranges[i].clone()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_sample(path: &Path) -> Header {
        let w = ArtifactWriter::create(
            path,
            "sample",
            42,
            "test",
            &[Section::of::<u64>(1000), Section::of::<u16>(7)],
        )
        .unwrap();
        let a: Vec<u64> = (0..1000).map(|i| i * 3).collect();
        w.write(0, 0, &a[..500]).unwrap();
        w.write(0, 500, &a[500..]).unwrap();
        w.write(1, 0, &[9u16; 7]).unwrap();
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
    fn hashing_through_the_map_checks_the_same_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        write_sample(&p);
        let a = Artifact::open_for_use(&p, EXPECT).unwrap();
        assert_eq!(a.section::<u64>(0)[1], 3);
        let mut bytes = fs::read(&p).unwrap();
        bytes[HEADER_LEN + 8] ^= 1;
        fs::write(&p, &bytes).unwrap();
        assert!(matches!(
            Artifact::open_for_use(&p, EXPECT),
            Err(ArtifactError::BadChecksum { .. })
        ));
    }

    #[test]
    fn a_memo_skips_hashing_only_what_its_reader_hashed_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        write_sample(&p);
        let memo = Hashed::default();
        let a = Artifact::open_for_use_remembered(&p, EXPECT, &memo).unwrap();
        assert_eq!(a.section::<u64>(0)[1], 3);
        // Corrupted in place (same inode, but the times change): hashed again, and refused.
        let mut bytes = fs::read(&p).unwrap();
        bytes[HEADER_LEN + 8] ^= 1;
        std::thread::sleep(std::time::Duration::from_millis(10));
        fs::write(&p, &bytes).unwrap();
        assert!(matches!(
            Artifact::open_for_use_remembered(&p, EXPECT, &memo),
            Err(ArtifactError::BadChecksum { .. })
        ));
        // A good copy renamed over it is another file: hashed, accepted, then remembered.
        write_sample(&dir.path().join("b.bin"));
        fs::rename(dir.path().join("b.bin"), &p).unwrap();
        Artifact::open_for_use_remembered(&p, EXPECT, &memo).unwrap();
        assert!(memo.knows(&fs::metadata(&p).unwrap(), a.header().checksum));
        // Another reader's memo knows nothing of it.
        assert!(!Hashed::default().knows(&fs::metadata(&p).unwrap(), a.header().checksum));
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
