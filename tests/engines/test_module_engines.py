"""The module-level adapter protocol and the shipped adapters' module code (reference, torch,
micrograd), exercised in the default test run so coverage and mutation testing see every adapter.

The engine-neutral port tests (tests/properties/test_port_*.py) run on one engine per session; here
a compact battery runs each installed adapter on small fixed cases with independent oracles (numpy
over the reported values, the closed-form SGD step of a Linear)."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest

from contracts.core.errors import ShapeError
from contracts.core.init import InitSpec
from contracts.engines import load_engine
from contracts.engines.base import Engine
from contracts.engines.modules import (
    MODULE,
    ErrorPattern,
    ModuleUnsupported,
    ParameterIdentity,
    SizeUnsupported,
    count_operation_nodes,
    family_of,
)
from contracts.spec_suite.cases.port import (
    GAIN,
    block_names,
    identity_changes,
    input_array,
    layer_names,
    numpy_block,
    numpy_mlp,
    numpy_norm,
)
from contracts.spec_suite.cases.stage07 import sample_variance, spec_model_cost

ENGINES = [
    "reference",
    pytest.param("torch", marks=pytest.mark.skipif(not importlib.util.find_spec("torch"), reason="no torch")),
    pytest.param(
        "micrograd",
        marks=pytest.mark.skipif(not importlib.util.find_spec("micrograd"), reason="no micrograd"),
    ),
]
METHODS = {
    "module_embedding": (3, 2, 1),
    "module_linear": (3, 2, False),
    "module_mlp": ([3, 2], False),
    "module_parameters": (None,),
    "module_state": (None,),
    "module_forward": (None, None),
    "module_identities": (None,),
    "module_sgd_step": (None, None, 0.5),
    "module_replace_parameter": (None, "fc1.weight"),
    "module_graph_nodes": (None, None),
    "module_block": (2, [2, 2], 0.5, False, None, 1.0),
    "module_norm_forward": (None, None),
    "module_assign": (None, "block.norm.gain", None),
}


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    return load_engine(request.param)


def test_module_capability_names() -> None:
    """The module capabilities of the protocol."""
    names = {"embedding", "linear", "mlp", "init", "identity", "graph-count", "block"}
    assert {f"module.{name}" for name in names} == MODULE


@pytest.mark.parametrize(("method", "arguments"), METHODS.items())
def test_base_engine_module_methods_are_unimplemented(method: str, arguments: tuple[Any, ...]) -> None:
    """An adapter that claims a module capability must implement it: the base names what is missing."""

    class Bare(Engine):
        name: ClassVar[str] = "bare"

    with pytest.raises(NotImplementedError, match=f"^bare: {method}$"):
        getattr(Bare(), method)(*arguments)


def test_error_family_walks_the_exception_type_most_derived_first() -> None:
    """A mapped type, a subclass of one (most derived mapping wins) and an unmapped type."""

    class Mapped(Engine):
        error_families: ClassVar[Mapping[type[BaseException], str]] = {
            LookupError: "Lookup",
            IndexError: "IndexError",
        }

    engine = Mapped()
    assert ("IndexError", "Lookup", None) == (
        engine.error_family(IndexError("x")),
        engine.error_family(KeyError("x")),
        engine.error_family(ValueError("x")),
    )
    assert family_of({}, IndexError()) is None
    # a crash or a missing method is never a refusal, though a mapping or pattern of its base type matches
    everything: tuple[ErrorPattern, ...] = ((RuntimeError, "x", "ShapeError"),)
    runtime: dict[type[BaseException], str] = {RuntimeError: "ValueError", Exception: "ValueError"}
    assert [None] * 6 == [
        family_of(runtime, error, everything)
        for error in (
            NotImplementedError("x"),
            RecursionError("x"),
            AttributeError("x"),
            NameError("x"),
            AssertionError("x"),
            UnboundLocalError("x"),
        )
    ]
    assert ("ShapeError", "ValueError") == (
        family_of(runtime, RuntimeError("x"), everything),
        family_of(runtime, RuntimeError("y"), everything),
    )
    patterns: tuple[ErrorPattern, ...] = (
        (RuntimeError, "^shape", "ShapeError"),
        (IndexError, "^dim", "ShapeError"),
    )
    families: dict[type[BaseException], str] = {IndexError: "IndexError"}
    assert "ShapeError" == family_of(families, RuntimeError("shape (2,)"), patterns)
    assert family_of(families, RuntimeError("a shape"), patterns) is None
    assert "IndexError" == family_of(families, IndexError("shape (2,)"), patterns)  # a pattern's type counts
    assert ("ShapeError", "IndexError") == (
        family_of(families, IndexError("dim 3"), patterns),
        family_of(families, IndexError("index 3"), patterns),
    )


class Node:
    def __init__(self, *parents: Node) -> None:
        self.parents = parents


def test_count_operation_nodes_counts_each_shared_node_once() -> None:
    """Leaves are not counted; a node reached along two paths counts once; every output's graph counts."""
    a, b = Node(), Node()
    shared = Node(a, b)
    left, right = Node(shared, a), Node(shared)
    top = Node(left, right)
    assert 4 == count_operation_nodes([top], lambda node: node.parents)
    assert 3 == count_operation_nodes([left, right], lambda node: node.parents)
    assert 0 == count_operation_nodes([a, b], lambda node: node.parents)


