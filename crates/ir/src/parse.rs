//! Text → IR: a recursive-descent parser for the Python subset PyPTO prints (rules §1.2–§1.5,
//! §1.9), resolving names to variables as it goes (lexical SSA, rules §1.4).
//!
//! Syntax errors stop the parse at the first one; semantic findings (undefined names, missing or
//! dangling MemRefs, duplicate functions) are collected so one run reports all of them.

use std::borrow::Cow;
use std::sync::Arc;

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use super::lexer::{Lexer, Tok, Token};
use super::model::*;
use super::span::Span;
use crate::codes;
use crate::diagnostics::Diagnostic;
use crate::named::{BinOp, DType, MemSpace};
use crate::ops::{op_info, op_role};
use crate::walk::for_each_stmt;

/// The input could not be read as a PyPTO program. Holds at least one diagnostic.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", .diagnostics.first().map(|d| d.to_string()).unwrap_or_default())]
pub struct ParseError {
    pub diagnostics: Vec<Diagnostic>,
}

impl From<Diagnostic> for ParseError {
    fn from(d: Diagnostic) -> ParseError {
        ParseError {
            diagnostics: vec![d],
        }
    }
}

/// Whether the text holds a `@pl.program` at all (files without one are skipped, not errors).
pub fn has_program(text: &str) -> bool {
    program_start(text).is_some()
}

/// The byte offset of the line that starts with `@pl.program`.
fn program_start(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("@pl.program") {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

pub fn parse_program(text: &str) -> Result<Program, ParseError> {
    let Some(start) = program_start(text) else {
        return Err(Diagnostic::error(
            codes::NO_PROGRAM,
            "no `@pl.program` class in this file",
            Span::new(0, 0),
        )
        .into());
    };
    let mut lexer = Lexer::new(text, start);
    lexer.next_line(0)?;
    let mut parser = Parser {
        text,
        lexer,
        lex_error: None,
        pos: 0,
        vars: VarTable::default(),
        scope: FxHashMap::default(),
        yield_frames: Vec::new(),
        names_are_dims: false,
        dynamic_dims: dynamic_dims(&text[..start]),
        problems: Vec::new(),
        pending: Vec::new(),
        pending_stmts: Vec::new(),
        nesting: 0,
    };
    let preamble = text[..start].to_string();
    let program = parser.program(preamble);
    // As if the whole text were lexed first: a lexical error anywhere wins over the parser's.
    if let Some(lex_error) = parser.lex_error {
        return Err(lex_error.into());
    }
    let program = match program {
        Ok(program) => program,
        Err(syntax_error) => {
            parser.lexer.check_rest()?;
            return Err((*syntax_error).into());
        }
    };
    if parser.problems.is_empty() {
        Ok(program)
    } else {
        Err(ParseError {
            diagnostics: parser.problems,
        })
    }
}

/// Module-level `NAME = pl.dynamic("NAME")` declarations.
fn dynamic_dims(preamble: &str) -> Vec<Name> {
    preamble
        .lines()
        .filter_map(|line| {
            let (name, value) = line.split_once('=')?;
            let name = name.trim();
            let is_ident =
                !name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric());
            (is_ident && value.trim_start().starts_with("pl.dynamic(")).then(|| name.into())
        })
        .collect()
}

const YIELD: &str = "pl.yield_";

/// `pl . const ( INT , pl . DTYPE )`
const PLAIN_CONST_TOKENS: usize = 10;

/// One token of a fixed spelling the fast paths look for.
#[derive(Clone, Copy)]
enum Spelled {
    Is(Tok),
    /// A name spelled so.
    Word(&'static [u8]),
}

/// Ops whose result takes its source's MemRef (rules §3.1 rules 1 and 3), so a tile they define
/// may legitimately have none when the source has none.
fn is_aliasing_view(op: &str) -> bool {
    op_info(op).is_some_and(|info| info.view)
}

struct Parser<'a> {
    text: &'a str,
    /// Lexes the text one logical line ahead of the parser.
    lexer: Lexer<'a>,
    /// The lexer's error when it stopped the token stream (with an EOF).
    lex_error: Option<Diagnostic>,
    /// Index of the current token in the lexer's window.
    pos: usize,
    /// Variables of the function being parsed.
    vars: VarTable,
    /// Name → its most recent definition in the function being parsed.
    scope: FxHashMap<&'a str, VarId>,
    /// One frame per enclosing `for`/`if` body, collecting its return variables.
    yield_frames: Vec<YieldFrame<'a>>,
    /// Inside types and decorators, an unknown name is a free symbolic dimension.
    names_are_dims: bool,
    dynamic_dims: Vec<Name>,
    problems: Vec<Diagnostic>,
    /// Items of the lists being parsed, innermost last. A list pushes its items here and moves
    /// them into an exactly sized `Vec` when it closes, so no list regrows while it is read.
    pending: Vec<Expr>,
    /// The same for the statements of the blocks being parsed.
    pending_stmts: Vec<Stmt>,
    /// Expressions and blocks being parsed inside one another (see [`MAX_NESTING`]).
    nesting: usize,
}

/// How deeply expressions and blocks may nest. Parsing, printing and dropping the model all
/// recurse once per level, so without a bound a line of 100,000 `+`s or `(`s overflows the
/// stack; CPython stops at 200 nested parentheses too.
const MAX_NESTING: usize = 200;

struct YieldFrame<'a> {
    /// Types the return variables inherit (a `for`'s iter args); empty for an `if`.
    inherited: Vec<Option<Type>>,
    names: Vec<&'a str>,
    vars: Vec<VarId>,
}

/// Errors are boxed so results stay small as they travel up the recursive descent.
type PResult<T> = Result<T, Box<Diagnostic>>;

impl<'a> Parser<'a> {
    // ---- token helpers -------------------------------------------------------------------

    fn peek(&self) -> Tok {
        self.lexer.tokens[self.pos].kind
    }

    fn peek_at(&self, ahead: usize) -> Tok {
        self.lexer
            .tokens
            .get(self.pos + ahead)
            .map_or(Tok::Eof, |t| t.kind)
    }

    fn token(&self) -> Token {
        self.lexer.tokens[self.pos]
    }

