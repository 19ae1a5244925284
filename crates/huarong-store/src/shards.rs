//! Per-state artifacts split by owner: what the processes of a multi-process run write instead
//! of gathering every state's value at process 0.
//!
//! A run of `W` workers in all (over several processes) gives state `u` to worker `u mod W`.
//! Worker `k` writes the part of an artifact `<stem>.bin` that holds its own states,
//! `<stem>.<k>-of-<W>.bin`: an ordinary artifact of the same kind whose per-state section lists
//! the values of states `k, k + W, k + 2W, …` in that order (other sections as the stage
//! documents). Each part's fingerprint is [`part_fingerprint`] of the whole artifact's, so a
//! part is read only as part `k` of `W` of the artifact the run expects. Readers take the whole
//! file when it is there, else the complete set of parts ([`parts_of`]), interleaving the values
//! back into index order ([`interleave`]); a run writes one form and removes the other.

use std::path::{Path, PathBuf};

use huarong_core::Fingerprint;

use crate::artifact::{Artifact, Expect};
use crate::stage::StageError;

/// The file name of part `k` of `count` of the artifact named `name` (`<stem>.bin`).
pub fn part_name(name: &str, k: usize, count: usize) -> String {
    let stem = name.strip_suffix(".bin").unwrap_or(name);
    format!("{stem}.{k}-of-{count}.bin")
}

/// The fingerprint part `k` of `count` carries when the whole artifact's is `whole`.
pub fn part_fingerprint(whole: u64, k: usize, count: usize) -> u64 {
    Fingerprint::new("part", 1)
        .add_u64(whole)
        .add_u64(k as u64)
        .add_u64(count as u64)
        .finish()
}

/// The paths of the parts of the artifact `dir/name` when its whole file is absent and part 0
/// is there (the count read from part 0's name); `None` otherwise. Parts may be missing from
/// the list's files: opening them reports it.
pub fn parts_of(dir: &Path, name: &str) -> Option<Vec<PathBuf>> {
    if dir.join(name).exists() {
        return None;
    }
    let stem = name.strip_suffix(".bin").unwrap_or(name);
    let prefix = format!("{stem}.0-of-");
    let count = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().into_string().ok()?;
            file.strip_prefix(&prefix)?
                .strip_suffix(".bin")?
                .parse::<usize>()
                .ok()
        })
        .filter(|&c| c > 0)
        .min()?;
    Some(
        (0..count)
            .map(|k| dir.join(part_name(name, k, count)))
            .collect(),
    )
}

/// An artifact as a reader found it: one file, or its parts.
#[derive(Debug)]
pub enum Opened {
    Whole(Artifact),
    Parts(Vec<Artifact>),
}

