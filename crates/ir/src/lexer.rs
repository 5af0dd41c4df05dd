//! Tokens of the Python subset PyPTO prints: names, numbers, strings, operators, and the
//! NEWLINE/INDENT/DEDENT structure of Python's layout rule (implicit joining inside brackets,
//! blank lines ignored, comment-only lines set aside for the statement they precede).

use super::Span;
use crate::codes;
use crate::diagnostics::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Name,
    Int,
    Float,
    Str,
    Newline,
    Indent,
    Dedent,
    Eof,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semicolon,
    Dot,
    Assign,
    Arrow,
    Plus,
    Minus,
    Star,
    Slash,
    DoubleSlash,
    Percent,
    DoubleStar,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Amp,
    Pipe,
    Caret,
    Tilde,
    At,
}

impl Tok {
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Name => "a name",
            Tok::Int => "an integer",
            Tok::Float => "a float",
            Tok::Str => "a string",
            Tok::Newline => "end of line",
            Tok::Indent => "an indented block",
            Tok::Dedent => "the end of a block",
            Tok::Eof => "end of file",
            Tok::LParen => "'('",
            Tok::RParen => "')'",
            Tok::LBracket => "'['",
            Tok::RBracket => "']'",
            Tok::LBrace => "'{'",
            Tok::RBrace => "'}'",
            Tok::Comma => "','",
            Tok::Colon => "':'",
            Tok::Semicolon => "';'",
            Tok::Dot => "'.'",
            Tok::Assign => "'='",
            Tok::Arrow => "'->'",
            Tok::Plus => "'+'",
            Tok::Minus => "'-'",
            Tok::Star => "'*'",
            Tok::Slash => "'/'",
            Tok::DoubleSlash => "'//'",
            Tok::Percent => "'%'",
            Tok::DoubleStar => "'**'",
            Tok::EqEq => "'=='",
            Tok::NotEq => "'!='",
            Tok::Lt => "'<'",
            Tok::Le => "'<='",
            Tok::Gt => "'>'",
            Tok::Ge => "'>='",
            Tok::Shl => "'<<'",
            Tok::Shr => "'>>'",
            Tok::Amp => "'&'",
            Tok::Pipe => "'|'",
            Tok::Caret => "'^'",
            Tok::Tilde => "'~'",
            Tok::At => "'@'",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn span(self) -> Span {
        Span {
            start: self.start,
            end: self.end,
        }
    }
}

/// How the main loop of the lexer treats a byte.
#[derive(Clone, Copy)]
enum Class {
    /// Insignificant inside a line: space, tab, CR, form feed.
    Blank,
    /// `_` or an ASCII letter.
    NameStart,
    Digit,
    /// A one-byte token that never starts a longer one.
    Single(Tok),
    /// `.`: a dot of a dotted name (the most frequent punctuation), or a float like `.5`.
    Dot,
    /// Everything else, handled case by case.
    Other,
}

/// The class of every byte, so the hot paths (blanks, names, brackets, commas) take one table
/// lookup instead of a chain of comparisons.
const CLASSES: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = match byte {
            b' ' | b'\t' | b'\r' | b'\x0c' => Class::Blank,
            b'_' | b'a'..=b'z' | b'A'..=b'Z' => Class::NameStart,
            b'0'..=b'9' => Class::Digit,
            b'(' => Class::Single(Tok::LParen),
            b')' => Class::Single(Tok::RParen),
            b'[' => Class::Single(Tok::LBracket),
            b']' => Class::Single(Tok::RBracket),
            b'{' => Class::Single(Tok::LBrace),
            b'}' => Class::Single(Tok::RBrace),
            b',' => Class::Single(Tok::Comma),
            b':' => Class::Single(Tok::Colon),
            b';' => Class::Single(Tok::Semicolon),
            b'+' => Class::Single(Tok::Plus),
            b'%' => Class::Single(Tok::Percent),
            b'&' => Class::Single(Tok::Amp),
            b'|' => Class::Single(Tok::Pipe),
            b'^' => Class::Single(Tok::Caret),
            b'~' => Class::Single(Tok::Tilde),
            b'@' => Class::Single(Tok::At),
            b'.' => Class::Dot,
            _ => Class::Other,
        };
        b += 1;
    }
    table
};

