//! Parser and printer together: canonical text survives parse → print byte for byte, and a
//! printed model parses back to itself.

use std::path::Path;

use memreuse::ir::{
    FunctionSpacing, LoopKind, Program, StmtKind, Type, VarId, canonical_function_bytes,
    parse_program, print_program,
};

fn parse(text: &str, what: &str) -> Program {
    parse_program(text).unwrap_or_else(|e| panic!("{what} does not parse: {e:?}"))
}

#[test]
fn canonical_fixtures_print_back_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/roundtrip");
    let mut fixtures: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data/roundtrip exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    fixtures.sort();
    assert!(!fixtures.is_empty());
    for path in fixtures {
        let what = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let program = parse(&text, &what);
        let printed = print_program(&program);
        assert_eq!(printed, text, "{what} does not print back unchanged");
        assert_eq!(
            parse(&printed, &what),
            program,
            "{what}: parse(print(ir)) != ir"
        );
    }
}

/// Hand-written (ruff-formatted) text: wrapped lines, comments, redundant parentheses, the
/// `pl.MemorySpace` spelling, trailing commas and an un-annotated loop yield.
const HAND_WRITTEN: &str = r#"import pypto.language as pl

@pl.program
class Hand:
    @pl.function(type=pl.FunctionType.InCore,)
    def main(
        self,
        a: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)],  # input
    ) -> pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)]:
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.MemorySpace.Vec, 256)
        # load once
        t: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.MemorySpace.Vec] = (
            pl.tile.load(a, [0], [64], [64], target_memory=pl.MemorySpace.Vec)
        )
        for i, (acc,) in pl.range(0, 4, 1, init_values=(t,),):
            nxt: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.Mem.Vec] = pl.tile.add(
                acc,
                acc,
            )
            res = pl.yield_(nxt)
        k: pl.Scalar[pl.INDEX] = (1 << (6 + 2)) + ((3))
        out: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)] = pl.tile.store(res, [0], a)
        return out
"#;

#[test]
fn hand_written_text_prints_in_canonical_form() {
    let printed = print_program(&parse(HAND_WRITTEN, "hand-written text"));
    expect_test::expect![[r#"
        import pypto.language as pl

        @pl.program
        class Hand:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, a: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)]) -> pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)]:
                mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
                # load once
                t: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.Mem.Vec] = pl.tile.load(a, [0], [64], [64], target_memory=pl.Mem.Vec)
                for i, (acc,) in pl.range(0, 4, 1, init_values=(t,)):
                    nxt: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.Mem.Vec] = pl.tile.add(acc, acc)
                    res: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.Mem.Vec] = pl.yield_(nxt)
                k: pl.Scalar[pl.INDEX] = (1 << 6 + 2) + 3
                out: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)] = pl.tile.store(res, [0], a)
                return out
    "#]]
    .assert_eq(&printed);
    // Canonical text is a fixed point.
    assert_eq!(print_program(&parse(&printed, "printed text")), printed);
}

#[test]
fn canonical_bytes_ignore_position_comments_and_layout() {
    let original = parse(HAND_WRITTEN, "hand-written text");
    let shifted_text = HAND_WRITTEN
        .replace("@pl.program", "# moved down\n\n@pl.program")
        .replace("# load once", "\n        # load once\n")
        .replace("# input", "# the input");
    let shifted = parse(&shifted_text, "shifted text");
    let canonical = parse(&print_program(&original), "printed text");
    for other in [&shifted, &canonical] {
        assert_eq!(
            canonical_function_bytes(&original.functions[0]),
            canonical_function_bytes(&other.functions[0])
        );
    }

    // A statement's leading comment is printed (PyPTO's dumps carry them): it is part of the
    // program, and editing it is an edit of the function.
    let recommented = parse(
        &HAND_WRITTEN.replace("# load once", "# load once, twice commented"),
        "recommented",
    );
    assert_ne!(
        canonical_function_bytes(&original.functions[0]),
        canonical_function_bytes(&recommented.functions[0])
    );

    let edited = parse(
        &HAND_WRITTEN.replace("pl.range(0, 4", "pl.range(0, 8"),
        "edit",
    );
    assert_ne!(
        canonical_function_bytes(&original.functions[0]),
        canonical_function_bytes(&edited.functions[0])
    );
}

mod generated_expressions {
    use memreuse::ir::*;
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::parse;

    const PARAMS: [&str; 3] = ["a", "b", "c"];

    fn ex(kind: ExprKind) -> Expr {
        Expr::new(kind, Span::default())
    }

