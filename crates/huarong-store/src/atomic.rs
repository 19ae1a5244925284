//! Atomic file replacement, shared by every writer of the pipeline (artifacts, Parquet tables,
//! the export manifest): a file is written under a temporary name beside its destination,
//! `.<name>.tmp-<pid>`, optionally fsynced, then renamed into place. A reader therefore sees the
//! old file or the new one, never a half-written one; a process killed mid-write leaves only a
//! temporary, which [`remove_stale_temporaries`] recognises by its name and removes.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

static DURABLE: AtomicBool = AtomicBool::new(false);

/// Whether writers `fsync` a file (and its folder) before and after renaming it into place.
pub fn set_durable(on: bool) {
    DURABLE.store(on, Ordering::Relaxed);
}

/// The temporary name a file bound for `dest` is written under by this process.
pub fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Moves the finished temporary `tmp` (whose handle is `file`, if still open) to `dest`:
/// fsync first when durable writes are on, then rename, then fsync the folder. On failure the
/// temporary is removed.
pub fn commit(file: Option<&File>, tmp: &Path, dest: &Path) -> io::Result<()> {
    let durable = DURABLE.load(Ordering::Relaxed);
    if durable {
        let synced = match file {
            Some(f) => f.sync_all(),
            None => File::open(tmp).and_then(|f| f.sync_all()),
        };
        if let Err(e) = synced {
            let _ = fs::remove_file(tmp);
            return Err(e);
        }
    }
    if let Err(e) = replace(tmp, dest) {
        let _ = fs::remove_file(tmp);
        return Err(e);
    }
    if durable
        && let Some(dir) = dest.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Moves `tmp` to `dest`. Over an existing `dest` the two are exchanged, then the old file, now
/// at `tmp`, is removed: ext4 starts writing back a file renamed over another in the renaming
/// thread (its `auto_da_alloc` guard for programs that skip fsync) — about 0.3 s of the Klotski
/// universe's `--force` runs, its 1,400 artifacts replaced — but not one exchanged with it.
/// Either way a reader of `dest` sees the old file or the new one; a process killed between
/// the two steps leaves the old one under the temporary name, removed like any temporary.
fn replace(tmp: &Path, dest: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if exchange(tmp, dest).is_ok() {
        // The new file is in place; an old one that cannot be removed now is a stale temporary.
        let _ = fs::remove_file(tmp);
        return Ok(());
    }
    fs::rename(tmp, dest)
}

/// `renameat2(tmp, dest, RENAME_EXCHANGE)`: fails (nothing changed) where `dest` does not exist
/// or the file system cannot exchange.
#[cfg(target_os = "linux")]
fn exchange(tmp: &Path, dest: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let path = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (path(tmp)?, path(dest)?);
    // SAFETY: two NUL-terminated paths that outlive the call; the flag only swaps them.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The bytes an unprivileged writer may still put on the file system holding `dir` (`statvfs`:
/// available blocks × fragment size); `None` where that cannot be read.
#[cfg(unix)]
pub fn free_bytes(dir: &Path) -> Option<u64> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path that outlives the call, and room for the one struct the
    // call fills in; it is read only when the call succeeded.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    Some((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

#[cfg(not(unix))]
pub fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// Writes `bytes` to `dest` atomically.
pub fn write(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_path(dest);
    if let Err(e) = fs::write(&tmp, bytes) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    commit(None, &tmp, dest)
}

/// The process id in a temporary's name, if `name` is one.
fn temporary_pid(name: &str) -> Option<u32> {
    name.strip_prefix('.')
        .and_then(|n| n.rsplit_once(".tmp-"))
        .and_then(|(_, pid)| pid.parse::<u32>().ok())
}

/// Removes the temporary files (`.<name>.tmp-<pid>`) that a killed writer left in `dir`: those
/// whose process is gone (checked through `/proc`; where there is no `/proc`, none are removed).
/// Returns the names removed.
pub fn remove_stale_temporaries(dir: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    if !Path::new("/proc/self").exists() {
        return removed;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return removed;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = temporary_pid(&name) else {
            continue;
        };
        let alive = Path::new(&format!("/proc/{pid}")).exists();
        if !alive && fs::remove_file(e.path()).is_ok() {
            removed.push(name);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The free space of a folder's file system; none for a folder that is not there.
    #[test]
    #[cfg(unix)]
    fn free_bytes_reads_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let free = free_bytes(dir.path()).expect("statvfs works on a temporary folder");
        assert!(free > 0);
        assert_eq!(free_bytes(&dir.path().join("no such folder")), None);
    }

    #[test]
    fn writes_atomically_and_names_temporaries_it_can_clean() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("export.manifest");
        write(&dest, b"one").unwrap();
        write(&dest, b"two").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // Every temporary name this module makes is one the cleaner recognises.
        let tmp = temp_path(&dest);
        let name = tmp.file_name().unwrap().to_str().unwrap();
        assert_eq!(temporary_pid(name), Some(std::process::id()));
        // A dead process's temporary is removed; a live one's (ours) is kept.
        fs::write(&tmp, b"mine").unwrap();
        let dead = dir.path().join(".states.bin.tmp-4000000000");
        fs::write(&dead, b"x").unwrap();
        let removed = remove_stale_temporaries(dir.path());
        assert_eq!(removed, vec![".states.bin.tmp-4000000000".to_owned()]);
        assert!(tmp.exists() && !dead.exists());
    }

    /// A replaced file is exchanged with its new version, the old one removed: the new bytes
    /// under the name, a new inode (a reader holding the old file keeps reading the old bytes),
    /// nothing else left in the folder.
    #[test]
    fn a_replaced_file_is_swapped_for_its_new_version() {
        use std::io::Read;
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("states.bin");
        write(&dest, b"old").unwrap();
        let mut reader = File::open(&dest).unwrap();
        let old_inode = fs::metadata(&dest).unwrap().ino();
        write(&dest, b"new").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"new");
        assert_ne!(fs::metadata(&dest).unwrap().ino(), old_inode);
        let mut held = String::new();
        reader.read_to_string(&mut held).unwrap();
        assert_eq!(held, "old");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("states.bin")]);
    }
}
