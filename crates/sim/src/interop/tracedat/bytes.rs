//! Reading a `trace.dat` by offset, in the file's own byte order, with every read checked:
//! a short or broken file is an error naming the byte offset and what was being read.

#[derive(Clone, Copy)]
pub struct Bytes<'a> {
    pub data: &'a [u8],
    pub big_endian: bool,
}

impl<'a> Bytes<'a> {
    pub fn slice(&self, at: u64, len: u64, what: &str) -> Result<&'a [u8], String> {
        let end = at.checked_add(len).filter(|&e| e <= self.data.len() as u64);
        match end {
            Some(end) => Ok(&self.data[at as usize..end as usize]),
            None => Err(format!("byte {at}: {what} ({len} bytes) runs past the end of the file ({} bytes)", self.data.len())),
        }
    }

    pub fn u16(&self, at: u64, what: &str) -> Result<u16, String> {
        let b = self.slice(at, 2, what)?;
        let a = [b[0], b[1]];
        Ok(if self.big_endian { u16::from_be_bytes(a) } else { u16::from_le_bytes(a) })
    }

    pub fn u32(&self, at: u64, what: &str) -> Result<u32, String> {
        let b = self.slice(at, 4, what)?;
        let a = [b[0], b[1], b[2], b[3]];
        Ok(if self.big_endian { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) })
    }

    pub fn u64(&self, at: u64, what: &str) -> Result<u64, String> {
        let b = self.slice(at, 8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(if self.big_endian { u64::from_be_bytes(a) } else { u64::from_le_bytes(a) })
    }

    /// An unsigned integer of 1, 2, 4 or 8 bytes.
    pub fn uint(&self, at: u64, size: u64, what: &str) -> Result<u64, String> {
        match size {
            1 => Ok(u64::from(self.slice(at, 1, what)?[0])),
            2 => self.u16(at, what).map(u64::from),
            4 => self.u32(at, what).map(u64::from),
            8 => self.u64(at, what),
            _ => Err(format!("byte {at}: {what} has a size of {size} bytes, not 1, 2, 4 or 8")),
        }
    }

    /// A NUL-terminated string starting at `at`, and the offset after its NUL.
    pub fn cstr(&self, at: u64, what: &str) -> Result<(&'a str, u64), String> {
        let rest = self.data.get(at as usize..).ok_or_else(|| format!("byte {at}: {what} is past the end of the file"))?;
        let n = rest.iter().position(|&b| b == 0).ok_or_else(|| format!("byte {at}: {what} has no terminating NUL"))?;
        let s = std::str::from_utf8(&rest[..n]).map_err(|_| format!("byte {at}: {what} is not text"))?;
        Ok((s, at + n as u64 + 1))
    }
}