def test_reference_error_families() -> None:
    """The reference raises the spec's own types: each maps to itself."""
    engine = load_engine("reference")
    assert {
        IndexError: "IndexError",
        TypeError: "TypeError",
        ShapeError: "ShapeError",
        ValueError: "ValueError",
        OverflowError: "OverflowError",
        ZeroDivisionError: "ZeroDivisionError",
    } == dict(engine.error_families)
    assert () == tuple(engine.error_patterns)


def test_reference_embedding_tables_are_the_seed_zero_init() -> None:
    """The reference embedding draws InitSpec's standard normal values with seed 0, position by position."""
    engine = load_engine("reference")
    state = engine.module_state(engine.module_embedding(5, 3, 2))
    init = InitSpec(seed=0)
    assert init.value("token", 4, 1, 2) == state["token_weight"][4, 1]
    assert init.value("position", 2, 0, 2) == state["position_weight"][2, 0]


def test_reference_identity_names_the_storage_objects() -> None:
    """A Linear's identity: the weight Matrix and its rows tuple, the bias Vector and its values."""
    engine = load_engine("reference")
    layer = engine.module_linear(2, 3, True)
    weight, bias = engine.module_identities(layer)
    assert (id(layer.weight), id(layer.weight.rows)) == weight.objects
    assert (id(layer.bias), id(layer.bias.values)) == bias.objects
    assert tuple(map(id, layer.bias.values)) == bias.storage


@pytest.mark.parametrize("values", [[1.0, 2.0, 3.0], [1.0]], ids=["one-too-many", "one-too-few"])
def test_reference_assign_refuses_a_wrong_count_before_writing(values: list[float]) -> None:
    """module_assign of 3 numbers, or of 1, into a (2,) gain names the tensor and both counts; nothing
    written (a short one too: a check that only refuses too many would write its first number)."""
    engine = load_engine("reference")
    module = engine.module_block(2, [2, 2], 0.5, False, None, 0.25)
    pattern = rf"^module_assign: 'block\.norm\.gain' holds 2 numbers, got {len(values)}$"
    with pytest.raises(ValueError, match=pattern):
        engine.module_assign(module, GAIN, np.array(values))
    assert [0.25, 0.25] == engine.module_state(module)[GAIN].tolist()


# ---------------------------------------------------------------- the battery, on every adapter


def buildable(engine: Engine, use_bias: bool) -> bool:
    try:
        engine.module_linear(1, 1, use_bias)
    except ModuleUnsupported:
        return False
    return True