/// Bytes that may continue a name: `_`, ASCII letters and digits.
const NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte == b'_' || byte.is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// Splits `text[start..]` into tokens one logical line at a time, into a small window the
/// parser reads and drains, instead of materialising every token of the file at once.
/// Offsets in the tokens are offsets into `text`.
pub struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The tokens the parser has not dropped yet: the end of the previous line and the current
    /// line, which ends with its NEWLINE and the next line's INDENT/DEDENTs (or with EOF).
    pub tokens: Vec<Token>,
    indents: Vec<usize>,
    /// Open bracket depth; inside brackets newlines and indentation are insignificant.
    brackets: u32,
    /// The first indentation character seen (space or tab); mixing them is an error.
    indent_char: Option<u8>,
    started: bool,
    /// EOF is in `tokens`: the input is exhausted, or a lexical error stopped it.
    done: bool,
    /// Comment-only lines lexed and not yet taken by the parser, from `#` to the line's end:
    /// PyPTO prints a statement's leading comments, so they are part of the program.
    pub comments: Vec<Span>,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str, start: usize) -> Lexer<'a> {
        Lexer {
            bytes: text.as_bytes(),
            pos: start,
            tokens: Vec::new(),
            indents: vec![0],
            brackets: 0,
            indent_char: None,
            started: false,
            done: false,
            comments: Vec::new(),
        }
    }

    /// Drops the first `consumed` tokens of the window and appends the next logical line's.
    /// After an error the window ends with EOF, so a parser reading on stops.
    pub fn next_line(&mut self, consumed: usize) -> Result<(), Diagnostic> {
        self.tokens.drain(..consumed);
        if self.done {
            return Ok(());
        }
        let result = self.lex_line();
        if result.is_err() {
            self.done = true;
            let end = self.pos.min(self.bytes.len());
            self.push_at(Tok::Eof, end, end);
        }
        result
    }

    /// The first lexical error in the rest of the input, if any: when the parser stops early,
    /// a lexical error anywhere in the file still takes precedence over the parser's.
    pub fn check_rest(&mut self) -> Result<(), Diagnostic> {
        while !self.done {
            self.next_line(self.tokens.len())?;
        }
        Ok(())
    }

    fn lex_line(&mut self) -> Result<(), Diagnostic> {
        let lexed_from = self.tokens.len();
        if !self.started {
            self.started = true;
            self.line_start()?;
        }
        let bytes = self.bytes;
        // The hot arms work on a local position (kept in a register) and store it back only
        // around the rarer, out-of-line cases.
        let mut pos = self.pos;
        while let Some(&c) = bytes.get(pos) {
            match CLASSES[c as usize] {
                Class::Blank => pos += 1,
                Class::NameStart => {
                    let start = pos;
                    pos += 1;
                    while pos < bytes.len() && NAME_BYTES[bytes[pos] as usize] {
                        pos += 1;
                    }
                    self.push_at(Tok::Name, start, pos);
                }
                Class::Digit => {
                    // Plain decimal digits followed by neither `.` nor a name byte (`e`, `x`,
                    // `_`, a letter), as in every shape, size and offset.
                    let start = pos;
                    pos += 1;
                    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                        pos += 1;
                    }
                    let plain = bytes
                        .get(pos)
                        .is_none_or(|&b| b != b'.' && !NAME_BYTES[b as usize]);
                    if plain {
                        self.push_at(Tok::Int, start, pos);
                    } else {
                        self.pos = start;
                        self.number()?;
                        pos = self.pos;
                    }
                }
                Class::Single(kind) => {
                    match kind {
                        Tok::LParen | Tok::LBracket | Tok::LBrace => self.brackets += 1,
                        Tok::RParen | Tok::RBracket | Tok::RBrace => {
                            self.brackets = self.brackets.saturating_sub(1)
                        }
                        _ => {}
                    }
                    pos += 1;
                    self.push_at(kind, pos - 1, pos);
                }
                Class::Dot if bytes.get(pos + 1).is_some_and(u8::is_ascii_digit) => {
                    self.pos = pos;
                    self.number()?;
                    pos = self.pos;
                }
                Class::Dot => {
                    pos += 1;
                    self.push_at(Tok::Dot, pos - 1, pos);
                }
                Class::Other if c == b'\n' && self.brackets == 0 => {
                    self.pos = pos + 1;
                    self.push_at(Tok::Newline, pos, pos + 1);
                    return self.line_start();
                }
                Class::Other => {
                    self.pos = pos;
                    self.other(c)?;
                    pos = self.pos;
                }
            }
        }
        self.pos = pos;
        let end = self.bytes.len();
        // Nothing lexed on this call means the previous line ended the input with its NEWLINE.
        if self.tokens[lexed_from..]
            .last()
            .is_some_and(|t| t.kind != Tok::Newline)
        {
            self.push_at(Tok::Newline, end, end);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push_at(Tok::Dedent, end, end);
        }
        self.push_at(Tok::Eof, end, end);
        self.done = true;
        Ok(())
    }

    /// Bytes the class table leaves to case-by-case handling: comments, line joins, newlines,
    /// strings and the operators that may be two bytes long.
    fn other(&mut self, c: u8) -> Result<(), Diagnostic> {
        match c {
            b'#' => self.skip_comment(),
            b'\\' if self.bytes.get(self.pos + 1) == Some(&b'\n') => self.pos += 2,
            // Inside brackets; `lex_line` ends the line at any other newline.
            b'\n' => self.pos += 1,
            b'"' | b'\'' => self.string(c)?,
            _ => self.punct()?,
        }
        Ok(())
    }

    fn push_at(&mut self, kind: Tok, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            start: start as u32,
            end: end as u32,
        });
    }

    fn skip_comment(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    /// At the start of a logical line: skip blank and comment-only lines, then compare the
    /// indentation with the enclosing blocks and emit INDENT/DEDENT tokens.
    fn line_start(&mut self) -> Result<(), Diagnostic> {
        loop {
            let line_start = self.pos;
            let mut width = 0;
            while let Some(&b) = self.bytes.get(self.pos) {
                match b {
                    b' ' | b'\t' => {
                        if *self.indent_char.get_or_insert(b) != b {
                            let span = Span::new(line_start, self.pos + 1);
                            return Err(Diagnostic::error(
                                codes::MIXED_INDENTATION,
                                "indentation mixes tabs and spaces",
                                span,
                            )
                            .with_hint("indent with spaces only, 4 per level, as PyPTO prints"));
                        }
                        let run = self.bytes[self.pos..]
                            .iter()
                            .take_while(|&&next| next == b)
                            .count();
                        width += run;
                        self.pos += run;
                    }
                    b'\r' | b'\x0c' => self.pos += 1,
                    _ => break,
                }
            }
            match self.bytes.get(self.pos) {
                None => return Ok(()),
                Some(b'\n') => {
                    self.pos += 1;
                    continue;
                }
                Some(b'#') => {
                    let start = self.pos;
                    self.skip_comment();
                    let text = &self.bytes[start..self.pos];
                    let end = start + text.trim_ascii_end().len();
                    self.comments.push(Span::new(start, end));
                    continue;
                }
                Some(_) => {}
            }
            let current = *self.indents.last().unwrap_or(&0);
            if width > current {
                self.indents.push(width);
                self.push_at(Tok::Indent, line_start, self.pos);
            } else {
                while width < *self.indents.last().unwrap_or(&0) {
                    self.indents.pop();
                    self.push_at(Tok::Dedent, self.pos, self.pos);
                }
                if width != *self.indents.last().unwrap_or(&0) {
                    return Err(Diagnostic::error(
                        codes::SYNTAX,
                        "unindent does not match any outer indentation level",
                        Span::new(line_start, self.pos),
                    ));
                }
            }
            return Ok(());
        }
    }

    fn string(&mut self, quote: u8) -> Result<(), Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'\\' => self.pos += 2,
                b'\n' => break,
                _ if b == quote => {
                    self.pos += 1;
                    self.push_at(Tok::Str, start, self.pos);
                    return Ok(());
                }
                _ => self.pos += 1,
            }
        }
        Err(Diagnostic::error(
            codes::SYNTAX,
            "unterminated string literal",
            Span::new(start, self.pos.min(self.bytes.len())),
        ))
    }

    /// Numbers other than plain decimal integers (which `lex_line` reads itself): hex, `_`
    /// separators, floats and exponents.
    fn number(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        let digits = |lexer: &mut Self| {
            while lexer
                .bytes
                .get(lexer.pos)
                .is_some_and(|&b| b.is_ascii_digit() || b == b'_')
            {
                lexer.pos += 1;
            }
        };
        let mut float = false;
        if self.bytes[self.pos] == b'0' && matches!(self.bytes.get(self.pos + 1), Some(b'x' | b'X'))
        {
            self.pos += 2;
            while self
                .bytes
                .get(self.pos)
                .is_some_and(|&b| b.is_ascii_hexdigit() || b == b'_')
            {
                self.pos += 1;
            }
        } else {
            digits(self);
            if self.bytes.get(self.pos) == Some(&b'.') {
                float = true;
                self.pos += 1;
                digits(self);
            }
            if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
                let mut look = self.pos + 1;
                if matches!(self.bytes.get(look), Some(b'+' | b'-')) {
                    look += 1;
                }
                if self.bytes.get(look).is_some_and(|b| b.is_ascii_digit()) {
                    float = true;
                    self.pos = look;
                    digits(self);
                }
            }
        }
        if self
            .bytes
            .get(self.pos)
            .is_some_and(|&b| b == b'_' || b.is_ascii_alphabetic())
        {
            return Err(Diagnostic::error(
                codes::SYNTAX,
                "invalid number literal",
                Span::new(start, self.pos + 1),
            ));
        }
        let kind = if float { Tok::Float } else { Tok::Int };
        self.push_at(kind, start, self.pos);
        Ok(())
    }

    /// Operators that may be one or two bytes long, and unexpected characters.
    fn punct(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        let c = self.bytes[self.pos];
        let next = self.bytes.get(self.pos + 1).copied();
        let (kind, len) = match (c, next) {
            (b'-', Some(b'>')) => (Tok::Arrow, 2),
            (b'=', Some(b'=')) => (Tok::EqEq, 2),
            (b'=', _) => (Tok::Assign, 1),
            (b'!', Some(b'=')) => (Tok::NotEq, 2),
            (b'-', _) => (Tok::Minus, 1),
            (b'*', Some(b'*')) => (Tok::DoubleStar, 2),
            (b'*', _) => (Tok::Star, 1),
            (b'/', Some(b'/')) => (Tok::DoubleSlash, 2),
            (b'/', _) => (Tok::Slash, 1),
            (b'<', Some(b'<')) => (Tok::Shl, 2),
            (b'<', Some(b'=')) => (Tok::Le, 2),
            (b'<', _) => (Tok::Lt, 1),
            (b'>', Some(b'>')) => (Tok::Shr, 2),
            (b'>', Some(b'=')) => (Tok::Ge, 2),
            (b'>', _) => (Tok::Gt, 1),
            _ => {
                let len = std::str::from_utf8(&self.bytes[start..])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                return Err(Diagnostic::error(
                    codes::SYNTAX,
                    format!(
                        "unexpected character '{}'",
                        String::from_utf8_lossy(&self.bytes[start..start + len])
                    ),
                    Span::new(start, start + len),
                ));
            }
        };
        self.pos += len;
        self.push_at(kind, start, self.pos);
        Ok(())
    }
}
