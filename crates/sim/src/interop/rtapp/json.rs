//! JSON as rt-app reads it (through json-c), which is looser than the standard: `/* */` and
//! `//` comments, trailing commas, a key with no `: value` (read as null, how rt-app writes
//! `"suspend",`), and repeated keys kept in order (a second `"run"` is a second event). An
//! object is therefore an ordered list of pairs, not a map. Errors name their line and column.

/// A value of the dialect; objects keep every pair, in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    pub fn obj(&self) -> Option<&[(String, J)]> {
        match self {
            J::Obj(o) => Some(o),
            _ => None,
        }
    }
    /// The first value under `k` (for settings; events read every pair instead).
    pub fn get(&self, k: &str) -> Option<&J> {
        self.obj()?.iter().find(|(n, _)| n == k).map(|(_, v)| v)
    }
    pub fn num(&self) -> Option<f64> {
        match self {
            J::Num(x) => Some(*x),
            _ => None,
        }
    }
    /// A whole number, as json-c's get_int reads one (no fraction).
    pub fn int(&self) -> Option<i64> {
        self.num().filter(|x| x.fract() == 0.0 && x.abs() < 9.0e15).map(|x| x as i64)
    }
    pub fn str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The one value `text` holds, or where and why it is not rt-app's JSON.
pub fn parse(text: &str) -> Result<J, String> {
    let mut p = P { s: text.as_bytes(), i: 0, line: 1, col: 1 };
    p.ws()?;
    let v = p.value(0)?;
    p.ws()?;
    if p.i < p.s.len() {
        return Err(p.err("text after the end of the top-level value"));
    }
    Ok(v)
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
    col: usize,
}

/// Deeper nesting than any rt-app file has; refused so a hostile file cannot overflow the stack.
const MAX_DEPTH: usize = 128;

impl P<'_> {
    fn err(&self, m: &str) -> String {
        format!("line {}, column {}: {m}", self.line, self.col)
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if c & 0xC0 != 0x80 {
            // A column counts characters: continuation bytes of UTF-8 do not start one.
            self.col += 1;
        }
        Some(c)
    }
    /// Whitespace and comments.
    fn ws(&mut self) -> Result<(), String> {
        loop {
            match (self.peek(), self.s.get(self.i + 1)) {
                (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => {
                    self.bump();
                }
                (Some(b'/'), Some(b'*')) => {
                    let at = self.err("a /* comment is never closed");
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            None => return Err(at),
                            Some(b'*') if self.peek() == Some(b'/') => {
                                self.bump();
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                (Some(b'/'), Some(b'/')) => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.bump();
                    }
                }
                (Some(b'/'), _) => return Err(self.err("a lone `/` (comments are /* */ or //)")),
                _ => return Ok(()),
            }
        }
    }
    fn value(&mut self, depth: usize) -> Result<J, String> {
        if depth > MAX_DEPTH {
            return Err(self.err(&format!("nested deeper than {MAX_DEPTH} levels")));
        }
        match self.peek() {
            None => Err(self.err("the file ends where a value was expected")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(J::Str),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number(),
            Some(c) if c.is_ascii_alphabetic() => {
                let at = self.err("");
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    self.bump();
                }
                match &self.s[start..self.i] {
                    b"true" => Ok(J::Bool(true)),
                    b"false" => Ok(J::Bool(false)),
                    b"null" => Ok(J::Null),
                    w => Err(format!("{at}`{}` is not a value (true, false, null, a number, a string, [ or {{)", String::from_utf8_lossy(w))),
                }
            }
            Some(c) => Err(self.err(&format!("unexpected `{}` where a value was expected", char::from(c)))),
        }
    }
    fn object(&mut self, depth: usize) -> Result<J, String> {
        self.bump();
        let mut out = Vec::new();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.bump();
                    return Ok(J::Obj(out));
                }
                Some(b'"') => {}
                None => return Err(self.err("the file ends inside an object (expected a key or `}`)")),
                Some(_) => return Err(self.err("expected a key (a string in double quotes) or `}`")),
            }
            let k = self.string()?;
            self.ws()?;
            // json-c reads a key followed by `,` or `}` as a key whose value is null.
            let v = if self.peek() == Some(b':') {
                self.bump();
                self.ws()?;
                self.value(depth + 1)?
            } else {
                J::Null
            };
            out.push((k, v));
            self.ws()?;
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(b'}') => {}
                None => return Err(self.err("the file ends inside an object (expected `,` or `}`)")),
                Some(_) => return Err(self.err("expected `:`, `,` or `}` after a key or value")),
            }
        }
    }
    fn array(&mut self, depth: usize) -> Result<J, String> {
        self.bump();
        let mut out = Vec::new();
        loop {
            self.ws()?;
            if self.peek() == Some(b']') {
                self.bump();
                return Ok(J::Arr(out));
            }
            out.push(self.value(depth + 1)?);
            self.ws()?;
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(b']') => {}
                None => return Err(self.err("the file ends inside an array (expected `,` or `]`)")),
                Some(_) => return Err(self.err("expected `,` or `]` in an array")),
            }
        }
    }
    fn string(&mut self) -> Result<String, String> {
        let at = self.err("a string is never closed");
        self.bump();
        let mut out = Vec::new();
        loop {
            match self.bump() {
                None => return Err(at),
                Some(b'"') => return Ok(String::from_utf8_lossy(&out).into_owned()),
                Some(b'\\') => {
                    let c = self.bump().ok_or_else(|| at.clone())?;
                    let ch = match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut h = 0u32;
                            for _ in 0..4 {
                                let d = self.bump().and_then(|d| char::from(d).to_digit(16));
                                h = h * 16 + d.ok_or_else(|| self.err("\\u needs 4 hex digits"))?;
                            }
                            char::from_u32(h).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(self.err(&format!("unknown escape `\\{}`", char::from(c)))),
                    };
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                Some(c) => out.push(c),
            }
        }
    }
    fn number(&mut self) -> Result<J, String> {
        let at = self.err("");
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(&c)) {
            self.bump();
        }
        let w = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        match w.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(J::Num(x)),
            _ => Err(format!("{at}`{w}` is not a number")),
        }
    }
}