@pytest.mark.parametrize("use_bias", [False, True])
def test_linear_battery(engine: Engine, use_bias: bool) -> None:
    """A 3 -> 2 Linear: names, shapes, forward = x Wᵀ + b, identity across forward and SGD, the exact
    SGD step, and a replaced weight or bias detected by name."""
    if not buildable(engine, use_bias):
        pytest.skip("bias-free layers do not exist on this engine")
    module = engine.module_linear(3, 2, use_bias)
    names = layer_names([3, 2], use_bias, None)
    assert [(name, shape) for name, shape in zip(names, [(2, 3), (2,)])] == [
        (info.name, info.shape) for info in engine.module_parameters(module)
    ]
    assert [6, 2][: len(names)] == [info.count for info in engine.module_parameters(module)]
    x = input_array(2, 3)
    before, values = engine.module_identities(module), engine.module_state(module)
    assert names == list(values)
    np.testing.assert_allclose(engine.module_forward(module, x), numpy_mlp(values, x, 1, None), rtol=1e-12)
    engine.module_sgd_step(module, x, 0.5)
    assert [] == identity_changes(before, engine.module_identities(module))
    after = engine.module_state(module)
    np.testing.assert_allclose(after["fc1.weight"], values["fc1.weight"] - 0.5 * x.sum(axis=0), rtol=1e-12)
    if use_bias:
        np.testing.assert_allclose(after["fc1.bias"], values["fc1.bias"] - 0.5 * 2, rtol=1e-12)
    engine.module_sgd_step(module, x, 0.5)  # grads do not accumulate across steps
    np.testing.assert_allclose(
        engine.module_state(module)["fc1.weight"], values["fc1.weight"] - 1.0 * x.sum(axis=0), rtol=1e-12
    )
    for name in names:
        values = engine.module_state(module)
        kept = engine.module_replace_parameter(module, name)
        assert [name] == identity_changes(before, engine.module_identities(module))
        np.testing.assert_array_equal(values[name], engine.module_state(module)[name])  # a copy
        # the old storage comes back (the caller holds it, so its id cannot be reused), not the new one
        (old,) = [identity for identity in before if identity.name == name]
        assert id(kept) in {*old.objects, *old.storage}
        before = engine.module_identities(module)


@pytest.mark.parametrize("use_bias", [False, True])
@pytest.mark.parametrize("widths", [[3, 4, 2], [2, 3, 1], [2, 2, 3, 1]])
def test_mlp_battery(engine: Engine, widths: list[int], use_bias: bool) -> None:
    """An MLP: names layer by layer, forward = numpy's chain over reported values (relu between
    layers, a 1-output model too), identities across forward and SGD, graph nodes."""
    if not buildable(engine, use_bias):
        pytest.skip("bias-free layers do not exist on this engine")
    module = engine.module_mlp(widths, use_bias)
    names = layer_names(widths, use_bias)
    assert names == [info.name for info in engine.module_parameters(module)]
    x = input_array(3, widths[0])
    before = engine.module_identities(module)
    assert len({key for item in before for key in item.storage}) == sum(
        info.count for info in engine.module_parameters(module)
    )
    output = engine.module_forward(module, x)
    assert (3, widths[-1]) == output.shape
    np.testing.assert_allclose(
        output, numpy_mlp(engine.module_state(module), x, len(widths) - 1, "mlp"), rtol=1e-9
    )
    engine.module_sgd_step(module, x, 0.25)
    assert [] == identity_changes(before, engine.module_identities(module))
    if engine.lacks("module.graph-count") is None:
        seed_mlp = engine.module_mlp([3, 4, 2], True)
        assert spec_model_cost([3, 4, 2], 2, True) == engine.module_graph_nodes(seed_mlp, input_array(2, 3))
    for name in names:
        engine.module_replace_parameter(module, name)
        assert [name] == identity_changes(before, engine.module_identities(module))
        before = engine.module_identities(module)