/// Opens and verifies the artifact at `path` of `kind` that must carry `fingerprint`: the whole
/// file when it is there, else its parts (each carrying its part's fingerprint).
pub fn open(path: &Path, kind: &str, fingerprint: u64) -> Result<Opened, StageError> {
    let (dir, name) = split(path);
    let Some(parts) = parts_of(dir, name) else {
        let expect = Expect {
            kind,
            fingerprint: Some(fingerprint),
        };
        return Ok(Opened::Whole(Artifact::open(path, expect)?));
    };
    let count = parts.len();
    let opened = parts
        .iter()
        .enumerate()
        .map(|(k, part)| {
            let expect = Expect {
                kind,
                fingerprint: Some(part_fingerprint(fingerprint, k, count)),
            };
            Artifact::open(part, expect)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Opened::Parts(opened))
}

/// Section `section` of every part, interleaved back into index order ([`interleave`]); an
/// error naming `path` when the parts' lengths do not fit together.
pub fn interleave_section<T: bytemuck::Pod + Default>(
    parts: &[Artifact],
    section: usize,
    path: &Path,
) -> Result<Vec<T>, StageError> {
    let slices: Vec<&[T]> = parts.iter().map(|a| a.section(section)).collect();
    interleave(&slices).ok_or_else(|| {
        StageError::Invalid(format!(
            "{}: its {} parts do not fit together",
            path.display(),
            parts.len()
        ))
    })
}

/// The folder and file name of an artifact's path.
pub fn split(path: &Path) -> (&Path, &str) {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    (dir, name)
}

/// What stands for the payload checksum of an artifact read from parts: a hash of theirs.
pub fn checksum(parts: &[Artifact]) -> u64 {
    let mut fp = Fingerprint::new("parts", 1);
    for p in parts {
        fp.add_u64(p.header().checksum);
    }
    fp.finish()
}

/// Removes every form of the artifact `dir/name` but the one a run wrote: `parts = None`, the
/// whole file (every part set goes); `Some(count)`, parts of `count` (the whole file and part
/// sets of other counts go). Returns the names removed.
pub fn remove_other_forms(
    dir: &Path,
    name: &str,
    parts: Option<usize>,
) -> std::io::Result<Vec<String>> {
    let stem = name.strip_suffix(".bin").unwrap_or(name);
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir)?.flatten() {
        let Ok(file) = entry.file_name().into_string() else {
            continue;
        };
        let count = file
            .strip_prefix(stem)
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|r| r.strip_suffix(".bin"))
            .and_then(|r| r.split_once("-of-"))
            .and_then(|(k, w)| k.parse::<usize>().ok().and(w.parse::<usize>().ok()));
        let other = match (count, parts) {
            (Some(w), keep) => keep != Some(w),
            (None, Some(_)) => file == name,
            (None, None) => false,
        };
        // The processes of a run sharing the folder remove the same files: one may be first.
        if other {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => removed.push(file),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    removed.sort();
    Ok(removed)
}

/// The values of worker `k`'s states (`k, k + W, …`) out of the whole, `W = count`.
pub fn part_of<T: Copy>(whole: &[T], k: usize, count: usize) -> Vec<T> {
    whole.iter().skip(k).step_by(count).copied().collect()
}

/// The whole back from its parts (`parts[k]` holds the values of states `k, k + W, …`);
/// `None` if their lengths do not fit together.
pub fn interleave<T: Copy + Default>(parts: &[&[T]]) -> Option<Vec<T>> {
    let count = parts.len();
    let n: usize = parts.iter().map(|p| p.len()).sum();
    let fits = parts
        .iter()
        .enumerate()
        .all(|(k, p)| p.len() == (n + count - 1 - k) / count);
    if count == 0 || !fits {
        return None;
    }
    let mut whole = vec![T::default(); n];
    for (k, part) in parts.iter().enumerate() {
        for (q, &v) in part.iter().enumerate() {
            whole[k + q * count] = v;
        }
    }
    Some(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_interleave_back_to_the_whole() {
        for n in [0usize, 1, 5, 8, 13] {
            let whole: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
            for count in 1..5 {
                let parts: Vec<Vec<u32>> = (0..count).map(|k| part_of(&whole, k, count)).collect();
                let refs: Vec<&[u32]> = parts.iter().map(Vec::as_slice).collect();
                assert_eq!(interleave(&refs).unwrap(), whole, "{n} in {count}");
            }
        }
        assert!(interleave::<u16>(&[&[1, 2], &[]]).is_none());
    }

    #[test]
    fn part_names_and_discovery() {
        assert_eq!(
            part_name("distances-step.bin", 1, 4),
            "distances-step.1-of-4.bin"
        );
        let dir = tempfile::tempdir().unwrap();
        assert!(parts_of(dir.path(), "d.bin").is_none());
        std::fs::write(dir.path().join("d.0-of-2.bin"), b"").unwrap();
        let parts = parts_of(dir.path(), "d.bin").unwrap();
        assert_eq!(parts.len(), 2);
        assert!(parts[1].ends_with("d.1-of-2.bin"));
        std::fs::write(dir.path().join("d.bin"), b"").unwrap();
        assert!(
            parts_of(dir.path(), "d.bin").is_none(),
            "the whole file wins"
        );
        assert_ne!(part_fingerprint(9, 0, 2), part_fingerprint(9, 1, 2));
        // A whole file written: the parts go; parts written: the whole file and other part
        // sets go.
        std::fs::write(dir.path().join("d.1-of-2.bin"), b"").unwrap();
        std::fs::write(dir.path().join("d.x-of-2.bin"), b"").unwrap();
        std::fs::write(dir.path().join("d.0-of-3.bin"), b"").unwrap();
        let removed = remove_other_forms(dir.path(), "d.bin", Some(2)).unwrap();
        assert_eq!(removed, ["d.0-of-3.bin", "d.bin"]);
        let removed = remove_other_forms(dir.path(), "d.bin", None).unwrap();
        assert_eq!(removed, ["d.0-of-2.bin", "d.1-of-2.bin"]);
        assert!(dir.path().join("d.x-of-2.bin").exists());
        assert!(
            remove_other_forms(dir.path(), "d.bin", None)
                .unwrap()
                .is_empty()
        );
    }
}
