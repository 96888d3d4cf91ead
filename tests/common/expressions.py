"""Expression texts for the spec evaluator's differential test against Python (hypothesis strategies)."""

from __future__ import annotations

from hypothesis import strategies as st

_CMP_OPS = ["<", "<=", ">", ">=", "==", "!="]


_ARITH_OPS = ["+", "-", "*", "/", "//", "%"]


_EXPONENTS = st.sampled_from(["0", "1", "2", "3", "-1", "-2", "64", "-64", "0.5", "2.0", "-1.5", "(2)", "+3"])


_BAD_EXPONENTS = st.sampled_from(["65", "-65", "x", "(1 + 1)", "--2"])


_CALLS = {"exp": 1, "log": 1, "step": 1, "ge": 2, "lt": 2, "max": 2}


expression_numbers = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 0.0, 1, -1]),
)


Drawn = tuple[str, bool]


def _leaf() -> st.SearchStrategy[Drawn]:
    literal = st.one_of(
        st.integers(0, 10**6).map(str),
        st.floats(0, 1e6, allow_nan=False, allow_infinity=False).map(repr),
        st.sampled_from(["0", "1", "2", "0.0", "x", "y"]),
    )
    return literal.map(lambda text: (text, True))


def _wrap(draw: st.DrawFn, part: Drawn) -> str:
    """Parenthesized or bare: both parse with Python's precedence on both sides of the test."""
    return f"({part[0]})" if draw(st.booleans()) else part[0]


def _extend(children: st.SearchStrategy[Drawn]) -> st.SearchStrategy[Drawn]:
    @st.composite
    def combine(draw: st.DrawFn) -> Drawn:
        kind = draw(
            st.sampled_from(
                [
                    "binary",
                    "binary",
                    "power",
                    "unary",
                    "chain",
                    "chain",
                    "call",
                    "bad-power",
                    "boolean",
                    "not",
                    "conditional",
                    "unlisted-call",
                ]
            )
        )
        a, b, c = draw(children), draw(children), draw(children)
        if kind == "binary":
            return f"{_wrap(draw, a)} {draw(st.sampled_from(_ARITH_OPS))} {_wrap(draw, b)}", a[1] and b[1]
        if kind == "power":
            return f"({a[0]}) ** {draw(_EXPONENTS)}", a[1]
        if kind == "bad-power":
            return f"({a[0]}) ** {draw(_BAD_EXPONENTS)}", False
        if kind == "unary":
            return f"{draw(st.sampled_from(['-', '+']))}({a[0]})", a[1]
        if kind == "chain":
            operands = [a, b, c][: draw(st.integers(2, 3))]
            text = _wrap(draw, operands[0])
            for operand in operands[1:]:
                text += f" {draw(st.sampled_from(_CMP_OPS))} {_wrap(draw, operand)}"
            return text, all(operand[1] for operand in operands)
        if kind == "call":
            name = draw(st.sampled_from(sorted(_CALLS)))
            arity = _CALLS[name] if draw(st.integers(0, 9)) else _CALLS[name] + 1  # sometimes a TypeError
            return f"{name}({', '.join(part[0] for part in [a, b, c][:arity])})", all(
                part[1] for part in [a, b, c][:arity]
            )
        if kind == "boolean":
            return f"({a[0]}) {draw(st.sampled_from(['and', 'or']))} ({b[0]})", False
        if kind == "not":
            return f"not ({a[0]})", False
        if kind == "conditional":
            return f"({a[0]}) if ({b[0]}) else ({c[0]})", False
        return f"abs({a[0]})", False  # unlisted-call: a real Python function, refused by the grammar

    return combine()


spec_expressions: st.SearchStrategy[Drawn] = st.recursive(_leaf(), _extend, max_leaves=10)


@st.composite
def comparison_chains(draw: st.DrawFn) -> Drawn:
    """A flat chain `a op b op c ...` of 2-5 small operands, some of which raise when evaluated."""
    operands = st.sampled_from(["x", "y", "0", "1", "-1", "2.5", "1 / 0", "log(x)", "x - y", "step(y)"])
    count = draw(st.integers(2, 5))
    text = draw(operands)
    for _ in range(count - 1):
        text += f" {draw(st.sampled_from(_CMP_OPS))} {draw(operands)}"
    return text, True
