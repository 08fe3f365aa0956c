//! Where a dataset lives: the few operations the dataset writer needs, so that another backend
//! (an object store) can stand behind it without changing the writer.
//!
//! DESIGN: the writer never sees a file system. It reads the manifest ([`Storage::read`]),
//! writes each data file and the manifest through an [`Upload`] that is invisible under its
//! name until [`Upload::commit`] (a local file is written under a temporary name and renamed;
//! an object store's multipart upload completes the same way: `crate::s3`, feature `s3`),
//! takes a lock ([`Storage::create_new`]) and lists what is there ([`Storage::list`]). Paths
//! are relative, `/`-separated, and made by the writer from checked names only.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Bytes a local upload buffers before writing them out (it opens its file only to write, so
/// a dataset with thousands of partitions open at once holds no file descriptors).
pub const LOCAL_BUFFER: usize = 32 << 10;

/// An object being written: invisible under its name until committed; dropped without a
/// commit, it leaves nothing behind.
pub trait Upload: Write + Send {
    /// Makes the object visible under its name (replacing one of the same name) and returns
    /// its size in bytes.
    fn commit(self: Box<Self>) -> io::Result<u64>;
}

/// A place that holds a dataset.
pub trait Storage {
    /// Where it is, for messages (`/data/ds`, `s3://bucket/prefix`).
    fn location(&self) -> String;
    /// The bytes of the object at `path`, `None` when there is none.
    fn read(&self, path: &str) -> io::Result<Option<Vec<u8>>>;
    /// Starts writing the object at `path`.
    fn create(&self, path: &str) -> io::Result<Box<dyn Upload>>;
    /// Creates the object at `path` holding `bytes` unless one exists (then `false`).
    fn create_new(&self, path: &str, bytes: &[u8]) -> io::Result<bool>;
    /// Removes the object at `path` (none there is not an error).
    fn remove(&self, path: &str) -> io::Result<()>;
    /// The paths of every object whose path starts with `prefix`, sorted.
    fn list(&self, prefix: &str) -> io::Result<Vec<String>>;
}

/// A dataset in a local directory.
#[derive(Debug, Clone)]
pub struct LocalDir {
    root: PathBuf,
}

impl LocalDir {
    /// The directory `root` (created when the first object is written).
    pub fn new(root: impl Into<PathBuf>) -> LocalDir {
        LocalDir { root: root.into() }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, path: &str) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(path.split('/'));
        p
    }
}

/// A file written under a temporary name beside its own (`.NAME.tmp`) and renamed on commit.
struct LocalUpload {
    path: PathBuf,
    temporary: PathBuf,
    buf: Vec<u8>,
    started: bool,
    bytes: u64,
    done: bool,
}

impl LocalUpload {
    fn spill(&mut self) -> io::Result<()> {
        if self.buf.is_empty() && self.started {
            return Ok(());
        }
        let mut f = OpenOptions::new()
            .create(true)
            .write(true)
            .append(self.started)
            .truncate(!self.started)
            .open(&self.temporary)?;
        f.write_all(&self.buf)?;
        self.started = true;
        self.buf.clear();
        Ok(())
    }
}

impl Write for LocalUpload {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(data.len()).unwrap_or(u64::MAX));
        if self.buf.len() >= LOCAL_BUFFER {
            self.spill()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Upload for LocalUpload {
    fn commit(mut self: Box<Self>) -> io::Result<u64> {
        self.spill()?;
        File::open(&self.temporary)?.sync_all()?;
        std::fs::rename(&self.temporary, &self.path)?;
        self.done = true;
        Ok(self.bytes)
    }
}

impl Drop for LocalUpload {
    fn drop(&mut self) {
        if !self.done && self.started {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

impl Storage for LocalDir {
    fn location(&self) -> String {
        self.root.display().to_string()
    }

    fn read(&self, path: &str) -> io::Result<Option<Vec<u8>>> {
        match std::fs::read(self.path(path)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn create(&self, path: &str) -> io::Result<Box<dyn Upload>> {
        let path = self.path(path);
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary = dir.join(format!(".{name}.tmp"));
        Ok(Box::new(LocalUpload {
            path,
            temporary,
            buf: Vec::new(),
            started: false,
            bytes: 0,
            done: false,
        }))
    }

    fn create_new(&self, path: &str, bytes: &[u8]) -> io::Result<bool> {
        let path = self.path(path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                f.write_all(bytes)?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn remove(&self, path: &str) -> io::Result<()> {
        match std::fs::remove_file(self.path(path)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        let mut dirs = vec![(self.root.clone(), String::new())];
        while let Some((dir, rel)) = dirs.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            for e in entries {
                let e = e?;
                let name = e.file_name().to_string_lossy().into_owned();
                let path = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                if e.file_type()?.is_dir() {
                    dirs.push((e.path(), path));
                } else if path.starts_with(prefix) {
                    out.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_appears_only_when_committed() {
        let root = std::env::temp_dir().join(format!("dfx-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = LocalDir::new(&root);
        assert_eq!(store.read("a/b.bin").unwrap(), None);
        let mut up = store.create("a/b.bin").unwrap();
        let chunk = vec![7u8; LOCAL_BUFFER + 5];
        up.write_all(&chunk).unwrap();
        // Written out under the temporary name only.
        assert_eq!(store.list("").unwrap(), ["a/.b.bin.tmp"]);
        up.write_all(b"end").unwrap();
        assert_eq!(up.commit().unwrap(), chunk.len() as u64 + 3);
        let mut want = chunk.clone();
        want.extend_from_slice(b"end");
        assert_eq!(store.read("a/b.bin").unwrap(), Some(want));
        assert_eq!(store.list("").unwrap(), ["a/b.bin"]);
        // Dropped without a commit: nothing stays.
        let mut up = store.create("a/c.bin").unwrap();
        up.write_all(&chunk).unwrap();
        drop(up);
        assert_eq!(store.list("a/").unwrap(), ["a/b.bin"]);
        assert!(store.create_new("_lock", b"1").unwrap());
        assert!(!store.create_new("_lock", b"2").unwrap());
        store.remove("_lock").unwrap();
        store.remove("_lock").unwrap();
        assert!(store.create_new("_lock", b"3").unwrap());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
