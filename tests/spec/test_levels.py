"""Every row's level and category follow docs/levels.md's rules where they are mechanical: the default per
kind (and, for a rule row, per category), a note sentence "Level <level>: why" wherever a row leaves its
default (and no such sentence naming another level), the strict precision rows each with a
backward-stable sibling, one messages row per stage file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from contracts.spec import SpecRow
from contracts.spec_suite.spec_rows import all_rows

LEVELS = ("values", "refusals", "contract")  # lowest first: who must meet a row widens to the left
CATEGORIES = ("value", "gradient", "cost", "refusal", "side-effects", "order", "precision", "identity")
# a rule row's level by its category, unless its note says why not
RULE_DEFAULT = {
    "value": "values",
    "gradient": "values",
    "identity": "values",
    "refusal": "refusals",
    "side-effects": "refusals",
    "cost": "contract",
    "order": "contract",
    "precision": "contract",
}
FORMULA_DEFAULT = {"params": ("values", "cost"), "cost": ("contract", "cost"), "init": ("values", "value")}
STABLE = "-stable"  # a strict precision row X has its backward-stable sibling X-stable
STABLE_K = 16  # the largest K a backward-stable sibling may ask
TOLERANCE_ROW = "T.rule.tolerance"


def is_budget(spec_row: Mapping[str, Any]) -> bool:
    return "budget" in str(spec_row["id"]).split(".")[-1]


def explains(spec_row: Mapping[str, Any], level: str) -> bool:
    """The row's note says why it sits at level: a sentence 'Level <level>: ...'."""
    return f"Level {level}: " in spec_row.get("note", "")


