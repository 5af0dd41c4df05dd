//! A finding's words with the tiles they name kept as variables. The checker says each tile
//! by its name; a reader that knows more of the plan's tiles (the repair, which inserted the
//! copies among them) says them its own way from the same words, never by editing a text.

use memreuse_ir::diagnostics::{Diagnostic, Severity};
use memreuse_ir::{Function, Span, VarId};

/// One text: words and the tiles they name, in reading order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text(Vec<Part>);

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Words(String),
    Tile(VarId),
}

/// A tile a text names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tile(pub VarId);

impl From<&str> for Part {
    fn from(words: &str) -> Part {
        Part::Words(words.to_string())
    }
}

impl From<String> for Part {
    fn from(words: String) -> Part {
        Part::Words(words)
    }
}

impl From<Tile> for Part {
    fn from(Tile(v): Tile) -> Part {
        Part::Tile(v)
    }
}

/// A [`Text`] of its parts: strings (words) and [`Tile`]s.
macro_rules! text {
    ($($part:expr),* $(,)?) => {
        $crate::text::Text::of(vec![$($crate::text::Part::from($part)),*])
    };
}
pub(crate) use text;

impl Text {
    pub(crate) fn of(parts: Vec<Part>) -> Text {
        Text(parts)
    }

    /// The text with `more` after it.
    pub(crate) fn then(mut self, more: impl Into<Text>) -> Text {
        self.0.extend(more.into().0);
        self
    }

    /// The text, each tile said by `say` in reading order.
    pub fn render(&self, say: &mut dyn FnMut(VarId) -> String) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Words(words) => out.push_str(words),
                Part::Tile(v) => out.push_str(&say(*v)),
            }
        }
        out
    }
}

impl From<&str> for Text {
    fn from(words: &str) -> Text {
        Text(vec![Part::from(words)])
    }
}

impl From<String> for Text {
    fn from(words: String) -> Text {
        Text(vec![Part::from(words)])
    }
}

/// A checker's finding as words: a [`Diagnostic`] whose texts keep their tiles.
pub type Worded = Diagnostic<Text>;

/// The checkers' findings begun and said (`ir` has the constructors of plain diagnostics).
pub(crate) trait Words {
    fn error(code: &'static str, message: impl Into<Text>, span: Span) -> Self;
    fn note(code: &'static str, message: impl Into<Text>, span: Span) -> Self;
    /// The diagnostic as the checker says it: each tile quoted by its name in `f`.
    fn by_name(&self, f: &Function) -> Diagnostic;
}

impl Words for Worded {
    fn error(code: &'static str, message: impl Into<Text>, span: Span) -> Worded {
        Worded::new(Severity::Error, code, message.into(), span)
    }

    fn note(code: &'static str, message: impl Into<Text>, span: Span) -> Worded {
        Worded::new(Severity::Note, code, message.into(), span)
    }

    fn by_name(&self, f: &Function) -> Diagnostic {
        let quote = |v: VarId| format!("'{}'", f.vars.get(v).map_or("?", |v| v.name.as_str()));
        self.said(|text| text.render(&mut |v| quote(v)))
    }
}
