//! Properties of the printer's operator layout, checked without the IR parser: a small
//! Python-precedence reader in this file reads printed expressions back, so the tests pin that
//! the text means the tree (no missing parentheses) and that every parenthesis is needed (but
//! the one pair upstream's printer adds around a unary exponent).

use memreuse::ir::{
    BinOp, Expr, ExprKind, Function, Span, Stmt, StmtKind, UnaryOp, VarTable, print_function,
};
use proptest::prelude::*;
use proptest::sample::select;

fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        select(vec!["a", "b", "c"]).prop_map(|name| ex(ExprKind::Symbol(name.into()))),
        (-20i64..20).prop_map(|value| ex(ExprKind::Int(value))),
        select(vec!["1.5", "-2.0"]).prop_map(|text| ex(ExprKind::Float(text.into()))),
    ]
}

fn operator_tree() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(6, 48, 2, |inner| {
        prop_oneof![
            (select(BinOp::ALL), inner.clone(), inner.clone()).prop_map(|(op, lhs, rhs)| {
                ex(ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                })
            }),
            (
                select(vec![UnaryOp::Neg, UnaryOp::Not, UnaryOp::Invert]),
                inner
            )
                .prop_map(|(op, operand)| ex(ExprKind::Unary {
                    op,
                    operand: Box::new(operand)
                })),
        ]
    })
}

/// Prints `expr` through the public API, as the only statement of a function.
fn print_expr(expr: &Expr) -> String {
    let function = Function {
        name: "f".into(),
        decorator: vec![],
        func_attrs: None,
        has_self: true,
        params: vec![],
        ret: None,
        body: vec![Stmt::new(StmtKind::Eval(expr.clone()), Span::default())].into(),
        vars: VarTable::default(),
        span: Span::default(),
    };
    let mut out = String::new();
    print_function(&function, &mut out, 0);
    let line = out.lines().nth(2).unwrap_or_default();
    line.trim_start().to_owned()
}

/// What an expression means, independent of how a literal's sign is stored.
#[derive(Debug, PartialEq)]
enum Tree {
    Leaf(String),
    Binary(BinOp, Box<Tree>, Box<Tree>),
    Unary(UnaryOp, Box<Tree>),
    /// `a < b < c`: a Python comparison chain, which no model tree denotes.
    Chain,
}

fn tree_of(expr: &Expr) -> Tree {
    let negated = |text: String| Tree::Unary(UnaryOp::Neg, Box::new(Tree::Leaf(text)));
    match &expr.kind {
        ExprKind::Symbol(name) => Tree::Leaf(name.to_string()),
        ExprKind::Int(value) if *value < 0 => negated(value.unsigned_abs().to_string()),
        ExprKind::Int(value) => Tree::Leaf(value.to_string()),
        ExprKind::Float(text) => match text.strip_prefix('-') {
            Some(magnitude) => negated(magnitude.to_owned()),
            None => Tree::Leaf(text.to_string()),
        },
        ExprKind::Binary { op, lhs, rhs } => {
            Tree::Binary(*op, Box::new(tree_of(lhs)), Box::new(tree_of(rhs)))
        }
        ExprKind::Unary { op, operand } => Tree::Unary(*op, Box::new(tree_of(operand))),
        other => panic!("not generated: {other:?}"),
    }
}

/// Reads Python expression text built from the generated vocabulary, by Python's grammar.
struct Reader {
    tokens: Vec<String>,
    pos: usize,
}

