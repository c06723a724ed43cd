//! A plain regular file mapped read-only into memory (mmap), for stream.rs: its chunks are then
//! ranges of the mapping, with no copy into buffers of our own. Gzip-compressed and empty files,
//! and files that cannot be mapped (pipes, /proc), are read as a stream instead.
//!
//! The mapping is private and read-only. A file truncated by another process while it is
//! mapped would make reading the lost pages fault (SIGBUS), as for any tool that maps its input;
//! `perf script` output is written once, before it is read.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

pub struct Map {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only and never changes while mapped; `&[u8]` views of it are
// shared between threads like any immutable buffer.
unsafe impl Send for Map {}
// SAFETY: as above.
unsafe impl Sync for Map {}

impl Map {
    /// The file mapped, if it is a non-empty regular file that is not gzip-compressed.
    pub fn plain_file(file: &File) -> io::Result<Option<Map>> {
        let meta = file.metadata()?;
        let Ok(len) = usize::try_from(meta.len()) else {
            return Ok(None);
        };
        if !meta.is_file() || len == 0 {
            return Ok(None);
        }
        // SAFETY: a fresh read-only private mapping of `len` bytes of an open file descriptor;
        // the result is checked against MAP_FAILED before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Ok(None);
        }
        let map = Map { ptr, len };
        // SAFETY: advice only: the text is read from start to end.
        unsafe {
            libc::madvise(map.ptr, map.len, libc::MADV_SEQUENTIAL);
        }
        if map.bytes().starts_with(&[0x1f, 0x8b]) {
            return Ok(None); // gzip: decompressed as a stream (the mapping is dropped)
        }
        Ok(Some(map))
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: ptr..ptr+len is mapped readable for as long as self lives.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in plain_file, once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}