    fn text_of(&self, token: Token) -> &'a str {
        &self.text[token.start as usize..token.end as usize]
    }

    #[inline]
    fn bump(&mut self) -> Token {
        let token = self.lexer.tokens[self.pos];
        if token.kind != Tok::Eof {
            self.pos += 1;
            if self.pos == self.lexer.tokens.len() {
                self.next_line();
            }
        }
        token
    }

    /// Moves the lexer's window to the next logical line, keeping the token just consumed
    /// (statement spans end at it). Lookahead never crosses a line end: a window ends with
    /// NEWLINE, INDENT, DEDENT or EOF, which no lookahead looks past.
    #[inline(never)]
    fn next_line(&mut self) {
        if let Err(error) = self.lexer.next_line(self.pos - 1) {
            self.lex_error = Some(error);
        }
        self.pos = 1;
    }

    /// The token just consumed.
    fn prev(&self) -> Token {
        self.lexer.tokens[self.pos - 1]
    }

    fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn at_keyword(&self, word: &str) -> bool {
        let token = self.token();
        // Bytes, not `text_of`: no UTF-8 boundary checks on this hot comparison.
        token.kind == Tok::Name
            && self
                .text
                .as_bytes()
                .get(token.start as usize..token.end as usize)
                == Some(word.as_bytes())
    }

    #[cold]
    fn expected(&self, what: &str) -> Box<Diagnostic> {
        let token = self.token();
        let found = match token.kind {
            Tok::Name | Tok::Int | Tok::Float | Tok::Str => {
                format!("'{}'", self.text_of(token))
            }
            kind => kind.describe().to_string(),
        };
        Box::new(Diagnostic::error(
            codes::SYNTAX,
            format!("expected {what}, found {found}"),
            token.span(),
        ))
    }

    #[inline]
    fn expect(&mut self, kind: Tok) -> PResult<Token> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.expected(kind.describe()))
        }
    }

    fn expect_keyword(&mut self, word: &str) -> PResult<Token> {
        if self.at_keyword(word) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("'{word}'")))
        }
    }

    fn expect_name(&mut self) -> PResult<Token> {
        if self.peek() == Tok::Name {
            Ok(self.bump())
        } else {
            Err(self.expected("a name"))
        }
    }

    /// A dotted name `a.b.c` starting at the current token.
    fn dotted(&mut self) -> PResult<(Cow<'a, str>, Span)> {
        if self.peek() != Tok::Name {
            return Err(self.expected("a name"));
        }
        let first = self.token();
        // Jump to the last name; `bump` consumes it (and moves the window on if needed).
        let (path, end) = self.path_from(self.pos);
        self.pos = end - 1;
        let last = self.bump();
        Ok((path, first.span().to(last.span())))
    }

    /// The dotted name starting at the current token, without consuming it.
    fn peek_dotted(&self) -> Cow<'a, str> {
        if self.peek() != Tok::Name {
            return Cow::Borrowed("");
        }
        self.path_from(self.pos).0
    }

    /// The path spelled by the alternating name and dot tokens from the name at `from`, and
    /// the index one past its last token. The path is a slice of the text when written
    /// without spaces (as printed), joined from its names otherwise.
    fn path_from(&self, from: usize) -> (Cow<'a, str>, usize) {
        let first = self.lexer.tokens[from];
        let mut last = first;
        let mut end = from + 1;
        let mut contiguous = true;
        while let [dot, name, ..] = self.lexer.tokens[end..]
            && dot.kind == Tok::Dot
            && name.kind == Tok::Name
        {
            contiguous &= last.end == dot.start && dot.end == name.start;
            last = name;
            end += 2;
        }
        if contiguous {
            let path = &self.text[first.start as usize..last.end as usize];
            return (Cow::Borrowed(path), end);
        }
        let names: Vec<&str> = self.lexer.tokens[from..end]
            .iter()
            .step_by(2)
            .map(|t| self.text_of(*t))
            .collect();
        (Cow::Owned(names.join(".")), end)
    }

    fn problem(&mut self, diagnostic: Diagnostic) {
        self.problems.push(diagnostic);
    }

    // ---- program and functions -----------------------------------------------------------

    fn program(&mut self, preamble: String) -> PResult<Program> {
        let (start, decorator, name) = self.decorated("pl.program", "class")?;
        if self.eat(Tok::LParen) {
            self.expect(Tok::RParen)?;
        }
        self.expect(Tok::Colon)?;
        self.expect(Tok::Newline)?;
        self.expect(Tok::Indent)?;
        let mut functions: Vec<Function> = Vec::new();
        while self.peek() != Tok::Dedent && self.peek() != Tok::Eof {
            let function = self.function()?;
            if let Some(first) = functions.iter().find(|f| f.name == function.name) {
                let first_line = self.text[..first.span.start as usize].lines().count() + 1;
                self.problem(
                    Diagnostic::error(
                        codes::DUPLICATE_FUNCTION,
                        format!(
                            "function '{}' is defined twice in program '{name}'",
                            function.name
                        ),
                        function.span,
                    )
                    .with_hint(format!("the first definition is on line {first_line}")),
                );
            }
            functions.push(function);
        }
        let end = self.token().span();
        self.eat(Tok::Dedent);
        if self.peek() != Tok::Eof {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                "unexpected text after the program class (a file holds one `@pl.program`)",
                self.token().span(),
            )));
        }
        if functions.is_empty() {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                format!("program '{name}' has no functions"),
                start,
            )));
        }
        let spacing = function_spacing(self.text, &functions);
        Ok(Program {
            preamble,
            decorator,
            name,
            functions,
            dynamic_dims: std::mem::take(&mut self.dynamic_dims),
            spacing,
            span: start.to(end),
        })
    }

    /// `@decorator(k=v, ...)`, then `keyword name` on the next line: the header of the
    /// program class and of each function. Returns where the `@` is, the decorator's keyword
    /// arguments and the name.
    fn decorated(
        &mut self,
        decorator: &str,
        keyword: &str,
    ) -> PResult<(Span, Vec<Kwarg>, CompactString)> {
        let start = self.expect(Tok::At)?.span();
        let (path, path_span) = self.dotted()?;
        if path != decorator {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                format!("expected `@{decorator}`, found `@{path}`"),
                path_span,
            )));
        }
        let kwargs = self.decorator_kwargs()?;
        self.expect(Tok::Newline)?;
        self.expect_keyword(keyword)?;
        let name = self.expect_name()?;
        Ok((start, kwargs, CompactString::from(self.text_of(name))))
    }

    /// `(k=v, ...)` after a decorator name; empty when the decorator is bare.
    fn decorator_kwargs(&mut self) -> PResult<Vec<Kwarg>> {
        if !self.eat(Tok::LParen) {
            return Ok(Vec::new());
        }
        let saved = std::mem::replace(&mut self.names_are_dims, true);
        let kwargs = self.separated(Tok::RParen, |p| {
            let name = p.expect_name()?;
            p.expect(Tok::Assign)?;
            let value = p.expr()?;
            Ok(Kwarg {
                name: p.text_of(name).into(),
                span: name.span().to(value.span),
                value,
            })
        })?;
        self.names_are_dims = saved;
        self.expect(Tok::RParen)?;
        Ok(kwargs)
    }

    fn function(&mut self) -> PResult<Function> {
        self.vars = VarTable::default();
        self.scope.clear();
        self.yield_frames.clear();

        // Comments between functions are not part of any statement.
        self.comments_before(self.token().start);
        let (start, decorator, name) = self.decorated("pl.function", "def")?;
        self.expect(Tok::LParen)?;
        let mut has_self = false;
        if self.at_keyword("self") && self.peek_at(1) != Tok::Colon {
            self.bump();
            has_self = true;
            if !self.eat(Tok::Comma) && self.peek() != Tok::RParen {
                return Err(self.expected("',' or ')'"));
            }
        }
        let params = self.separated(Tok::RParen, Self::param)?;
        self.expect(Tok::RParen)?;
        let ret = if self.eat(Tok::Arrow) {
            Some(self.return_type()?)
        } else {
            None
        };
        self.expect(Tok::Colon)?;
        self.expect(Tok::Newline)?;
        self.expect(Tok::Indent)?;
        let func_attrs = if self.peek_dotted() == "pl.func_attr" {
            self.dotted()?;
            self.expect(Tok::LParen)?;
            let saved = std::mem::replace(&mut self.names_are_dims, true);
            let dict = self.expr();
            self.names_are_dims = saved;
            let dict = dict?;
            self.expect(Tok::RParen)?;
            self.expect(Tok::Newline)?;
            Some(dict)
        } else {
            None
        };
        let body = self.statements()?;
        let end = self.expect(Tok::Dedent)?.span();
        let function = Function {
            name,
            decorator,
            func_attrs,
            has_self,
            params,
            ret,
            body: body.into(),
            vars: std::mem::take(&mut self.vars),
            span: start.to(end),
        };
        self.check_memrefs(&function);
        Ok(function)
    }

    fn param(&mut self) -> PResult<Param> {
        let name = self.expect_name()?;
        self.expect(Tok::Colon)?;
        let direction = match &*self.peek_dotted() {
            "pl.Out" => ParamDirection::Out,
            "pl.InOut" => ParamDirection::InOut,
            _ => ParamDirection::In,
        };
        let ty = if direction == ParamDirection::In {
            self.ty()?
        } else {
            self.dotted()?;
            self.expect(Tok::LBracket)?;
            let ty = self.ty()?;
            self.expect(Tok::RBracket)?;
            ty
        };
        let span = name.span().to(self.prev().span());
        let var = self.define(name, VarKind::Param, Some(ty));
        Ok(Param {
            var,
            direction,
            span,
        })
    }

    fn return_type(&mut self) -> PResult<ReturnType> {
        if self.at_keyword("tuple") && self.peek_at(1) == Tok::LBracket {
            self.bump();
            self.bump();
            let types = self.separated(Tok::RBracket, Self::ty)?;
            self.expect(Tok::RBracket)?;
            Ok(ReturnType::Tuple(types))
        } else {
            Ok(ReturnType::Single(self.ty()?))
        }
    }

    fn define(&mut self, name: Token, kind: VarKind, ty: Option<Type>) -> VarId {
        let text = self.text_of(name);
        let id = self.vars.push(Var {
            name: text.into(),
            kind,
            ty,
            span: name.span(),
        });
        self.scope.insert(text, id);
        id
    }

    // ---- types ---------------------------------------------------------------------------

    fn ty(&mut self) -> PResult<Type> {
        let saved = std::mem::replace(&mut self.names_are_dims, true);
        let ty = self.ty_inner();
        self.names_are_dims = saved;
        ty
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        if let Some(tile) = self.printed_tile_type() {
            return Ok(tile);
        }
        let (start, pending) = (self.pos, self.pending.len());
        let (path, _) = self.dotted()?;
        match self.known_type(&path) {
            Ok(Some(ty)) => Ok(ty),
            Ok(None) => self.opaque_type(path),
            // A scalar or tensor of an element type the planner does not know is still a type
            // PyPTO accepts: keep it as written. A tile's element type must be known.
            Err(error) if error.code == codes::UNKNOWN_DTYPE && path != "pl.Tile" => {
                // A type never spans a line end, so the lexer's window still holds it.
                self.pos = start;
                self.pending.truncate(pending);
                let (path, _) = self.dotted()?;
                self.opaque_type(path)
            }
            Err(error) => Err(error),
        }
    }

    /// `pl.Tile[[D, ...], pl.DTYPE, pl.MemRef(base, pl.const(N, pl.DTYPE), SIZE), pl.Mem.SPACE]`
    /// with integer dims, as PyPTO prints every tile of a body, read in one pass over the
    /// lexer's window (a type never spans a line end): the type `known_type` builds from the
    /// same tokens, spans included, without its calls per token. `None` (nothing consumed) for
    /// any other spelling, which the general path then reads (and reports, where it is wrong).
    fn printed_tile_type(&mut self) -> Option<Type> {
        // Every dim and the size are atoms, which the general path refuses this deep.
        if self.nesting >= MAX_NESTING {
            return None;
        }
        let tokens = &self.lexer.tokens[self.pos..];
        let bytes = self.text.as_bytes();
        let text = |t: &Token| &bytes[t.start as usize..t.end as usize];
        let kind_at = |i: usize| tokens.get(i).map_or(Tok::Eof, |t| t.kind);
        // Whether the tokens from `at` on are spelled as `spelling` says, token by token.
        let spelled = |at: usize, spelling: &[Spelled]| {
            spelling.iter().enumerate().all(|(i, spelled)| {
                tokens.get(at + i).is_some_and(|t| match *spelled {
                    Spelled::Is(kind) => t.kind == kind,
                    Spelled::Word(word) => t.kind == Tok::Name && text(t) == word,
                })
            })
        };
        // The spellings, token by token, as they read.
        const PL: Spelled = Spelled::Word(b"pl");
        const DOT: Spelled = Spelled::Is(Tok::Dot);
        const COMMA: Spelled = Spelled::Is(Tok::Comma);
        const NAME: Spelled = Spelled::Is(Tok::Name);
        const INT: Spelled = Spelled::Is(Tok::Int);
        const LBRACKET: Spelled = Spelled::Is(Tok::LBracket);
        const RBRACKET: Spelled = Spelled::Is(Tok::RBracket);
        const LPAREN: Spelled = Spelled::Is(Tok::LParen);
        const RPAREN: Spelled = Spelled::Is(Tok::RParen);
        const TILE: Spelled = Spelled::Word(b"Tile");
        const MEMREF: Spelled = Spelled::Word(b"MemRef");
        const MEM: Spelled = Spelled::Word(b"Mem");
        let tile_and_shape = [PL, DOT, TILE, LBRACKET, LBRACKET];
        if !spelled(0, &tile_and_shape) {
            return None;
        }
        let mut at = tile_and_shape.len();
        let mut shape: smallvec::SmallVec<[Expr; 4]> = smallvec::SmallVec::new();
        loop {
            let dim = tokens.get(at).filter(|t| t.kind == Tok::Int)?;
            shape.push(Expr::new(ExprKind::Int(self.int_value(*dim)?), dim.span()));
            at += 2;
            match kind_at(at - 1) {
                Tok::Comma => {}
                Tok::RBracket => break,
                _ => return None,
            }
        }
        // `, pl.DTYPE, pl.MemRef(BASE, `
        let dtype_and_memref = [
            COMMA, PL, DOT, NAME, COMMA, PL, DOT, MEMREF, LPAREN, NAME, COMMA,
        ];
        if !spelled(at, &dtype_and_memref) {
            return None;
        }
        let dtype = DType::from_name(self.text_of(tokens[at + 3]))?;
        let memref_start = at + 5;
        let base = tokens[memref_start + 4];
        // `pl.const(N, pl.DTYPE), SIZE), pl.Mem.SPACE]`
        let offset_at = at + dtype_and_memref.len();
        let size_at = offset_at + PLAIN_CONST_TOKENS + 1;
        let space_at = size_at + 2;
        let size_and_space = [INT, RPAREN, COMMA, PL, DOT, MEM, DOT, NAME, RBRACKET];
        if kind_at(offset_at + PLAIN_CONST_TOKENS) != Tok::Comma
            || !spelled(size_at, &size_and_space)
        {
            return None;
        }
        let space = MemSpace::from_name(self.text_of(tokens[space_at + 5]))?;
        let offset = self.plain_const_at(self.pos + offset_at)?;
        let size_token = tokens[size_at];
        let size = Expr::new(
            ExprKind::Int(self.int_value(size_token)?),
            size_token.span(),
        );
        let memref = MemRef {
            base: self.text_of(base).into(),
            extent: Some(MemRefExtent { offset, size }),
            slots: None,
            slot_index: None,
            span: tokens[memref_start].span().to(tokens[size_at + 1].span()),
        };
        let tile = TileType {
            shape: shape.into_iter().collect(),
            dtype,
            memref: Some(memref),
            space: Some(space),
            view: None,
        };
        // Onto the closing bracket, which `bump` consumes (moving the window on if needed).
        self.pos += space_at + 6;
        self.bump();
        Some(Type::Tile(tile))
    }

    /// A type constructor the planner does not model, kept with its subscript as written.
    fn opaque_type(&mut self, constructor: Cow<'a, str>) -> PResult<Type> {
        let args = if self.eat(Tok::LBracket) {
            let args = self.separated(Tok::RBracket, |p| {
                let item = p.peek_dotted();
                Ok(if item == "pl.MemRef" {
                    TypeArg::MemRef(p.memref()?)
                } else if is_type_constructor(&item) {
                    TypeArg::Type(p.ty_inner()?)
                } else {
                    TypeArg::Expr(p.expr()?)
                })
            })?;
            self.expect(Tok::RBracket)?;
            Some(args)
        } else {
            None
        };
        Ok(Type::Opaque(Box::new(OpaqueType {
            constructor: constructor.as_ref().into(),
            args,
        })))
    }

    /// The rest of a type the planner models, after its constructor `path`; `None` for any
    /// other constructor.
    fn known_type(&mut self, path: &str) -> PResult<Option<Type>> {
        let ty = match path {
            "pl.Tile" => {
                let (shape, dtype) = self.shape_and_dtype()?;
                let mut tile = TileType {
                    shape: shape.into(),
                    dtype,
                    memref: None,
                    space: None,
                    view: None,
                };
                while self.eat(Tok::Comma) && self.peek() != Tok::RBracket {
                    let extra = self.peek_dotted();
                    if extra == "pl.MemRef" {
                        tile.memref = Some(self.memref()?);
                    } else if extra.starts_with("pl.Mem.") || extra.starts_with("pl.MemorySpace.") {
                        tile.space = Some(self.memory_space()?);
                    } else {
                        tile.view = Some(self.expr()?);
                    }
                }
                self.expect(Tok::RBracket)?;
                if let (Some(memref), None) = (&tile.memref, tile.space) {
                    self.problem(
                        Diagnostic::error(
                            codes::MEMREF_WITHOUT_SPACE,
                            "a tile type with a MemRef must also name its memory space",
                            memref.span,
                        )
                        .with_hint("add the space after the MemRef, e.g. `pl.Mem.Vec`"),
                    );
                }
                Type::Tile(tile)
            }
            "pl.Tensor" => {
                let (shape, dtype) = self.shape_and_dtype()?;
                let mut tensor = TensorType {
                    shape: shape.into(),
                    dtype,
                    extras: Vec::new(),
                    memref: None,
                };
                while self.eat(Tok::Comma) && self.peek() != Tok::RBracket {
                    if self.peek_dotted() == "pl.MemRef" {
                        tensor.memref = Some(self.memref()?);
                    } else {
                        tensor.extras.push(self.expr()?);
                    }
                }
                self.expect(Tok::RBracket)?;
                Type::Tensor(tensor)
            }
            "pl.Scalar" => {
                self.expect(Tok::LBracket)?;
                let dtype = self.dtype()?;
                self.expect(Tok::RBracket)?;
                Type::Scalar(dtype)
            }
            "pl.Ptr" => Type::Ptr,
            "pl.MemRefType" => Type::MemRefType,
            "pl.Tuple" => {
                self.expect(Tok::LBracket)?;
                let items = if self.peek() == Tok::LParen && self.peek_at(1) == Tok::RParen {
                    self.bump();
                    self.bump();
                    Vec::new()
                } else {
                    self.separated(Tok::RBracket, Self::ty_inner)?
                };
                self.expect(Tok::RBracket)?;
                Type::Tuple(items)
            }
            _ => return Ok(None),
        };
        Ok(Some(ty))
    }

    /// `[SHAPE, DTYPE`: how a tile or tensor type begins.
    fn shape_and_dtype(&mut self) -> PResult<(Vec<Expr>, DType)> {
        self.expect(Tok::LBracket)?;
        let shape = self.shape()?;
        self.expect(Tok::Comma)?;
        Ok((shape, self.dtype()?))
    }

    fn shape(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LBracket)?;
        let from = self.pending.len();
        self.items_until(Tok::RBracket)?;
        Ok(self.take_pending(from))
    }

    /// The items pushed onto `pending` since it had `from` items.
    fn take_pending(&mut self, from: usize) -> Vec<Expr> {
        self.pending.drain(from..).collect()
    }

    fn dtype(&mut self) -> PResult<DType> {
        let (path, span) = self.dotted()?;
        path.strip_prefix("pl.")
            .and_then(DType::from_name)
            .ok_or_else(|| {
                let known = DType::ALL.iter().map(|d| format!("pl.{}", d.name()));
                let message = format!("unknown dtype `{path}`");
                Box::new(unknown_name(
                    codes::UNKNOWN_DTYPE,
                    message,
                    span,
                    "dtypes",
                    known,
                ))
            })
    }

    fn memory_space(&mut self) -> PResult<MemSpace> {
        let (path, span) = self.dotted()?;
        space_of_path(&path).ok_or_else(|| Box::new(unknown_space(&path, span)))
    }

    fn memref(&mut self) -> PResult<MemRef> {
        let (_, start) = self.dotted()?;
        self.expect(Tok::LParen)?;
        let base_token = self.token();
        let base: Name = match base_token.kind {
            Tok::Name => self.text_of(base_token).into(),
            Tok::Str => unquote(self.text_of(base_token)).0,
            _ => return Err(self.expected("an allocation name")),
        };
        self.bump();
        let mut extent = None;
        let mut slots = None;
        let declaration = self.peek() == Tok::RParen
            || (self.peek() == Tok::Comma && self.peek_at(2) == Tok::Assign);
        if !declaration {
            self.expect(Tok::Comma)?;
            let offset = self.expr()?;
            self.expect(Tok::Comma)?;
            let size = self.expr()?;
            extent = Some(MemRefExtent { offset, size });
        }
        while self.eat(Tok::Comma) && self.peek() != Tok::RParen {
            let key = self.expect_name()?;
            if self.text_of(key) != "slots" {
                return Err(Box::new(Diagnostic::error(
                    codes::SYNTAX,
                    format!("unknown MemRef argument `{}`", self.text_of(key)),
                    key.span(),
                )));
            }
            self.expect(Tok::Assign)?;
            let value = self.expr()?;
            slots = Some(value.as_const_int().ok_or_else(|| {
                Diagnostic::error(codes::SYNTAX, "slots= must be an integer", value.span)
            })?);
        }
        let mut end = self.expect(Tok::RParen)?.span();
        let slot_index = if self.eat(Tok::LBracket) {
            let index = self.expr()?;
            end = self.expect(Tok::RBracket)?.span();
            Some(Box::new(index))
        } else {
            None
        };
        if extent.is_none() && base_token.kind == Tok::Name {
            return Err(Box::new(
                Diagnostic::error(
                    codes::SYNTAX,
                    "a MemRef needs an offset and a size",
                    start.to(end),
                )
                .with_hint(
                    "write pl.MemRef(base, offset, size), or pl.MemRef(\"name\") to declare",
                ),
            ));
        }
        Ok(MemRef {
            base,
            extent,
            slots,
            slot_index,
            span: start.to(end),
        })
    }

    // ---- statements ----------------------------------------------------------------------

    /// Statements up to the end of the current block (the DEDENT is left for the caller).
    fn statements(&mut self) -> PResult<Vec<Stmt>> {
        let from = self.pending_stmts.len();
        while self.peek() != Tok::Dedent && self.peek() != Tok::Eof {
            if let Some(stmt) = self.statement()? {
                self.pending_stmts.push(stmt);
            }
        }
        Ok(self.pending_stmts.drain(from..).collect())
    }

    /// `: NEWLINE INDENT statements DEDENT`
    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(Tok::Colon)?;
        self.expect(Tok::Newline)?;
        self.expect(Tok::Indent)?;
        let stmts = self.nested(Self::statements)?;
        self.expect(Tok::Dedent)?;
        Ok(stmts)
    }

    /// Runs `parse` one nesting level deeper, refusing to go past [`MAX_NESTING`].
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                format!("nested more than {MAX_NESTING} levels deep"),
                self.token().span(),
            )));
        }
        self.nesting += 1;
        let result = parse(self);
        self.nesting -= 1;
        result
    }

    fn end_of_statement(&mut self) -> PResult<()> {
        if self.eat(Tok::Newline) || matches!(self.peek(), Tok::Dedent | Tok::Eof) {
            Ok(())
        } else {
            Err(self.expected("end of line"))
        }
    }

    fn statement(&mut self) -> PResult<Option<Stmt>> {
        let comments = self.comments_before(self.token().start);
        let mut stmt = self.statement_without_comments()?;
        if let Some(stmt) = &mut stmt {
            stmt.comments = comments;
        }
        Ok(stmt)
    }

    /// The comment-only lines above `offset` not yet claimed by an earlier statement.
    fn comments_before(&mut self, offset: u32) -> Comments {
        let pending = &mut self.lexer.comments;
        if pending.first().is_none_or(|c| c.start >= offset) {
            return Comments::default();
        }
        let taken = pending.iter().take_while(|c| c.start < offset).count();
        let text = self.text;
        Comments::new(
            pending
                .drain(..taken)
                .map(|c| text[c.start as usize..c.end as usize].into())
                .collect(),
        )
    }

    fn statement_without_comments(&mut self) -> PResult<Option<Stmt>> {
        let start = self.token().span();
        if self.peek() == Tok::Name {
            match self.text_of(self.token()) {
                "for" => return self.for_stmt().map(Some),
                "if" => return self.if_stmt().map(Some),
                "with" => {
                    self.bump();
                    let context = self.expr()?;
                    let body = self.block()?;
                    let span = start.to(self.prev().span());
                    let kind = StmtKind::With(Box::new(WithStmt { context, body }));
                    return Ok(Some(Stmt::new(kind, span)));
                }
                "elif" => {
                    return Err(Box::new(
                        Diagnostic::error(
                            codes::SYNTAX,
                            "`elif` is not part of PyPTO's printed IR",
                            start,
                        )
                        .with_hint("write `else:` followed by a nested `if`"),
                    ));
                }
                "pass" => {
                    self.bump();
                    self.end_of_statement()?;
                    let kind = StmtKind::Pass;
                    return Ok(Some(Stmt::new(kind, start)));
                }
                "return" => {
                    self.bump();
                    let mut values = Vec::new();
                    if !matches!(self.peek(), Tok::Newline | Tok::Dedent | Tok::Eof) {
                        loop {
                            values.push(self.expr()?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    let span = start.to(self.prev().span());
                    self.end_of_statement()?;
                    let kind = StmtKind::Return { values };
                    return Ok(Some(Stmt::new(kind, span)));
                }
                _ => {}
            }
            match self.peek_at(1) {
                Tok::Colon | Tok::Assign => return self.assignment().map(Some),
                Tok::Comma => return self.tuple_yield().map(Some),
                _ => {}
            }
        }
        let value = self.expr()?;
        let span = value.span;
        self.end_of_statement()?;
        let kind = match value.kind {
            ExprKind::Call(_, call) if call.callee == YIELD => {
                self.yield_into(&[], Arc::unwrap_or_clone(call).args.into_vec(), span)?
            }
            kind => StmtKind::Eval(Expr { kind, span }),
        };
        Ok(Some(Stmt::new(kind, span)))
    }

    /// `x: T = value` / `x = value` (including `x: T = pl.yield_(v)`).
    fn assignment(&mut self) -> PResult<Stmt> {
        let target = self.bump();
        let annotation = if self.eat(Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        self.expect(Tok::Assign)?;
        let value = self.expr()?;
        let span = target.span().to(value.span);
        self.end_of_statement()?;
        if let ExprKind::Call(op, call) = value.kind {
            if call.callee == YIELD {
                let kind = self.yield_into(
                    &[(target, annotation)],
                    Arc::unwrap_or_clone(call).args.into_vec(),
                    span,
                )?;
                return Ok(Stmt::new(kind, span));
            }
            let value = Expr {
                kind: ExprKind::Call(op, call),
                span: value.span,
            };
            return Ok(self.define_assignment(target, annotation, value, span));
        }
        Ok(self.define_assignment(target, annotation, value, span))
    }

    fn define_assignment(
        &mut self,
        target: Token,
        annotation: Option<Type>,
        value: Expr,
        span: Span,
    ) -> Stmt {
        if let Some(Type::Tile(tile)) = &annotation
            && tile.memref.is_none()
            && !self.may_lack_memref(&value)
        {
            self.problem(
                Diagnostic::error(
                    codes::MISSING_MEMREF,
                    format!(
                        "tile '{}' has no MemRef; the input is probably not post-InitMemRef",
                        self.text_of(target)
                    ),
                    target.span(),
                )
                .with_hint(
                    "plan PyPTO's dump taken after InitMemRef (e.g. `NN_after_InitMemRef.py`), \
                     where every on-chip tile carries `pl.MemRef(...)`",
                ),
            );
        }
        let ty = annotation.or_else(|| self.inferred_type(&value));
        let var = self.define(target, VarKind::Local, ty);
        Stmt::new(StmtKind::Assign { target: var, value }, span)
    }

    /// rules §3.1 rule 1: tpop results and aliases of MemRef-less tiles have no buffer.
    fn may_lack_memref(&self, value: &Expr) -> bool {
        let lacks_memref = |e: &Expr| {
            e.as_var().is_some_and(
                |v| matches!(&self.vars[v].ty, Some(Type::Tile(t)) if t.memref.is_none()),
            )
        };
        match &value.kind {
            ExprKind::Var(_) => lacks_memref(value),
            ExprKind::Call(_, call) => {
                let op = call.op();
                op_role(op).is_tpop()
                    || (is_aliasing_view(op) && call.args.first().is_some_and(lacks_memref))
            }
            _ => false,
        }
    }

    /// The type of an un-annotated definition, where the value makes it evident: a bare alias
    /// takes its source's type, a tuple item the item's type.
    fn inferred_type(&self, value: &Expr) -> Option<Type> {
        match &value.kind {
            ExprKind::Var(v) => self.vars[*v].ty.clone(),
            ExprKind::Index { base, index } => {
                let Some(Type::Tuple(items)) = base.as_var().and_then(|v| self.vars[v].ty.as_ref())
                else {
                    return None;
                };
                let i = usize::try_from(index.as_const_int()?).ok()?;
                items.get(i).cloned()
            }
            _ => None,
        }
    }

    /// `a, b = pl.yield_(x, y)`
    fn tuple_yield(&mut self) -> PResult<Stmt> {
        let mut targets = vec![(self.bump(), None)];
        while self.eat(Tok::Comma) {
            targets.push((self.expect_name()?, None));
        }
        self.expect(Tok::Assign)?;
        let value = self.expr()?;
        let span = targets[0].0.span().to(value.span);
        self.end_of_statement()?;
        match value.kind {
            ExprKind::Call(_, call) if call.callee == YIELD => {
                let kind =
                    self.yield_into(&targets, Arc::unwrap_or_clone(call).args.into_vec(), span)?;
                Ok(Stmt::new(kind, span))
            }
            _ => Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                "only `pl.yield_(...)` may be assigned to several names",
                span,
            ))),
        }
    }

    /// A yield; its targets become the enclosing `for`/`if`'s return variables.
    fn yield_into(
        &mut self,
        targets: &[(Token, Option<Type>)],
        values: Vec<Expr>,
        span: Span,
    ) -> PResult<StmtKind> {
        if targets.is_empty() {
            return Ok(StmtKind::Yield { values });
        }
        let Some(frame_index) = self.yield_frames.len().checked_sub(1) else {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                "`pl.yield_` with targets outside a `for` or `if` body",
                span,
            )));
        };
        if targets.len() != values.len() {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                format!(
                    "{} targets but {} yielded values",
                    targets.len(),
                    values.len()
                ),
                span,
            )));
        }
        let names: Vec<&'a str> = targets.iter().map(|(t, _)| self.text_of(*t)).collect();
        let frame = &self.yield_frames[frame_index];
        if !frame.vars.is_empty() {
            if frame.names != names {
                return Err(Box::new(
                    Diagnostic::error(
                        codes::SYNTAX,
                        format!(
                            "this yield names ({}) but an earlier one named ({})",
                            names.join(", "),
                            frame.names.join(", ")
                        ),
                        span,
                    )
                    .with_hint("both arms of an `if` yield into the same return variables"),
                ));
            }
            return Ok(StmtKind::Yield { values });
        }
        let mut vars = Vec::with_capacity(targets.len());
        for (i, ((token, annotation), value)) in targets.iter().zip(&values).enumerate() {
            let frame = &self.yield_frames[frame_index];
            // rules §1.4.5/§1.4.6: a return var has the type annotated on its yield line (a
            // loop's may sit on another MemRef than its iter arg, as after MemoryReuse); else
            // a loop's has its iter arg's type and an if's the yielded value's.
            let ty = match (annotation, frame.inherited.get(i)) {
                (Some(annotation), _) => Some(annotation.clone()),
                (None, Some(Some(inherited))) => Some(inherited.clone()),
                (None, _) => value.as_var().and_then(|v| self.vars[v].ty.clone()),
            };
            vars.push(self.vars.push(Var {
                name: self.text_of(*token).into(),
                kind: VarKind::ReturnVar,
                ty,
                span: token.span(),
            }));
        }
        let frame = &mut self.yield_frames[frame_index];
        frame.names = names;
        frame.vars = vars;
        Ok(StmtKind::Yield { values })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().span();
        // `for (c, w) in pl.while_(...)` has no loop variable.
        let loop_var = if self.peek() == Tok::LParen {
            None
        } else {
            Some(self.expect_name()?)
        };
        let mut iter_arg_names = Vec::new();
        if loop_var.is_none() || self.eat(Tok::Comma) {
            self.expect(Tok::LParen)?;
            iter_arg_names = self.separated(Tok::RParen, Self::expect_name)?;
            self.expect(Tok::RParen)?;
        }
        self.expect_keyword("in")?;
        let (callee, callee_span) = self.dotted()?;
        let kind = callee
            .strip_prefix("pl.")
            .and_then(LoopKind::from_name)
            .ok_or_else(|| {
                Diagnostic::error(
                    codes::SYNTAX,
                    format!("unsupported loop iterator `{callee}`"),
                    callee_span,
                )
                .with_hint(
                    "loops iterate pl.range, pl.parallel, pl.unroll, pl.pipeline or pl.while_",
                )
            })?;
        if (kind == LoopKind::While) != loop_var.is_none() {
            let message = if loop_var.is_none() {
                format!("a `{callee}` loop needs a loop variable: `for i, (...) in {callee}(...)`")
            } else {
                "a `pl.while_` loop has no loop variable: `for (...) in pl.while_(...)`".into()
            };
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                message,
                callee_span,
            )));
        }
        self.expect(Tok::LParen)?;
        let mut bounds = Vec::new();
        let mut init_values = Vec::new();
        let mut kwargs = Vec::new();
        while self.peek() != Tok::RParen {
            if self.peek() == Tok::Name && self.peek_at(1) == Tok::Assign {
                let key = self.bump();
                self.bump();
                let value = self.expr()?;
                if self.text_of(key) == "init_values" {
                    init_values = match value.kind {
                        ExprKind::Tuple(items) | ExprKind::List(items) => items,
                        kind => vec![Expr {
                            kind,
                            span: value.span,
                        }],
                    };
                } else {
                    kwargs.push(Kwarg {
                        name: self.text_of(key).into(),
                        span: key.span().to(value.span),
                        value,
                    });
                }
            } else {
                bounds.push(self.expr()?);
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        if init_values.len() != iter_arg_names.len() {
            return Err(Box::new(Diagnostic::error(
                codes::SYNTAX,
                format!(
                    "{} iter args but {} init values",
                    iter_arg_names.len(),
                    init_values.len()
                ),
                start.to(self.prev().span()),
            )));
        }
        let loop_var = loop_var.map(|name| self.define(name, VarKind::LoopVar, None));
        let mut iter_args = Vec::with_capacity(iter_arg_names.len());
        let mut inherited = Vec::with_capacity(iter_arg_names.len());
        for (name, init) in iter_arg_names.into_iter().zip(&init_values) {
            // rules §1.4.4: an iter arg has its init value's type.
            let ty = init.as_var().and_then(|v| self.vars[v].ty.clone());
            inherited.push(ty.clone());
            iter_args.push(self.define(name, VarKind::IterArg, ty));
        }
        let (body, return_vars) = self.yielding(inherited, Self::block)?;
        let span = start.to(self.prev().span());
        let kind = StmtKind::For(Box::new(ForStmt {
            loop_var,
            iter_args,
            kind,
            bounds,
            init_values,
            kwargs,
            body,
            return_vars,
        }));
        Ok(Stmt::new(kind, span))
    }

    /// What `parse` parses, the body of a statement whose yields define its return
    /// variables (typed as `inherited` says), and those variables, visible after it.
    fn yielding<T>(
        &mut self,
        inherited: Vec<Option<Type>>,
        parse: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<(T, Vec<VarId>)> {
        self.yield_frames.push(YieldFrame {
            inherited,
            names: Vec::new(),
            vars: Vec::new(),
        });
        let parsed = parse(self);
        let frame = self.yield_frames.pop();
        let parsed = parsed?;
        let Some(frame) = frame else {
            return Ok((parsed, Vec::new()));
        };
        for (name, var) in frame.names.iter().zip(&frame.vars) {
            self.scope.insert(name, *var);
        }
        Ok((parsed, frame.vars))
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().span();
        let cond = self.expr()?;
        let ((then_body, else_body), return_vars) = self.yielding(Vec::new(), Self::if_branches)?;
        let span = start.to(self.prev().span());
        let kind = StmtKind::If(Box::new(IfStmt {
            cond,
            then_body,
            else_body,
            return_vars,
        }));
        Ok(Stmt::new(kind, span))
    }

    fn if_branches(&mut self) -> PResult<(Vec<Stmt>, Option<Vec<Stmt>>)> {
        let then_body = self.block()?;
        let else_body = if self.at_keyword("else") {
            self.bump();
            Some(self.block()?)
        } else {
            None
        };
        Ok((then_body, else_body))
    }

    // ---- expressions ---------------------------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        // Most expressions are a lone number, name or `pl.const(…)` ending a list item or
        // argument: read them without climbing through the operator levels.
        let ends_item = |kind| matches!(kind, Tok::Comma | Tok::RParen | Tok::RBracket);
        match self.peek() {
            Tok::Int if ends_item(self.peek_at(1)) => return self.atom(),
            Tok::Name if !self.at_keyword("not") => {
                if ends_item(self.peek_at(1)) {
                    return self.atom();
                }
                if ends_item(self.peek_at(PLAIN_CONST_TOKENS))
                    && let Some(constant) = self.plain_const()
                {
                    return Ok(constant);
                }
            }
            _ => {}
        }
        self.binary(1)
    }

    /// Precedence climbing over Python's binary operators, `not` included.
    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = match self.peek() {
            Tok::Name if min_prec <= UnaryOp::Not.precedence() && self.at_keyword("not") => {
                let start = self.bump().span();
                let operand = self.nested(|p| p.binary(UnaryOp::Not.precedence()))?;
                let span = start.to(operand.span);
                let operand = Box::new(operand);
                Expr::new(
                    ExprKind::Unary {
                        op: UnaryOp::Not,
                        operand,
                    },
                    span,
                )
            }
            Tok::Minus | Tok::Tilde | Tok::Plus => self.unary()?,
            // What `unary` would reach through `power` and `postfix`, one call deep.
            _ => {
                let atom = self.atom()?;
                let base = self.postfix_after(atom)?;
                self.power_after(base)?
            }
        };
        while let Some(op) = self.binary_op() {
            let prec = op.precedence();
            if prec < min_prec {
                break;
            }
            self.bump();
            // `**` is right-associative; everything else associates to the left.
            let next = if op == BinOp::Pow { prec } else { prec + 1 };
            let rhs = self.nested(|p| p.binary(next))?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
        Ok(lhs)
    }

    fn binary_op(&self) -> Option<BinOp> {
        Some(match self.peek() {
            Tok::Plus => BinOp::Add,
            Tok::Minus => BinOp::Sub,
            Tok::Star => BinOp::Mul,
            Tok::Slash => BinOp::Div,
            Tok::DoubleSlash => BinOp::FloorDiv,
            Tok::Percent => BinOp::Mod,
            Tok::DoubleStar => BinOp::Pow,
            Tok::EqEq => BinOp::Eq,
            Tok::NotEq => BinOp::Ne,
            Tok::Lt => BinOp::Lt,
            Tok::Le => BinOp::Le,
            Tok::Gt => BinOp::Gt,
            Tok::Ge => BinOp::Ge,
            Tok::Amp => BinOp::BitAnd,
            Tok::Pipe => BinOp::BitOr,
            Tok::Caret => BinOp::BitXor,
            Tok::Shl => BinOp::Shl,
            Tok::Shr => BinOp::Shr,
            Tok::Name => match self.text_of(self.token()) {
                "and" => BinOp::And,
                "or" => BinOp::Or,
                _ => return None,
            },
            _ => return None,
        })
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.nested(Self::unary_at_depth)
    }

    fn unary_at_depth(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::Plus => UnaryOp::Pos,
            Tok::Minus => UnaryOp::Neg,
            Tok::Tilde => UnaryOp::Invert,
            _ => return self.power(),
        };
        let start = self.bump().span();
        let operand = self.unary()?;
        let span = start.to(operand.span);
        Ok(Expr::new(
            ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            span,
        ))
    }

    /// `primary ['**' unary]` — `**` binds tighter than a unary minus on its left.
    fn power(&mut self) -> PResult<Expr> {
        let atom = self.atom()?;
        let base = self.postfix_after(atom)?;
        self.power_after(base)
    }

    /// The `['**' unary]` part of `power` after its base.
    fn power_after(&mut self, base: Expr) -> PResult<Expr> {
        if self.peek() != Tok::DoubleStar {
            return Ok(base);
        }
        self.bump();
        let exponent = self.unary()?;
        let span = base.span.to(exponent.span);
        Ok(Expr::new(
            ExprKind::Binary {
                op: BinOp::Pow,
                lhs: Box::new(base),
                rhs: Box::new(exponent),
            },
            span,
        ))
    }

    /// Subscripts `[index]` after a primary.
    fn postfix_after(&mut self, mut expr: Expr) -> PResult<Expr> {
        while self.peek() == Tok::LBracket {
            self.bump();
            let index = self.expr()?;
            let end = self.expect(Tok::RBracket)?.span();
            let span = expr.span.to(end);
            expr = Expr::new(
                ExprKind::Index {
                    base: Box::new(expr),
                    index: Box::new(index),
                },
                span,
            );
        }
        Ok(expr)
    }

    fn atom(&mut self) -> PResult<Expr> {
        self.nested(Self::atom_at_depth)
    }

    fn atom_at_depth(&mut self) -> PResult<Expr> {
        let token = self.token();
        match token.kind {
            Tok::Int => {
                self.bump();
                let value = self.int_value(token).ok_or_else(|| {
                    Diagnostic::error(
                        codes::SYNTAX,
                        "integer literal does not fit in 64 bits",
                        token.span(),
                    )
                })?;
                Ok(Expr::new(ExprKind::Int(value), token.span()))
            }
            Tok::Float => {
                self.bump();
                Ok(Expr::new(
                    ExprKind::Float(self.text_of(token).into()),
                    token.span(),
                ))
            }
            Tok::Str => {
                self.bump();
                let (value, quote) = unquote(self.text_of(token));
                Ok(Expr::new(ExprKind::Str { value, quote }, token.span()))
            }
            Tok::LParen => {
                self.bump();
                if let Some(end) = self.eat_close(Tok::RParen) {
                    return Ok(Expr::new(ExprKind::Tuple(Vec::new()), token.span().to(end)));
                }
                let first = self.expr()?;
                if let Some(end) = self.eat_close(Tok::RParen) {
                    // Parentheses only group; the printer puts back the ones precedence needs.
                    return Ok(Expr::new(first.kind, token.span().to(end)));
                }
                self.expect(Tok::Comma)?;
                let from = self.pending.len();
                self.pending.push(first);
                let end = self.items_until(Tok::RParen)?;
                let items = self.take_pending(from);
                Ok(Expr::new(ExprKind::Tuple(items), token.span().to(end)))
            }
            Tok::LBracket => {
                self.bump();
                let from = self.pending.len();
                let end = self.items_until(Tok::RBracket)?;
                let items = self.take_pending(from);
                Ok(Expr::new(ExprKind::List(items), token.span().to(end)))
            }
            Tok::LBrace => {
                self.bump();
                let entries = self.separated(Tok::RBrace, |p| {
                    let key = p.expr()?;
                    p.expect(Tok::Colon)?;
                    Ok((key, p.expr()?))
                })?;
                let end = self.expect(Tok::RBrace)?.span();
                Ok(Expr::new(ExprKind::Dict(entries), token.span().to(end)))
            }
            Tok::Name => self.name_expr(),
            _ => Err(self.expected("an expression")),
        }
    }

    /// The value of an integer token, `None` when it does not fit in an `i64`.
    fn int_value(&self, token: Token) -> Option<i64> {
        let text = self.text_of(token);
        // Plain decimals of up to 18 digits (every shape, size and offset) cannot overflow;
        // convert them in one pass, leaving hex, `_` and longer literals to the general path.
        if (1..=18).contains(&text.len()) {
            let mut value: i64 = 0;
            let plain = text.bytes().all(|digit| {
                digit.is_ascii_digit() && {
                    value = value * 10 + i64::from(digit - b'0');
                    true
                }
            });
            if plain {
                return Some(value);
            }
        }
        let text = if text.contains('_') {
            Cow::Owned(text.replace('_', ""))
        } else {
            Cow::Borrowed(text)
        };
        match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => text.parse().ok(),
        }
    }

    fn eat_close(&mut self, close: Tok) -> Option<Span> {
        (self.peek() == close).then(|| self.bump().span())
    }

    /// Comma-separated items up to `close` (trailing comma allowed), each read by `item`;
    /// `close` itself is left to the caller.
    fn separated<T>(
        &mut self,
        close: Tok,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        while self.peek() != close {
            items.push(item(self)?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(items)
    }

    /// Comma-separated expressions up to `close` (trailing comma allowed), pushed onto
    /// `pending`; returns the span of `close`.
    fn items_until(&mut self, close: Tok) -> PResult<Span> {
        while self.peek() != close {
            let item = self.expr()?;
            self.pending.push(item);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(self.expect(close)?.span())
    }

    fn name_expr(&mut self) -> PResult<Expr> {
        let first = self.token();
        match self.text_of(first) {
            "True" | "False" => {
                self.bump();
                let value = self.text_of(first) == "True";
                return Ok(Expr::new(ExprKind::Bool(value), first.span()));
            }
            "None" => {
                self.bump();
                return Ok(Expr::new(ExprKind::None, first.span()));
            }
            _ => {}
        }
        if self.peek_at(1) != Tok::Dot {
            // A plain name: most often a variable, sometimes a callee like `min`.
            let name = self.bump();
            if self.peek() == Tok::LParen {
                return self.call(Cow::Borrowed(self.text_of(name)), name.span());
            }
            return Ok(self.resolve(name, name.span()));
        }
        if let Some(constant) = self.plain_const() {
            return Ok(constant);
        }
        let (path, span) = self.dotted()?;
        if self.peek() == Tok::LParen {
            return self.call(path, span);
        }
        if !path.contains('.') {
            return Ok(self.resolve(first, span));
        }
        if let Some(dtype) = path.strip_prefix("pl.").and_then(DType::from_name) {
            return Ok(Expr::new(ExprKind::DType(dtype), span));
        }
        if path.starts_with("pl.Mem.") || path.starts_with("pl.MemorySpace.") {
            let space = space_of_path(&path).ok_or_else(|| unknown_space(&path, span))?;
            return Ok(Expr::new(ExprKind::Space(space), span));
        }
        Ok(Expr::new(ExprKind::Path(path.into()), span))
    }

    /// `pl.const(INT, pl.DTYPE)`, as every MemRef offset is spelled, read in one step; `None`
    /// (nothing consumed) for any other form, which `call` then folds or reports.
    fn plain_const(&mut self) -> Option<Expr> {
        let constant = self.plain_const_at(self.pos)?;
        self.pos += PLAIN_CONST_TOKENS - 1;
        self.bump();
        Some(constant)
    }

    /// The `pl.const(INT, pl.DTYPE)` whose first token is the window's token `at`, without
    /// consuming it.
    fn plain_const_at(&self, at: usize) -> Option<Expr> {
        let [
            pl,
            dot,
            name,
            open,
            value,
            comma,
            dtype_pl,
            dtype_dot,
            dtype,
            close,
            ..,
        ] = self.lexer.tokens.get(at..)?
        else {
            return None;
        };
        let shape_matches = [
            (pl, Tok::Name),
            (dot, Tok::Dot),
            (name, Tok::Name),
            (open, Tok::LParen),
            (value, Tok::Int),
            (comma, Tok::Comma),
            (dtype_pl, Tok::Name),
            (dtype_dot, Tok::Dot),
            (dtype, Tok::Name),
            (close, Tok::RParen),
        ]
        .iter()
        .all(|(token, kind)| token.kind == *kind);
        if !shape_matches
            || self.text_of(*pl) != "pl"
            || self.text_of(*name) != "const"
            || self.text_of(*dtype_pl) != "pl"
        {
            return None;
        }
        let kind = ExprKind::Const {
            value: self.int_value(*value)?,
            dtype: DType::from_name(self.text_of(*dtype))?,
        };
        let span = pl.span().to(close.span());
        Some(Expr::new(kind, span))
    }

    fn resolve(&mut self, name: Token, span: Span) -> Expr {
        let text = self.text_of(name);
        if let Some(&var) = self.scope.get(text) {
            return Expr::new(ExprKind::Var(var), span);
        }
        if !self.names_are_dims && !self.dynamic_dims.iter().any(|d| d == text) {
            self.problem(Diagnostic::error(
                codes::UNDEFINED_VARIABLE,
                format!("undefined variable '{text}'"),
                span,
            ));
        }
        Expr::new(ExprKind::Symbol(text.into()), span)
    }

    fn call(&mut self, callee: Cow<'a, str>, start: Span) -> PResult<Expr> {
        self.bump();
        let from = self.pending.len();
        let mut kwargs = Vec::new();
        while self.peek() != Tok::RParen {
            if self.peek() == Tok::Name && self.peek_at(1) == Tok::Assign {
                let key = self.bump();
                self.bump();
                let value = self.expr()?;
                kwargs.push(Kwarg {
                    name: self.text_of(key).into(),
                    span: key.span().to(value.span),
                    value,
                });
            } else if kwargs.is_empty() {
                let arg = self.expr()?;
                self.pending.push(arg);
            } else {
                return Err(self.expected("a keyword argument (positional after keyword)"));
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        let end = self.expect(Tok::RParen)?.span();
        // `pl.const` folds before its arguments are moved out of `pending`: no `Vec` at all.
        if callee == "pl.const"
            && kwargs.is_empty()
            && let [value, dtype] = &self.pending[from..]
            && let (Some(value), ExprKind::DType(dtype)) = (int_literal(value), &dtype.kind)
        {
            let kind = ExprKind::Const {
                value,
                dtype: *dtype,
            };
            self.pending.truncate(from);
            return Ok(Expr::new(kind, start.to(end)));
        }
        let args = self.pending.drain(from..).collect();
        Ok(Expr::new(
            ExprKind::call(Call {
                callee: callee.into(),
                args,
                kwargs,
            }),
            start.to(end),
        ))
    }

    // ---- semantic checks -----------------------------------------------------------------

    /// Every on-chip tile's MemRef names an alloc of the body and fits inside it. After
    /// AllocateMemoryAddr (rules §8) offsets are addresses, so a base's window starts at its
    /// lowest tile offset (0 straight after InitMemRef, where every base has its root at 0).
    fn check_memrefs(&mut self, function: &Function) {
        let mut allocs: FxHashMap<&str, Option<i64>> = FxHashMap::default();
        collect_allocs(&function.body, &function.vars, &mut allocs);
        let mut window_start: FxHashMap<&str, i64> = FxHashMap::default();
        for (_, var) in function.vars.iter() {
            if !matches!(var.kind, VarKind::Local | VarKind::ReturnVar) {
                continue;
            }
            let Some(Type::Tile(tile)) = &var.ty else {
                continue;
            };
            if let Some((memref, offset)) = tile
                .memref
                .as_ref()
                .and_then(|m| Some((m, m.const_offset()?)))
            {
                let start = window_start.entry(memref.base.as_str()).or_insert(offset);
                *start = (*start).min(offset);
            }
        }
        for (_, var) in function.vars.iter() {
            if !matches!(var.kind, VarKind::Local | VarKind::ReturnVar) {
                continue;
            }
            let Some(Type::Tile(tile)) = &var.ty else {
                continue;
            };
            let Some(memref) = &tile.memref else {
                continue;
            };
            if tile.space == Some(MemSpace::Ddr) {
                continue;
            }
            // A base no alloc defines is planned as PyPTO does, with the planner's warning.
            let Some(&alloc_size) = allocs.get(memref.base.as_str()) else {
                continue;
            };
            let (Some(alloc_size), Some(offset), Some(size)) =
                (alloc_size, memref.const_offset(), memref.size_bytes())
            else {
                continue;
            };
            let window = window_start
                .get(memref.base.as_str())
                .copied()
                .unwrap_or(0)
                .max(0);
            if offset < window || offset.saturating_add(size) > window.saturating_add(alloc_size) {
                let placed = if window == 0 {
                    String::new()
                } else {
                    format!(" from address {window}")
                };
                self.problem(Diagnostic::error(
                    codes::MEMREF_EXCEEDS_ALLOC,
                    format!(
                        "tile '{}' covers bytes [{offset}, {}) of '{}', but the allocation has {alloc_size} bytes{placed}",
                        var.name,
                        offset.saturating_add(size),
                        memref.base
                    ),
                    memref.span,
                ));
            }
        }
    }
}

/// The spacing the text uses between its first two functions: a blank line right above the
/// second decorator, or none (PyPTO's per-pass dumps). One function prints the same either way.
fn function_spacing(text: &str, functions: &[Function]) -> FunctionSpacing {
    let Some(second) = functions.get(1) else {
        return FunctionSpacing::default();
    };
    let before = &text[..second.span.start as usize];
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let previous_line = before[..line_start.saturating_sub(1)]
        .rsplit('\n')
        .next()
        .unwrap_or_default();
    if previous_line.trim().is_empty() {
        FunctionSpacing::BlankLine
    } else {
        FunctionSpacing::Adjacent
    }
}

/// The constructors of the types the planner models.
fn is_type_constructor(path: &str) -> bool {
    matches!(
        path,
        "pl.Tile" | "pl.Tensor" | "pl.Scalar" | "pl.Ptr" | "pl.MemRefType" | "pl.Tuple"
    )
}

/// Allocation bases defined anywhere in the body, with their constant size when known.
fn collect_allocs<'f>(
    stmts: &'f [Stmt],
    vars: &'f VarTable,
    out: &mut FxHashMap<&'f str, Option<i64>>,
) {
    for_each_stmt(stmts, &mut |stmt| {
        if let StmtKind::Assign { target, value } = &stmt.kind
            && value.is_alloc_call()
            && let Some(call) = value.as_call()
        {
            let size = call.args.get(1).and_then(Expr::as_const_int);
            out.insert(vars[*target].name.as_str(), size);
        }
    });
}

/// An integer literal, possibly negated (`5`, `-5`), as `pl.const` spells its value.
fn int_literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => match operand.kind {
            ExprKind::Int(v) => v.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}

fn space_of_path(path: &str) -> Option<MemSpace> {
    path.strip_prefix("pl.Mem.")
        .or_else(|| path.strip_prefix("pl.MemorySpace."))
        .and_then(MemSpace::from_name)
}

fn unknown_space(path: &str, span: Span) -> Diagnostic {
    let known = MemSpace::ALL.iter().map(|s| format!("pl.Mem.{}", s.name()));
    let message = format!("unknown memory space `{path}`");
    unknown_name(codes::UNKNOWN_MEMORY_SPACE, message, span, "spaces", known)
}

/// A name that is none of the `known` ones, which the hint lists.
fn unknown_name(
    code: &'static str,
    message: String,
    span: Span,
    kind: &str,
    known: impl Iterator<Item = String>,
) -> Diagnostic {
    let known = known.collect::<Vec<_>>().join(", ");
    Diagnostic::error(code, message, span).with_hint(format!("known {kind}: {known}"))
}

/// The value of a string literal token and its quote style.
fn unquote(literal: &str) -> (Name, Quote) {
    let quote = if literal.starts_with('\'') {
        Quote::Single
    } else {
        Quote::Double
    };
    let inner = &literal[1..literal.len().saturating_sub(1).max(1)];
    if !inner.contains('\\') {
        return (inner.into(), quote);
    }
    let mut value = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            value.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => value.push('\n'),
            Some('r') => value.push('\r'),
            Some('t') => value.push('\t'),
            Some('\\') => value.push('\\'),
            Some('\'') => value.push('\''),
            Some('"') => value.push('"'),
            // `\xHH`, which the printer writes for other control characters.
            Some('x') => match hex_escape(chars.as_str()) {
                Some(c) => {
                    value.push(c);
                    chars.nth(1);
                }
                None => value.push_str("\\x"),
            },
            Some(other) => {
                value.push('\\');
                value.push(other);
            }
            None => value.push('\\'),
        }
    }
    (value.into(), quote)
}

/// The character of the two hex digits that start `rest`, as in Python's `\xHH`.
fn hex_escape(rest: &str) -> Option<char> {
    let digits = rest.get(..2)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(digits, 16).ok().map(char::from)
}