@pytest.mark.parametrize("use_bias", [False, True])
@pytest.mark.parametrize("widths", [[2, 3, 2], [3, 1, 3], [2, 2, 3, 2]])
def test_block_battery(engine: Engine, widths: list[int], use_bias: bool) -> None:
    """A block x + MLP(RMSNorm(x)): names (gain first), gains at gain_init, norm and forward = numpy over
    the reported values, an in-place write is used, SGD and the write keep identities, a
    replaced parameter is named. Gains like 0.3 are not float32 numbers: float64 storage is seen."""
    lacking = engine.lacks("module.block")
    if lacking is not None:
        pytest.skip(lacking)
    module = engine.module_block(widths[0], widths, 0.75, use_bias, None, 0.3)
    names = block_names(widths, use_bias)
    assert names == [info.name for info in engine.module_parameters(module)]
    assert [0.3] * widths[0] == engine.module_state(module)[GAIN].tolist()
    x = input_array(3, widths[0])
    before = engine.module_identities(module)
    gains = np.linspace(-1.5, 2.0, widths[0]) + 0.1
    engine.module_assign(module, GAIN, gains)
    np.testing.assert_array_equal(gains, engine.module_state(module)[GAIN])
    for wrong in (widths[0] + 1, widths[0] - 1):  # one number too many or too few: refused, nothing written
        with pytest.raises((ValueError, RuntimeError)):
            engine.module_assign(module, GAIN, np.zeros(wrong))
        np.testing.assert_array_equal(gains, engine.module_state(module)[GAIN])
    np.testing.assert_allclose(numpy_norm(gains, x, 0.75), engine.module_norm_forward(module, x), rtol=1e-12)
    output = engine.module_forward(module, x)
    assert (3, widths[0]) == output.shape
    expected = numpy_block(engine.module_state(module), x, 0.75, len(widths) - 1)
    np.testing.assert_allclose(output, expected, rtol=1e-12)
    engine.module_sgd_step(module, x, 0.25)
    assert [] == identity_changes(before, engine.module_identities(module))
    for name in names:
        engine.module_replace_parameter(module, name)
        assert [name] == identity_changes(before, engine.module_identities(module))
        before = engine.module_identities(module)


# ---------------------------------------------------------------- torch specifics


@pytest.fixture
def torch_engine() -> Engine:
    pytest.importorskip("torch")
    return load_engine("torch")


def test_torch_declarations(torch_engine: Engine) -> None:
    """torch: every module capability but graph-count, with the reasons printed in the report."""
    assert MODULE - {"module.graph-count"} <= torch_engine.capabilities
    assert "module.graph-count" not in torch_engine.capabilities
    assert (
        "torch does not provide module.graph-count (torch's autograd graph has one node per tensor op "
        "(addmm, relu), not per scalar operation, so the Stage 07 scalar node count does not apply)"
    ) == torch_engine.lacks("module.graph-count")
    assert (
        "torch convention: torch has no sequence-length check: T > C is refused only by the position "
        "table's lookup, as IndexError (index out of range in self), not ShapeError"
    ) == torch_engine.lacks("module.embedding", "S05.fail.sequence-length")
    assert {
        IndexError: "IndexError",
        TypeError: "TypeError",
        ValueError: "ValueError",
        OverflowError: "OverflowError",
    } == dict(torch_engine.error_families)


