"""Spec mutants: for one row, every mutant of its machine-readable fields.

A mutant is keyed by its row id and its change: the path of the one value it changes and that value
before and after (`examples.0.value: 3 -> 4`, `expr: "a * b" -> "a + b"`; a change to several items
of a list, or to its length, shows the whole list). The key names what the mutant states, not where
it comes in the generator's order, so an edit elsewhere in the row or the file keeps it. Within one
run a mutant also has a positional id (`row id:field:operator:index`) that the runner's plan uses.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tools.spec_mutation import expressions

NEVER_MATCHES = r"\A(?!)"  # a pattern no message matches: the implementation's message included
# Example fields that are inputs, not claims: what the example feeds in, and the names that select
# what it exercises (an op, a type and attribute, a case, a layer or parameter, a namespace, a
# comparison). Any other field is a claim and is mutated.
EXAMPLE_INPUTS = frozenset(
    {"where", "inputs", "params", "upstream"}
    | {"op", "type", "attribute", "case", "namespace", "layer", "role", "name", "replaced"}
    | {"naive_form", "comparison"}
)

# A rule row's fields that are prose or structure, not parameters; every other field's numbers are
# the rule's parameters. 1024 = 2^10: far outside any margin a bound or tolerance is chosen with.
RULE_PROSE = frozenset({"id", "kind", "title", "origin", "seed", "note", "statement", "examples"})
PARAMETER_SCALE = 1024


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One changed field of one row: the row as the mutant spec states it."""

    row_id: str
    field: str
    operator: str
    index: int
    change: str  # what the mutant changes: `path: old -> new` (see the module's docstring)
    row: dict[str, Any] = dataclasses.field(repr=False, compare=False)

    def mutant_id(self) -> str:
        return f"{self.row_id}:{self.field}:{self.operator}:{self.index}"


def same(first: Any, second: Any) -> bool:
    """Equal as the spec file states them (nan equals nan)."""
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def difference(old: Any, new: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], Any, Any]:
    """The path to the one value that differs (into tables with the same keys and lists of the same
    length while exactly one item differs), and that value on each side."""
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        differing = [key for key in old if not same(old[key], new[key])]
        if len(differing) == 1:
            return difference(old[differing[0]], new[differing[0]], (*path, str(differing[0])))
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        differing_items = [index for index, item in enumerate(old) if not same(item, new[index])]
        if len(differing_items) == 1:
            return difference(
                old[differing_items[0]], new[differing_items[0]], (*path, str(differing_items[0]))
            )
    return path, old, new


def change_of(row: Mapping[str, Any], mutated: Mapping[str, Any]) -> str:
    """`path: old -> new`, the values as JSON (strings quoted)."""
    path, old, new = difference(dict(row), dict(mutated))

    def shown(item: Any) -> str:
        return json.dumps(item, ensure_ascii=False, sort_keys=True)

    return f"{'.'.join(path)}: {shown(old)} -> {shown(new)}"


Change = tuple[str, str, str, Callable[[dict[str, Any]], None]]  # field, operator, description, edit


