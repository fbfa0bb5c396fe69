//! Animated PNG (APNG) of timeline frames, for slides: plain RGBA frames of one size in, a
//! file every current browser animates out. Pure Rust (zlib from miniz_oxide), so it is
//! tested natively. Format: the PNG specification with the APNG extension chunks `acTL`,
//! `fcTL` and `fdAT` (frame 0 is the ordinary `IDAT`, so viewers without APNG show it).

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// Encode `frames` (each `w * h * 4` bytes of RGBA) shown `delay_ms` each, looping forever.
pub fn encode(w: u32, h: u32, frames: &[Vec<u8>], delay_ms: u16) -> Result<Vec<u8>, String> {
    let row = w as usize * 4;
    if frames.is_empty() || w == 0 || h == 0 {
        return Err("there is no frame to encode".into());
    }
    if let Some(i) = frames.iter().position(|f| f.len() != row * h as usize) {
        return Err(format!("frame {i} is not {w}×{h} RGBA"));
    }
    let mut out = SIGNATURE.to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, no filter method, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    let mut actl = (frames.len() as u32).to_be_bytes().to_vec();
    actl.extend_from_slice(&0u32.to_be_bytes()); // loop forever
    chunk(&mut out, b"acTL", &actl);
    let mut seq = 0u32;
    let mut raw = Vec::with_capacity((row + 1) * h as usize);
    for (i, f) in frames.iter().enumerate() {
        let mut fctl = Vec::with_capacity(26);
        for v in [seq, w, h, 0, 0] {
            fctl.extend_from_slice(&v.to_be_bytes());
        }
        fctl.extend_from_slice(&delay_ms.to_be_bytes());
        fctl.extend_from_slice(&1000u16.to_be_bytes());
        fctl.extend_from_slice(&[0, 0]); // dispose none, blend source
        chunk(&mut out, b"fcTL", &fctl);
        seq += 1;
        raw.clear();
        for r in f.chunks_exact(row) {
            raw.push(0); // filter type None
            raw.extend_from_slice(r);
        }
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
        if i == 0 {
            chunk(&mut out, b"IDAT", &z);
        } else {
            let mut d = seq.to_be_bytes().to_vec();
            d.extend_from_slice(&z);
            chunk(&mut out, b"fdAT", &d);
            seq += 1;
        }
    }
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let c = crc32(&out[start..]);
    out.extend_from_slice(&c.to_be_bytes());
}

/// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320), as PNG chunks use.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (type, data) of every chunk, checking each CRC on the way.
    fn chunks(png: &[u8]) -> Vec<(String, Vec<u8>)> {
        assert_eq!(png[..8], SIGNATURE);
        let mut i = 8;
        let mut out = Vec::new();
        while i < png.len() {
            let len = u32::from_be_bytes(png[i..i + 4].try_into().unwrap()) as usize;
            let body = &png[i + 4..i + 8 + len];
            let crc = u32::from_be_bytes(png[i + 8 + len..i + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(body), "CRC of {}", String::from_utf8_lossy(&body[..4]));
            out.push((String::from_utf8_lossy(&body[..4]).into_owned(), body[4..].to_vec()));
            i += 12 + len;
        }
        out
    }

    #[test]
    fn crc_of_known_strings() {
        // The check value of CRC-32 ("123456789") and the CRC every PNG's IEND chunk carries.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn three_frames_in_apng_order_with_the_pixels_back() {
        let (w, h) = (3u32, 2u32);
        let frames: Vec<Vec<u8>> = (0..3u8).map(|k| (0..w * h * 4).map(|i| (i as u8).wrapping_mul(7).wrapping_add(k)).collect()).collect();
        let png = encode(w, h, &frames, 250).expect("encodes");
        let c = chunks(&png);
        let kinds: Vec<&str> = c.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kinds, ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fcTL", "fdAT", "IEND"]);
        assert_eq!(c[0].1, [0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0]);
        assert_eq!(c[1].1, [0, 0, 0, 3, 0, 0, 0, 0]);
        // Sequence numbers run 0.. across fcTL and fdAT; the delay is 250/1000 s.
        let seq = |d: &[u8]| u32::from_be_bytes(d[..4].try_into().unwrap());
        assert_eq!([seq(&c[2].1), seq(&c[4].1), seq(&c[5].1), seq(&c[6].1), seq(&c[7].1)], [0, 1, 2, 3, 4]);
        assert_eq!(c[2].1[20..26], [0, 250, 3, 232, 0, 0]);
        // Each frame inflates to its rows, each behind a filter byte 0.
        let back = |z: &[u8]| miniz_oxide::inflate::decompress_to_vec_zlib(z).expect("zlib");
        for (k, z) in [(0, &c[3].1[..]), (1, &c[5].1[4..]), (2, &c[7].1[4..])] {
            let raw = back(z);
            assert_eq!(raw.len(), (1 + w as usize * 4) * h as usize);
            let rows: Vec<u8> = raw.chunks_exact(1 + w as usize * 4).flat_map(|r| {
                assert_eq!(r[0], 0);
                r[1..].to_vec()
            }).collect();
            assert_eq!(rows, frames[k]);
        }
    }

    #[test]
    fn bad_frames_are_refused() {
        assert!(encode(2, 2, &[], 100).is_err());
        assert!(encode(2, 2, &[vec![0; 15]], 100).unwrap_err().contains("frame 0"));
    }
}