impl Reader {
    fn read(text: &str) -> Option<Tree> {
        let mut reader = Reader {
            tokens: tokenize(text)?,
            pos: 0,
        };
        let tree = reader.or_test()?;
        (reader.pos == reader.tokens.len()).then_some(tree)
    }

    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.peek() == Some(token);
        self.pos += usize::from(found);
        found
    }

    /// One left-associative level: `next (op next)*`.
    fn left_assoc(
        &mut self,
        ops: &[(&str, BinOp)],
        next: fn(&mut Reader) -> Option<Tree>,
    ) -> Option<Tree> {
        let mut lhs = next(self)?;
        'outer: loop {
            for (token, op) in ops {
                if self.eat(token) {
                    lhs = Tree::Binary(*op, Box::new(lhs), Box::new(next(self)?));
                    continue 'outer;
                }
            }
            return Some(lhs);
        }
    }

    fn or_test(&mut self) -> Option<Tree> {
        self.left_assoc(&[("or", BinOp::Or)], Reader::and_test)
    }
    fn and_test(&mut self) -> Option<Tree> {
        self.left_assoc(&[("and", BinOp::And)], Reader::not_test)
    }
    fn not_test(&mut self) -> Option<Tree> {
        if self.eat("not") {
            return Some(Tree::Unary(UnaryOp::Not, Box::new(self.not_test()?)));
        }
        self.comparison()
    }
    fn comparison(&mut self) -> Option<Tree> {
        const OPS: [(&str, BinOp); 6] = [
            ("==", BinOp::Eq),
            ("!=", BinOp::Ne),
            ("<", BinOp::Lt),
            ("<=", BinOp::Le),
            (">", BinOp::Gt),
            (">=", BinOp::Ge),
        ];
        let lhs = self.bit_or()?;
        let Some(&(_, op)) = OPS.iter().find(|(t, _)| self.peek() == Some(*t)) else {
            return Some(lhs);
        };
        self.pos += 1;
        let rhs = self.bit_or()?;
        if OPS.iter().any(|(t, _)| self.peek() == Some(*t)) {
            // Consume the rest of the chain so the caller sees a complete expression.
            while OPS.iter().any(|(t, _)| self.eat(t)) {
                self.bit_or()?;
            }
            return Some(Tree::Chain);
        }
        Some(Tree::Binary(op, Box::new(lhs), Box::new(rhs)))
    }
    fn bit_or(&mut self) -> Option<Tree> {
        self.left_assoc(&[("|", BinOp::BitOr)], Reader::bit_xor)
    }
    fn bit_xor(&mut self) -> Option<Tree> {
        self.left_assoc(&[("^", BinOp::BitXor)], Reader::bit_and)
    }
    fn bit_and(&mut self) -> Option<Tree> {
        self.left_assoc(&[("&", BinOp::BitAnd)], Reader::shift)
    }
    fn shift(&mut self) -> Option<Tree> {
        self.left_assoc(&[("<<", BinOp::Shl), (">>", BinOp::Shr)], Reader::arith)
    }
    fn arith(&mut self) -> Option<Tree> {
        self.left_assoc(&[("+", BinOp::Add), ("-", BinOp::Sub)], Reader::term)
    }
    fn term(&mut self) -> Option<Tree> {
        self.left_assoc(
            &[
                ("*", BinOp::Mul),
                ("/", BinOp::Div),
                ("//", BinOp::FloorDiv),
                ("%", BinOp::Mod),
            ],
            Reader::factor,
        )
    }
    fn factor(&mut self) -> Option<Tree> {
        for (token, op) in [("-", UnaryOp::Neg), ("~", UnaryOp::Invert)] {
            if self.eat(token) {
                return Some(Tree::Unary(op, Box::new(self.factor()?)));
            }
        }
        self.power()
    }
    fn power(&mut self) -> Option<Tree> {
        let base = self.atom()?;
        if self.eat("**") {
            return Some(Tree::Binary(
                BinOp::Pow,
                Box::new(base),
                Box::new(self.factor()?),
            ));
        }
        Some(base)
    }
    fn atom(&mut self) -> Option<Tree> {
        if self.eat("(") {
            let inner = self.or_test()?;
            return self.eat(")").then_some(inner);
        }
        let token = self.peek()?;
        let is_leaf = token.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
            && !matches!(token, "not" | "and" | "or");
        let leaf = is_leaf.then(|| Tree::Leaf(token.to_owned()))?;
        self.pos += 1;
        Some(leaf)
    }
}

fn tokenize(text: &str) -> Option<Vec<String>> {
    const SYMBOLS: [&str; 19] = [
        "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "&", "|", "^",
        "~", "<", ">",
    ];
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == ' ' {
            rest = &rest[1..];
        } else if c == '(' || c == ')' {
            tokens.push(c.to_string());
            rest = &rest[1..];
        } else if c.is_ascii_alphanumeric() {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                .unwrap_or(rest.len());
            tokens.push(rest[..end].to_owned());
            rest = &rest[end..];
        } else {
            let symbol = SYMBOLS.iter().find(|s| rest.starts_with(**s))?;
            tokens.push((*symbol).to_owned());
            rest = &rest[symbol.len()..];
        }
    }
    Some(tokens)
}

/// Byte positions of each `(` and its matching `)`.
fn paren_pairs(text: &str) -> Vec<(usize, usize)> {
    let mut open = Vec::new();
    let mut pairs = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '(' => open.push(i),
            ')' => pairs.extend(open.pop().map(|start| (start, i))),
            _ => {}
        }
    }
    pairs
}

proptest! {
    #[test]
    fn printing_is_deterministic_and_balanced(expr in operator_tree()) {
        let text = print_expr(&expr);
        prop_assert_eq!(&text, &print_expr(&expr));
        prop_assert_eq!(text.matches('(').count(), text.matches(')').count());
    }

    #[test]
    fn printed_text_reads_back_as_the_same_tree(expr in operator_tree()) {
        let text = print_expr(&expr);
        prop_assert_eq!(Reader::read(&text), Some(tree_of(&expr)), "printed {}", text);
    }

    #[test]
    fn every_parenthesis_is_needed(expr in operator_tree()) {
        let text = print_expr(&expr);
        let tree = tree_of(&expr);
        for (open, close) in paren_pairs(&text) {
            // Upstream parenthesises a unary exponent, `2 ** (-x)`, though Python needs no pair.
            let unary_exponent = text[..open].ends_with("** ")
                && text[open + 1..].starts_with(['-', '~']);
            if unary_exponent {
                continue;
            }
            let without = format!("{}{}{}", &text[..open], &text[open + 1..close], &text[close + 1..]);
            let reread = Reader::read(&without);
            prop_assert_ne!(reread.as_ref(), Some(&tree), "redundant in {}", text);
        }
    }
}

#[test]
fn reader_follows_python_precedence() {
    let read = |text: &str| Reader::read(text).map(|tree| format!("{tree:?}"));
    let leaf = |name: &str| Tree::Leaf(name.into());
    assert_eq!(
        Reader::read("-a ** 2"),
        Some(Tree::Unary(
            UnaryOp::Neg,
            Box::new(Tree::Binary(
                BinOp::Pow,
                Box::new(leaf("a")),
                Box::new(leaf("2"))
            ))
        ))
    );
    assert_eq!(Reader::read("a < b < c"), Some(Tree::Chain));
    assert_eq!(read("not a == b"), read("not (a == b)"));
    assert_eq!(read("a - b - c"), read("(a - b) - c"));
    assert_eq!(read("a ** b ** c"), read("a ** (b ** c)"));
    assert_eq!(Reader::read("a == not b"), None);
}
