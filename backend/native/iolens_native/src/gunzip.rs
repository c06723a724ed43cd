//! A gzip file decompressed into a file descriptor, for the bundle reader (bundle/reader.py):
//! a bundle (.iolens.tar.gz) is inflated here into a plain tar (zlib-rs, a large buffer, without
//! the GIL), which Python's tarfile then reads, checks and copies member by member, instead of
//! inflating it through Python's gzip module (issue 17: ingest's speed; ~0.3 s of one CPU for
//! the 24 MB bundle of a 344 MB perf script text, now a small share of that).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};

/// What `gunzip_to` wrote.
#[derive(Debug, PartialEq, Eq)]
pub struct Gunzipped {
    /// Bytes of decompressed data written (at most `limit`).
    pub bytes: u64,
    /// The data goes on past `limit` bytes: stopped there (the rest is not read).
    pub over_limit: bool,
}

/// Decompresses every gzip member of `src` (as `gzip -d` does), writing the data to `out`; stops
/// with `over_limit` once more than `limit` bytes would have been written. A damaged or truncated
/// stream is an error (flate2's: bad header, corrupt deflate data, CRC or length mismatch,
/// unexpected end of file).
pub fn gunzip_to(src: impl Read, out: &mut impl Write, limit: u64) -> io::Result<Gunzipped> {
    let mut dec = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 20, src));
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = match dec.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = limit - bytes;
        if n as u64 > room {
            out.write_all(&buf[..room as usize])?;
            return Ok(Gunzipped {
                bytes: limit,
                over_limit: true,
            });
        }
        out.write_all(&buf[..n])?;
        bytes += n as u64;
    }
    out.flush()?;
    Ok(Gunzipped {
        bytes,
        over_limit: false,
    })
}

/// `gunzip_to` of the file at `path`.
pub fn gunzip_file(path: &str, out: &mut impl Write, limit: u64) -> io::Result<Gunzipped> {
    gunzip_to(File::open(path)?, out, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| b"abcdefgh\n"[(i * 7 + i / 13) % 9])
            .collect()
    }

    #[test]
    fn round_trip_and_several_members() {
        let a = text(3 << 20);
        let b = text(1000);
        let mut both = gz(&a);
        both.extend(gz(&b));
        let mut out = Vec::new();
        let r = gunzip_to(&both[..], &mut out, u64::MAX).unwrap();
        assert_eq!(
            r,
            Gunzipped {
                bytes: (a.len() + b.len()) as u64,
                over_limit: false
            }
        );
        assert_eq!(&out[..a.len()], &a[..]);
        assert_eq!(&out[a.len()..], &b[..]);
    }

    #[test]
    fn limit_stops_at_the_limit() {
        let a = text(3 << 20);
        let mut out = Vec::new();
        let r = gunzip_to(&gz(&a)[..], &mut out, 1_500_000).unwrap();
        assert_eq!(
            r,
            Gunzipped {
                bytes: 1_500_000,
                over_limit: true
            }
        );
        assert_eq!(out, &a[..1_500_000]);
        let mut out = Vec::new();
        let exact = gunzip_to(&gz(&a)[..], &mut out, a.len() as u64).unwrap();
        assert_eq!(
            exact,
            Gunzipped {
                bytes: a.len() as u64,
                over_limit: false
            }
        );
    }

    #[test]
    fn damage_is_an_error() {
        let z = gz(&text(1 << 20));
        // truncated
        assert!(gunzip_to(&z[..z.len() / 2], &mut Vec::new(), u64::MAX).is_err());
        // the CRC of the trailer
        let mut bad = z.clone();
        let n = bad.len();
        bad[n - 6] ^= 0xff;
        assert!(gunzip_to(&bad[..], &mut Vec::new(), u64::MAX).is_err());
        // not gzip
        assert!(gunzip_to(&b"plain text, not gzip"[..], &mut Vec::new(), u64::MAX).is_err());
    }
}