def changed(row: Mapping[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    mutated = copy.deepcopy(dict(row))
    edit(mutated)
    return mutated


def setter(path: Sequence[str | int], new: Any) -> Callable[[dict[str, Any]], None]:
    """An edit that sets the value at path (keys and list indexes) to new."""

    def edit(document: dict[str, Any]) -> None:
        target: Any = document
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = new

    return edit


def shifted(item: Any, delta: int) -> Any:
    """Every number in item moved by delta (booleans flipped), keeping ints int."""
    if isinstance(item, bool):
        return not item
    if isinstance(item, int | float):
        return item + delta
    if isinstance(item, list):
        return [shifted(entry, delta) for entry in item]
    if isinstance(item, dict):
        return {k: shifted(v, delta) for k, v in item.items()}
    return item


def has_number(item: Any) -> bool:
    if isinstance(item, int | float):
        return True
    if isinstance(item, list):
        return any(has_number(entry) for entry in item)
    if isinstance(item, dict):
        return any(has_number(entry) for entry in item.values())
    return False


def shifts(path: list[str | int], item: Any, name: str) -> Iterator[Change]:
    """The value at path plus one and minus one (a boolean: negated once)."""
    if isinstance(item, bool):
        yield name, "flip", f"{item} -> {not item}", setter(path, not item)
        return
    for delta in (1, -1):
        yield (
            name,
            "plus" if delta > 0 else "minus",
            f"every number {delta:+d}",
            setter(path, shifted(item, delta)),
        )


def string_values(examples: Sequence[Mapping[str, Any]], key: str) -> list[str]:
    """The distinct strings key takes across the examples, in order of appearance."""
    found: list[str] = []
    for example in examples:
        item = example.get(key)
        if isinstance(item, str) and item not in found:
            found.append(item)
    return found


def example_changes(row: Mapping[str, Any], claims: Callable[[str], bool]) -> Iterator[Change]:
    """±1 on each example field that states a result (claims(key)), each grad separately; a string
    claim replaced by each other value its key takes in the row (the row's own vocabulary, so the
    mutant states another outcome the tests know, e.g. refused "none" -> "forward")."""
    examples: list[dict[str, Any]] = row.get("examples", [])
    for position, example in enumerate(examples):
        for key, item in example.items():
            path: list[str | int] = ["examples", position, key]
            if key == "grads" and isinstance(item, dict):
                for name, grad in item.items():
                    yield from shifts([*path, name], grad, f"examples.{position}.grads.{name}")
            elif claims(key) and has_number(item):
                yield from shifts(path, item, f"examples.{position}.{key}")
            elif claims(key) and isinstance(item, str):
                for other in string_values(examples, key):
                    if other != item:
                        name = f"examples.{position}.{key}"
                        yield name, "other-value", f"{item!r} -> {other!r}", setter(path, other)


def expression_changes(
    path: list[str | int], text: str, symbols: frozenset[str], name: str
) -> Iterator[Change]:
    for description, new in expressions.operator_swaps(text):
        yield name, "operator", description, setter(path, new)
    for description, new in expressions.constant_shifts(text):
        yield name, "constant", description, setter(path, new)
    for description, new in expressions.symbol_swaps(text, symbols):
        yield name, "symbols", description, setter(path, new)


def formula_changes(row: Mapping[str, Any], _: Mapping[str, Any]) -> Iterator[Change]:
    yield from expression_changes(["expr"], row["expr"], frozenset(row["symbols"]), "expr")
    yield from example_changes(row, lambda key: key == "value")


def gradient_changes(row: Mapping[str, Any], _: Mapping[str, Any]) -> Iterator[Change]:
    grads: dict[str, str] = row["grads"]
    yield "forward", "sign", "forward negated", setter(["forward"], expressions.negated(row["forward"]))
    for name, text in grads.items():
        where = f"grads.{name}"
        for other, other_text in grads.items():
            if other != name:
                yield (
                    where,
                    "other-grad",
                    f"grads.{name} := grads.{other}",
                    setter(["grads", name], other_text),
                )
        yield where, "sign", f"grads.{name} negated", setter(["grads", name], expressions.negated(text))
        for description, new in expressions.factor_drops(text):
            yield where, "factor", description, setter(["grads", name], new)
    yield from example_changes(row, lambda key: key == "value")


def failure_changes(row: Mapping[str, Any], context: Mapping[str, Any]) -> Iterator[Change]:
    for sibling in context["exceptions"]:
        if sibling != row["exception"]:
            yield "exception", "sibling", f"{row['exception']} -> {sibling}", setter(["exception"], sibling)
    yield "message", "unmatched", "a pattern no message matches", setter(["message"], NEVER_MATCHES)
    for probe in context["probes"]:
        if probe not in row["probes"]:
            yield "probes", "extend", f"+ {probe}", setter(["probes"], [*row["probes"], probe])
    for position, example in enumerate(row.get("examples", ())):
        if isinstance(example.get("message"), str):
            altered = example["message"] + " (mutant)"
            yield (
                f"examples.{position}.message",
                "altered",
                "message + ' (mutant)'",
                setter(["examples", position, "message"], altered),
            )


def contract_changes(row: Mapping[str, Any], context: Mapping[str, Any]) -> Iterator[Change]:
    """Each enforcing failure replaced by the file's first failure row the contract does not name."""
    enforced: list[str] = row["enforced_by"]
    others = [other for other in context["failures"] if other not in enforced]
    for position, target in enumerate(enforced):
        if others:
            yield (
                f"enforced_by.{position}",
                "other-failure",
                f"{target} -> {others[0]}",
                setter(["enforced_by", position], others[0]),
            )


def numbers(item: Any, path: list[str | int]) -> Iterator[tuple[list[str | int], float]]:
    """Every number (not a boolean) in item, with its path, in document order."""
    if isinstance(item, bool):
        return
    if isinstance(item, int | float):
        yield path, item
    elif isinstance(item, dict):
        for key, entry in item.items():
            yield from numbers(entry, [*path, key])
    elif isinstance(item, list):
        for position, entry in enumerate(item):
            yield from numbers(entry, [*path, position])


def parameter_changes(row: Mapping[str, Any]) -> Iterator[Change]:
    """Each number among a rule's own parameters (a bound's k, a tolerance, an epsilon factor) scaled
    by 1024 and by 1/1024: a looser bound must let a test's known-bad engine through, a tighter one
    must fail the reference, so a test that never reads the number cannot kill either."""
    for key, item in row.items():
        if key in RULE_PROSE:
            continue
        for path, number in numbers(item, [key]):
            name = ".".join(str(step) for step in path)
            for operator, factor in (("loosen", PARAMETER_SCALE), ("tighten", 1 / PARAMETER_SCALE)):
                yield name, operator, f"{number!r} * {factor!r}", setter(path, number * factor)


def rule_changes(row: Mapping[str, Any], _: Mapping[str, Any]) -> Iterator[Change]:
    """A rule's machine-readable parameters: its own numbers scaled, and every claim of its examples
    ±1 or flipped."""
    yield from parameter_changes(row)
    yield from example_changes(row, lambda key: key not in EXAMPLE_INPUTS)


def precedence_changes(row: Mapping[str, Any], _: Mapping[str, Any]) -> Iterator[Change]:
    """Two neighbouring checks of the order swapped (unless the row declares that pair unordered: the
    swap states the same claim); each example's winner replaced by its other fault."""
    order: list[str] = row["order"]
    unordered = {frozenset(pair) for pair in row.get("unordered", [])}
    for position in range(len(order) - 1):
        first, second = order[position], order[position + 1]
        if {first, second} in unordered:
            continue
        swapped = [*order[:position], second, first, *order[position + 2 :]]
        yield (f"order.{position}", "swap", f"{first} <-> {second}", setter(["order"], swapped))
    for index, example in enumerate(row["examples"]):
        losers = [fault for fault in example["faults"] if fault != example["raises"]]
        if losers:
            path: list[str | int] = ["examples", index, "raises"]
            yield (f"examples.{index}.raises", "other-fault", f"-> {losers[0]}", setter(path, losers[0]))


CHANGES: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Iterator[Change]]] = {
    "formula": formula_changes,
    "gradient": gradient_changes,
    "failure": failure_changes,
    "contract": contract_changes,
    "rule": rule_changes,
    "precedence": precedence_changes,
}


def row_mutants(row: Mapping[str, Any], context: Mapping[str, Any]) -> list[Mutant]:
    """Every mutant of the row; a change that leaves the row as it was is no mutant."""
    counts: dict[tuple[str, str], int] = {}
    found: list[Mutant] = []
    for name, operator, _, edit in CHANGES[row["kind"]](row, context):
        mutated = changed(row, edit)
        if mutated == row:
            continue
        index = counts.get((name, operator), 0)
        counts[(name, operator)] = index + 1
        found.append(Mutant(row["id"], name, operator, index, change_of(row, mutated), mutated))
    return found