# torch's own messages (2.13, measured) and the spec family each maps to; None: left unmapped
TORCH_MESSAGES = [
    (
        RuntimeError(
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
        ),
        "ShapeError",
    ),
    (RuntimeError("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)"), "ShapeError"),
    (
        RuntimeError(
            "inconsistent tensor size, expected tensor [2] and src [3] to have the same number of elements, "
            "but got 2 and 3 elements respectively"
        ),
        "ShapeError",
    ),
    (RuntimeError("size mismatch, got input (2), mat (2x1), vec (2)"), "ShapeError"),
    (RuntimeError("both arguments to matmul need to be at least 1D, but they are 0D and 1D"), "ShapeError"),
    (RuntimeError("grad can be implicitly created only for scalar outputs"), "ShapeError"),
    (
        RuntimeError(
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape "
            "of torch.Size([2])."
        ),
        "ShapeError",
    ),
    (
        RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape [] and "
            "normalized_shape = [1]"
        ),
        "ShapeError",
    ),
    (ValueError("Expected input batch_size (1) to match target batch_size (2)."), "ShapeError"),
    (RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn"), "ValueError"),
    (RuntimeError("Trying to create tensor with negative dimension -1: [-1, 4]"), "ValueError"),
    (RuntimeError("expected target dtype to be Long or Byte, but got Double"), "TypeError"),
    (IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)"), "ShapeError"),
    (IndexError("index out of range in self"), "IndexError"),
    (ValueError("some other ValueError"), "ValueError"),
    (OverflowError("int too large to convert to float"), "OverflowError"),
    (RuntimeError("Expected floating point type for target with class probabilities, got Long"), None),
    (RuntimeError("CUDA out of memory"), None),
]


@pytest.mark.parametrize(("error", "family"), TORCH_MESSAGES, ids=[str(e)[:40] for e, _ in TORCH_MESSAGES])
def test_torch_error_patterns_tell_runtime_errors_apart(
    torch_engine: Engine, error: BaseException, family: str | None
) -> None:
    """torch's generic RuntimeError maps to a spec family only through a declared message pattern;
    any other RuntimeError stays unmapped (no catch-all)."""
    assert family == torch_engine.error_family(error)


def test_torch_embedding(torch_engine: Engine) -> None:
    """nn.Embedding tables in float64: row t = token row id_t + position row t; ids out of range raise
    IndexError, and so does T > C (from the position lookup)."""
    module = torch_engine.module_embedding(5, 3, 2)
    state = torch_engine.module_state(module)
    assert ["token_weight", "position_weight"] == list(state)
    assert ("float64", "float64") == (str(state["token_weight"].dtype), str(state["position_weight"].dtype))
    output = torch_engine.module_forward(module, [4, 0])
    np.testing.assert_array_equal(state["token_weight"][[4, 0]] + state["position_weight"][:2], output)
    for tokens in ([5], [-1], [0, 0, 0, 0]):
        with pytest.raises(IndexError, match="index out of range"):
            torch_engine.module_forward(module, tokens)


def test_torch_init_is_seeded_kaiming_times_gain(torch_engine: Engine) -> None:
    """The InitSpec's seed fixes the draws; normal and uniform kaiming at the role's target variance
    times gain²; uniform draws stay inside ±√3·σ; the bias is zero."""
    gain = 1.5
    for distribution in ("normal", "uniform"):
        for role, factor in (("standard", 1.0), ("relu", 2.0)):
            spec = InitSpec(distribution, gain, 7, role)
            state = torch_engine.module_state(torch_engine.module_linear(64, 64, True, spec))
            again = torch_engine.module_state(torch_engine.module_linear(64, 64, True, spec))
            weight = state["fc1.weight"]
            np.testing.assert_array_equal(weight, again["fc1.weight"])
            target = factor * gain**2 / 64
            assert abs(sample_variance(weight.ravel().tolist()) - target) < 0.15 * target
            bound = np.sqrt(3.0 * target)
            assert (distribution == "uniform") == bool(np.abs(weight).max() <= bound)
            assert [0.0] * 64 == state["fc1.bias"].tolist()
    other = torch_engine.module_state(torch_engine.module_linear(64, 64, False, InitSpec("normal", gain, 8)))
    assert not np.array_equal(other["fc1.weight"], again["fc1.weight"])