    /// Leaves as the parser builds them: parameters, and literals without a sign (a minus is a
    /// unary operator in the text).
    fn operator_tree() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (0..PARAMS.len() as u32).prop_map(|i| ex(ExprKind::Var(VarId(i)))),
            (0i64..100).prop_map(|v| ex(ExprKind::Int(v))),
            Just(ex(ExprKind::Float("1.5".into()))),
        ];
        leaf.prop_recursive(6, 48, 2, |inner| {
            prop_oneof![
                (select(BinOp::ALL), inner.clone(), inner.clone()).prop_map(|(op, lhs, rhs)| ex(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    }
                )),
                (
                    select(vec![UnaryOp::Neg, UnaryOp::Not, UnaryOp::Invert]),
                    inner
                )
                    .prop_map(|(op, operand)| ex(ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    })),
            ]
        })
    }

    /// `def f(self, a, b, c) -> INDEX: k = <value>; return k`, all scalars.
    fn program_computing(value: Expr) -> Program {
        let index = || Some(Type::Scalar(DType::Index));
        let mut vars = VarTable::default();
        let mut var = |name: &str, kind| {
            vars.push(Var {
                name: name.into(),
                kind,
                ty: index(),
                span: Span::default(),
            })
        };
        let params = PARAMS
            .map(|name| Param {
                var: var(name, VarKind::Param),
                direction: ParamDirection::In,
                span: Span::default(),
            })
            .to_vec();
        let k = var("k", VarKind::Local);
        let stmt = |kind| Stmt::new(kind, Span::default());
        let function = Function {
            name: "f".into(),
            decorator: vec![],
            func_attrs: None,
            has_self: true,
            params,
            ret: Some(ReturnType::Single(Type::Scalar(DType::Index))),
            body: vec![
                stmt(StmtKind::Assign { target: k, value }),
                stmt(StmtKind::Return {
                    values: vec![ex(ExprKind::Var(k))],
                }),
            ]
            .into(),
            vars,
            span: Span::default(),
        };
        Program {
            preamble: "import pypto.language as pl\n\n".into(),
            decorator: vec![],
            name: "Generated".into(),
            functions: vec![function],
            dynamic_dims: vec![],
            spacing: Default::default(),
            span: Span::default(),
        }
    }

    proptest! {
        #[test]
        fn printed_expressions_parse_back_to_the_same_model(value in operator_tree()) {
            let program = program_computing(value);
            let text = print_program(&program);
            prop_assert_eq!(parse(&text, &text), program);
        }
    }
}

/// What the real-dump fixture's forms mean in the model, beyond printing back: a MemRef inside
/// an opaque type is still a MemRef, a `pl.while_` loop has no loop variable, a return var keeps
/// the MemRef on its yield line, and the functions are printed back to back.
#[test]
fn real_dump_forms_keep_their_meaning() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/roundtrip/real_dump_forms.py");
    let text = std::fs::read_to_string(&path).expect("readable fixture");
    let program = parse(&text, "real_dump_forms.py");
    assert_eq!(program.spacing, FunctionSpacing::Adjacent);
    let var = |function: usize, name: &str| {
        let vars = &program.functions[function].vars;
        (0..vars.len() as u32)
            .map(VarId)
            .find(|&v| vars[v].name == name)
            .map(|v| &vars[v])
            .unwrap_or_else(|| panic!("no variable {name}"))
    };
    let base = |function: usize, name: &str| {
        var(function, name)
            .ty
            .as_ref()
            .and_then(Type::memref)
            .map(|m| m.base.to_string())
    };
    assert_eq!(base(1, "signal__ssa_v1").as_deref(), Some("mem_ddr_5"));
    assert_eq!(base(1, "box__ssa_v0").as_deref(), Some("mem_ddr_7"));
    assert_eq!(base(1, "resid__iter_v1").as_deref(), Some("mem_ddr_3"));
    assert_eq!(base(1, "resid__rv_v2").as_deref(), Some("mem_ddr_6"));
    assert!(matches!(
        var(1, "tids__ssa_v0").ty,
        Some(Type::Opaque(ref o)) if o.constructor == "pl.Array"
    ));
    assert!(matches!(var(1, "odd__ssa_v0").ty, Some(Type::Opaque(_))));
    let StmtKind::For(while_loop) = &program.functions[0].body[4].kind else {
        panic!("the fifth statement of loop_kernel is its while loop");
    };
    assert_eq!(
        (
            while_loop.kind,
            while_loop.loop_var,
            while_loop.iter_args.len()
        ),
        (LoopKind::While, None, 2)
    );
    assert_eq!(program.functions[0].body[4].comments.lines().len(), 1);
    assert!(!program.functions[2].has_self);
}