def default_of(spec_row: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> tuple[str, set[str]]:
    """(the level the row's kind and category give it, the categories its kind allows)."""
    kind, category = spec_row["kind"], spec_row["category"]
    if kind == "precedence":
        return "contract", {"order"}
    if kind == "gradient":
        return "values", {"gradient"}
    if kind == "formula":
        level, expected = FORMULA_DEFAULT[str(spec_row["id"]).split(".")[1]]
        return level, {expected}
    if kind == "failure":
        return ("contract", {"cost"}) if is_budget(spec_row) else ("refusals", {"refusal"})
    if kind == "contract":
        enforcers = [by_id[target] for target in spec_row["enforced_by"]]
        lowest = min((enforcer["level"] for enforcer in enforcers), key=LEVELS.index)
        every_cost = all(enforcer["category"] == "cost" for enforcer in enforcers)
        return lowest, {"cost" if every_cost else "refusal"}
    return RULE_DEFAULT[category], set(CATEGORIES)


def row_problems(spec_row: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Why the row's level or category breaks the rules (empty: it follows them)."""
    level, category = spec_row["level"], spec_row["category"]
    default, categories = default_of(spec_row, by_id)
    problems = []
    if category not in categories:
        problems.append(f"category {category!r}, its kind's rule gives {sorted(categories)}")
    fixed = spec_row["kind"] in ("precedence", "gradient", "formula") or is_budget(spec_row)
    if level != default and (fixed or not explains(spec_row, level)):
        reason = "its kind allows no other" if fixed else f"its note does not say 'Level {level}: ...'"
        problems.append(f"level {level!r}, the rule gives {default!r} ({reason})")
    stated = [other for other in LEVELS if explains(spec_row, other)]
    if stated and stated != [level]:
        problems.append(f"level {level!r}, its note says why it is at {stated}")
    if "k" in spec_row and category != "precision":
        problems.append(f"an error bound in units of epsilon (k) of category {category!r}, not 'precision'")
    return problems


def precision_problems(by_id: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every strict error bound (a contract row with k) has its backward-stable sibling at level values, a
    float64-only row like it; every sibling has its strict row."""
    problems = []
    float64_only = by_id[TOLERANCE_ROW]["float64_only"] if TOLERANCE_ROW in by_id else {}
    for row_id, spec_row in by_id.items():
        if "k" in spec_row and spec_row["level"] == "contract":
            sibling = by_id.get(row_id + STABLE)
            if sibling is None:
                problems.append(f"{row_id}: a strict error bound without a backward-stable {row_id + STABLE}")
            elif (sibling["level"], sibling["category"]) != ("values", "precision") or not (
                0 < sibling.get("k", 0) <= STABLE_K
            ):
                problems.append(
                    f"{row_id + STABLE}: not a values-level precision row with 0 < k <= {STABLE_K}"
                )
            elif (row_id in float64_only) != (row_id + STABLE in float64_only):
                problems.append(f"{row_id + STABLE}: float64-only unlike {row_id} ({TOLERANCE_ROW})")
        if row_id.endswith(STABLE):
            strict = by_id.get(row_id.removesuffix(STABLE))
            if strict is None or "k" not in strict or strict["level"] != "contract":
                problems.append(
                    f"{row_id}: no strict contract-level error bound {row_id.removesuffix(STABLE)}"
                )
    return problems


def messages_problems(spec_rows: Iterable[SpecRow]) -> list[str]:
    """Each stage file has exactly one <stage>.rule.messages row: a contract-level refusal rule we decided."""
    problems = []
    files: dict[str, list[SpecRow]] = {}
    for spec_row in spec_rows:
        files.setdefault(spec_row.file, []).append(spec_row)
    for name, in_file in sorted(files.items()):
        stage = in_file[0].id.split(".")[0]
        found = [r for r in in_file if r.id == f"{stage}.rule.messages"]
        if len(found) != 1:
            problems.append(f"{name}: {len(found)} rows {stage}.rule.messages, not one")
        for spec_row in found:
            shape = (spec_row.kind, spec_row.level, spec_row.category, spec_row["origin"])
            if shape != ("rule", "contract", "refusal", "decision"):
                problems.append(f"{spec_row.id}: {shape}, not a contract-level refusal rule we decided")
    return problems


def level_problems(spec_rows: Iterable[SpecRow]) -> list[str]:
    """Every breach of the level rules, one line each (row id first)."""
    listed = list(spec_rows)
    by_id = {spec_row.id: spec_row for spec_row in listed}
    lines = [f"{r.id}: {problem}" for r in listed for problem in row_problems(r, by_id)]
    return lines + precision_problems(by_id) + messages_problems(listed)


def test_every_row_follows_the_level_rules() -> None:
    """Precedence rows are contract/order, gradient rows values/gradient, `.cost.` formulas contract/cost,
    `.params.` values/cost, failure rows refusals/refusal (budget rows contract/cost), a contract row at its
    lowest enforcer's level, a rule at its category's level; every exception says why in its note."""
    assert [] == level_problems(all_rows())


def test_every_level_and_category_occurs() -> None:
    """The three levels each hold rows, and every category but side-effects does (no row claims only that
    nothing changed after a refusal: that is each failure row's probes)."""
    used = {(r.level, r.category) for r in all_rows()}
    assert (set(LEVELS), set(CATEGORIES) - {"side-effects"}) == (
        {level for level, _ in used},
        {category for _, category in used},
    )


def changed(spec_row: SpecRow, **fields: Any) -> SpecRow:
    return SpecRow({**spec_row, **fields}, spec_row.stage, spec_row.file, spec_row.functions)


def with_row(row_id: str, **fields: Any) -> list[SpecRow]:
    """Every row, the one named changed."""
    return [changed(r, **fields) if r.id == row_id else r for r in all_rows()]


def without(row_id: str) -> list[SpecRow]:
    return [r for r in all_rows() if r.id != row_id]


@pytest.mark.parametrize(
    ("spec_rows", "expected"),
    [
        pytest.param(
            with_row("S05.order.matmul", level="values"),
            ["S05.order.matmul: level 'values', the rule gives 'contract' (its kind allows no other)"],
            id="precedence-at-values",
        ),
        pytest.param(
            with_row("T.grad.exp", level="contract"),
            ["T.grad.exp: level 'contract', the rule gives 'values' (its kind allows no other)"],
            id="gradient-at-contract",
        ),
        pytest.param(
            with_row("S07.cost.mlp", level="values"),
            ["S07.cost.mlp: level 'values', the rule gives 'contract' (its kind allows no other)"],
            id="graph-count-at-values",
        ),
        pytest.param(
            with_row("S07.fail.graph-budget", level="refusals", category="refusal"),
            [
                "S07.fail.graph-budget: category 'refusal', its kind's rule gives ['cost']",
                "S07.fail.graph-budget: level 'refusals', the rule gives 'contract' "
                "(its kind allows no other)",
            ],
            id="budget-at-refusals",
        ),
        pytest.param(
            with_row("S05.fail.ragged-row", level="contract"),
            [
                "S05.fail.ragged-row: level 'contract', the rule gives 'refusals' "
                "(its note does not say 'Level contract: ...')"
            ],
            id="failure-at-contract-unexplained",
        ),
        pytest.param(
            with_row("S06.rule.max-tie", level="contract"),
            [
                "S06.rule.max-tie: level 'contract', the rule gives 'values' "
                "(its note does not say 'Level contract: ...')"
            ],
            id="tie-rule-at-contract",
        ),
        pytest.param(
            with_row("S07.rule.frozen", level="values"),
            ["S07.rule.frozen: level 'values', its note says why it is at ['contract']"],
            id="frozen-at-values-against-its-note",
        ),
        pytest.param(
            with_row("S06.rule.grad-error-stable", level="contract"),
            [
                "S06.rule.grad-error-stable: level 'contract', its note says why it is at ['values']",
                "S06.rule.grad-error-stable: not a values-level precision row with 0 < k <= 16",
                "S06.rule.grad-error-stable: a strict error bound without a backward-stable "
                "S06.rule.grad-error-stable-stable",
            ],
            id="stable-sibling-at-contract",
        ),
        pytest.param(
            without("S08.rule.stability-stable"),
            [
                "S08.rule.stability: a strict error bound without a backward-stable "
                "S08.rule.stability-stable",
            ],
            id="strict-bound-without-sibling",
        ),
        pytest.param(
            with_row("S08.rule.eps-regime", category="value"),
            [
                "S08.rule.eps-regime: an error bound in units of epsilon (k) of category 'value', "
                "not 'precision'"
            ],
            id="bound-not-precision",
        ),
        pytest.param(
            without("T.rule.messages"),
            ["tensor_ops.toml: 0 rows T.rule.messages, not one"],
            id="stage-without-messages",
        ),
    ],
)
def test_a_row_at_the_wrong_level_is_reported(spec_rows: list[SpecRow], expected: list[str]) -> None:
    """Each rule breached by one edited row is reported, naming the row, and nothing else is."""
    assert expected == level_problems(spec_rows)