def test_torch_mlp_init_draws_each_layer_from_one_stream(torch_engine: Engine) -> None:
    """fc2 continues the model's generator: it is not a copy of fc1's first draws, and the model is
    reproducible from the seed."""
    spec = InitSpec("normal", 1.0, 3)
    state = torch_engine.module_state(torch_engine.module_mlp([4, 4, 4], False, spec))
    again = torch_engine.module_state(torch_engine.module_mlp([4, 4, 4], False, spec))
    fc1, fc2 = state["mlp.fc1.weight"], state["mlp.fc2.weight"]
    np.testing.assert_array_equal(fc2, again["mlp.fc2.weight"])
    assert not np.allclose(fc2 / fc1, np.sqrt(2.0))
    default = torch_engine.module_state(torch_engine.module_mlp([4, 4, 4], True))
    assert np.any(default["mlp.fc1.bias"] != 0.0)  # without an InitSpec, torch's own default init


def test_torch_identity_reports_every_element_address(torch_engine: Engine) -> None:
    """A (2, 3) float64 weight: one id, six addresses 8 bytes apart from data_ptr, row-major."""
    module = torch_engine.module_linear(3, 2, False)
    (weight,) = torch_engine.module_identities(module)
    parameter = module.module.weight
    start = parameter.data_ptr()
    assert ParameterIdentity("fc1.weight", (id(parameter),), tuple(start + 8 * k for k in range(6))) == weight
    transposed = torch_engine.module_linear(3, 2, False)
    transposed.module.weight.data = transposed.module.weight.data.t().contiguous().t()
    (moved,) = torch_engine.module_identities(transposed)
    base = transposed.module.weight.data_ptr()
    assert (base, base + 16, base + 32, base + 8) == moved.storage[:4]


# ---------------------------------------------------------------- micrograd specifics


@pytest.fixture
def micrograd_engine() -> Engine:
    pytest.importorskip("micrograd")
    return load_engine("micrograd")


def test_micrograd_declarations(micrograd_engine: Engine) -> None:
    """micrograd: no embedding, no InitSpec, no block; linear, mlp, identity and graph-count; the reasons."""
    assert MODULE - {"module.embedding", "module.init", "module.block"} == (
        MODULE & micrograd_engine.capabilities
    )
    assert (
        "micrograd does not provide module.block (micrograd.nn has no RMSNorm (only Neuron, Layer and "
        "MLP): a block x + MLP(RMSNorm(x)) cannot be built from micrograd's own modules)"
    ) == micrograd_engine.lacks("module.block")
    assert (
        "micrograd does not provide module.embedding (micrograd.nn has no embedding module (only "
        "Neuron, Layer and MLP))"
    ) == micrograd_engine.lacks("module.embedding")
    assert (
        "micrograd does not provide module.init (micrograd's Neuron draws every weight from "
        "random.uniform(-1, 1) (variance 1/3 whatever C_in) and takes no initializer, so the spec's "
        "InitSpec (variance gain²/C_in or 2·gain²/C_in) cannot be applied)"
    ) == micrograd_engine.lacks("module.init")
    assert {TypeError: "TypeError"} == dict(micrograd_engine.error_families)


def test_micrograd_refuses_what_it_cannot_build(micrograd_engine: Engine) -> None:
    """No bias-free layer, no InitSpec, no hidden width 1 (a bare Value reaches the next Layer)."""
    bias_free = (
        "^micrograd's Neuron always has a bias b = Value\\(0\\): a bias-free Linear or MLP cannot be built$"
    )
    with pytest.raises(ModuleUnsupported, match=bias_free):
        micrograd_engine.module_linear(2, 2, False)
    with pytest.raises(ModuleUnsupported, match=bias_free):
        micrograd_engine.module_mlp([2, 2], False)
    with pytest.raises(ModuleUnsupported, match=r"^micrograd's Neuron draws every weight"):
        micrograd_engine.module_mlp([2, 2], True, InitSpec())
    with pytest.raises(ModuleUnsupported, match=r"^micrograd's Neuron draws every weight"):
        micrograd_engine.module_linear(2, 2, True, InitSpec())
    message = (
        "a 1-neuron micrograd Layer returns a bare Value, which the next Layer cannot iterate "
        "(TypeError: 'Value' object is not iterable): hidden width 1 does not run, widths [2, 1, 2]"
    )
    with pytest.raises(SizeUnsupported, match=f"^{re.escape(message)}$"):
        micrograd_engine.module_mlp([2, 1, 2], True)


def test_micrograd_graph_nodes_of_the_seed_mlp(micrograd_engine: Engine) -> None:
    """MLP(3, [4, 2]) on one token: 4·(2·3) + 4 relu + 2·(2·4) = 44 nodes (leaves not counted)."""
    module = micrograd_engine.module_mlp([3, 4, 2], True)
    assert 44 == micrograd_engine.module_graph_nodes(module, input_array(1, 3))
    assert 2 * 3 == micrograd_engine.module_graph_nodes(
        micrograd_engine.module_linear(3, 1, True), input_array(1, 3)
    )


def test_micrograd_identity_objects(micrograd_engine: Engine) -> None:
    """Weight identity: each neuron's w list; bias identity: the neurons; storage: the Values."""
    module = micrograd_engine.module_linear(2, 2, True)
    weight, bias = micrograd_engine.module_identities(module)
    neurons = module.module.neurons
    assert tuple(id(n.w) for n in neurons) == weight.objects
    assert tuple(id(v) for n in neurons for v in n.w) == weight.storage
    assert (tuple(map(id, neurons)), tuple(id(n.b) for n in neurons)) == (bias.objects, bias.storage)
    first_bias = neurons[0].b
    returned = micrograd_engine.module_replace_parameter(module, "fc1.bias")
    assert id(first_bias) == id(returned)
    assert (first_bias.data, False) == (neurons[0].b.data, neurons[0].b is first_bias)
    first_weights = neurons[0].w
    returned = micrograd_engine.module_replace_parameter(module, "fc1.weight")
    assert id(first_weights) == id(returned)
    assert [v.data for v in first_weights] == [v.data for v in neurons[0].w]
    assert not {id(v) for v in first_weights} & {id(v) for v in neurons[0].w}


def test_torch_mlp_init_roles(torch_engine: Engine) -> None:
    """ModelPlan.mlp's roles on torch: fc1 standard (1/64), fc2 and fc3 He (2/64), within 15 %."""
    state = torch_engine.module_state(torch_engine.module_mlp([64] * 4, False, InitSpec("normal", 1.0, 11)))
    observed = [sample_variance(state[f"mlp.fc{k}.weight"].ravel().tolist()) for k in (1, 2, 3)]
    for value, target in zip(observed, (1 / 64, 2 / 64, 2 / 64), strict=True):
        assert abs(value - target) < 0.15 * target, observed


@pytest.mark.parametrize("use_bias", [False, True])
def test_block_init_draws_its_mlp_as_module_mlp_does(engine: Engine, use_bias: bool) -> None:
    """A block built with an InitSpec holds the weights module_mlp draws from that spec (same seed, same
    logical tensors), so the InitSpec reaches the block's MLP; the gains stay gain_init."""
    for capability in ("module.block", "module.init"):
        lacking = engine.lacks(capability)
        if lacking is not None:
            pytest.skip(lacking)
    widths, spec = [3, 4, 3], InitSpec("normal", 1.0, 5)
    block_state = engine.module_state(engine.module_block(3, widths, 0.5, use_bias, spec, 0.3))
    mlp_state = engine.module_state(engine.module_mlp(widths, use_bias, spec))
    assert [0.3] * 3 == block_state.pop(GAIN).tolist()
    assert sorted(f"block.{name}" for name in mlp_state) == sorted(block_state)
    for name, values in mlp_state.items():
        np.testing.assert_array_equal(values, block_state[f"block.{name}"])
