"""PyTorch (2.13.0, CPU, an optional extra) as an engine: the scalar family on 0-d float64 tensors
and the tensor family on float64 tensors.

torch is imported when the engine is created, never at module import, so the package works
without it; a missing install raises MissingExtraError with the command that installs the extra.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from contracts.core.init import InitSpec
from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAM_FORMS,
    PROGRAMS,
    REFERENCE_ONLY,
    SCALAR,
    SCALAR_FORMS,
    SCALAR_OPS,
    TENSOR,
    Array,
    Engine,
    MissingExtraError,
    Program,
    TensorGraph,
    leaf_flags,
    run_program,
)
from contracts.engines.modules import MODULE, ErrorPattern, ParameterIdentity, ParameterInfo

TENSOR_FORMS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "maximum": lambda a, b: a.maximum(b),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "matmul": lambda a, b: a @ b,
    "relu": lambda a: a.relu(),
}


def param_forms(torch: Any) -> dict[str, Callable[..., Any]]:
    """The Stage 06/08 ops with parameters as torch calls (F = torch.nn.functional)."""
    functional = torch.nn.functional
    return {
        "sum": lambda x, axis, keepdims=False: x.sum(dim=axis, keepdim=keepdims),
        # torch.max(dim) sends the gradient to the index it returns: the first maximal element
        "max": lambda x, axis, keepdims=False: torch.max(x, dim=axis, keepdim=keepdims).values,
        "logsumexp": lambda x, axis, keepdims=False: torch.logsumexp(x, dim=axis, keepdim=keepdims),
        "softmax": lambda x, axis: functional.softmax(x, dim=axis),
        "log_softmax": lambda x, axis: functional.log_softmax(x, dim=axis),
        "cross_entropy": lambda x, targets: cross_entropy(torch, x, torch.as_tensor(np.asarray(targets))),
        "rms_norm": lambda x, gain, eps: functional.rms_norm(x, (x.shape[-1],), weight=gain, eps=eps),
    }


def cross_entropy(torch: Any, x: Any, targets: Any) -> Any:
    """F.cross_entropy reads classes on dim 1: the batch axes (none, one or more) are flattened into
    one (the mean is the same) when the targets have the batch shape; any other targets go to torch as
    they are, so that torch itself judges their dtype and shape."""
    if tuple(targets.shape) == tuple(x.shape[:-1]):
        x, targets = x.reshape(-1, x.shape[-1]), targets.reshape(-1)
    return torch.nn.functional.cross_entropy(x, targets)


def import_torch() -> Any:
    """The torch module, or MissingExtraError naming the extra that installs it."""
    try:
        import torch
    except ImportError:
        raise MissingExtraError("torch", "torch", "torch") from None
    return torch


# torch's RuntimeError messages (2.13) per spec family. Shapes: elementwise broadcast, matmul's inner
# and batch dimensions, 0-d matmul operands, an upstream of another shape, an implicit seed for a
# non-scalar output, a target batch shape, rms_norm's weight shape; a backward that needs no grad.
TORCH_PATTERNS: tuple[ErrorPattern, ...] = (
    (
        RuntimeError,
        r"must match the size of tensor|shapes cannot be multiplied|inconsistent tensor size|"
        r"need to be at least 1D|^size mismatch, got input|^Mismatch in shape|"
        r"^Expected size for first two dimensions of batch2 tensor|"
        r"can be implicitly created only for scalar outputs|same shape as normalized_shape",
        "ShapeError",
    ),
    (ValueError, r"^Expected input batch_size \(\d+\) to match target batch_size", "ShapeError"),
    (RuntimeError, r"does not require grad and does not have a grad_fn", "ValueError"),
    (RuntimeError, r"^Trying to create tensor with negative dimension", "ValueError"),
    (RuntimeError, r"^expected target dtype to be|^expected scalar type Long", "TypeError"),
    (IndexError, r"^Dimension out of range", "ShapeError"),
)


class TorchEngine(Engine):
    name: ClassVar[str] = "torch"
    capabilities: ClassVar[frozenset[str]] = (
        (SCALAR - {"scalar.domain"})
        | (TENSOR - {"tensor.shape-errors", "tensor.param-errors", "tensor.domain"})
        | PROGRAMS
        | (MODULE - {"module.graph-count"})
    )
    # Not conventions but measured failures, reported as failed rows: S06.rule.forward-error (log, not
    # log1p, in log_softmax/cross_entropy: log_softmax([0, -40])[0] is 0.0, exactly -4.25e-18),
    # S06.rule.grad-error (logsumexp's backward goes through the rounded result: ~4,000 eps64 at
    # |x| ~ 1e4) and S08.rule.stability (rms_norm's backward underflows (ms + eps)^(-3/2) above ~1e103).
    conventions: ClassVar[Mapping[str, str]] = {
        # only maximum's case: torch.relu's gradient at 0 is 0, as the spec says, so the relu case runs
        "T.rule.tie[maximum]": "torch.maximum splits the gradient 0.5/0.5 between a and b where a == b; "
        "the spec gives all of it to the first argument",
        "S05.fail.sequence-length": "torch has no sequence-length check: T > C is refused only by the "
        "position table's lookup, as IndexError (index out of range in self), not ShapeError",
        "S05.fail.sequence-empty": "torch has no sequence-length check: torch.tensor([]) of no ids is a "
        "float tensor, refused by nn.Embedding as a RuntimeError about the index dtype, not ShapeError",
        # Conventions, not only a lacking tensor.domain: the rows' boundary tests would pass on torch
        # and report the row passed while its refusal, the row's claim, was never checked.
        "T.fail.log-domain": "torch.log of an element <= 0 gives -inf or nan instead of raising",
        "T.fail.exp-overflow": "torch.exp of an element above 709.78 gives inf instead of raising",
    }
    # nn.Embedding raises IndexError for an id outside [0, V) (negative ids do not wrap); Python's own
    # types keep their names (torch raises TypeError for a str element, OverflowError for an int beyond
    # float64); torch's generic RuntimeError is told apart by message (TORCH_PATTERNS), never caught whole
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        kind: kind.__name__ for kind in (IndexError, TypeError, ValueError, OverflowError)
    }
    error_patterns: ClassVar[Sequence[ErrorPattern]] = TORCH_PATTERNS
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.domain": "torch computes log(x <= 0) = nan or -inf, exp(710) = inf and 1/0 = inf "
        "instead of refusing the operation",
        "tensor.shape-errors": "torch raises its own RuntimeError (its own message) from inside the op, "
        "not ShapeError with the spec's message before a node exists (its family is checked by "
        "tensor.refusals)",
        "tensor.param-errors": "torch raises its own IndexError or RuntimeError for a bad dim, target or "
        "weight shape (its family is checked by tensor.refusals), not the spec's message",
        "tensor.domain": "torch follows IEEE 754: log(x <= 0) is -inf or nan, exp(710) and overflowing "
        "results or gradients are inf, and nan/inf data or upstreams are accepted, instead of a refusal",
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
        "module.graph-count": "torch's autograd graph has one node per tensor op (addmm, relu), not per "
        "scalar operation, so the Stage 07 scalar node count does not apply",
    }

    def __init__(self) -> None:
        self.torch = import_torch()
        self.modules = TorchModules(self.torch)

    def version(self) -> str | None:
        return str(self.torch.__version__)

    def leaf(self, data: Any) -> Any:
        return self.torch.from_numpy(float64(data)).requires_grad_(True)

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        check_op(op, SCALAR_OPS)
        leaves = [self.leaf(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return float(out.item()), tuple(grad_of(leaf) for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = self.leaf(1.0)
        out = x
        for _ in range(depth):
            out = out + 1.0
        out.backward()
        return grad_of(x)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = self.leaf(a), self.leaf(b)
        shared = left * right
        out = shared * shared + left
        out.backward(retain_graph=True)  # torch frees the graph after a backward unless told not to
        out.backward()
        return grad_of(left), grad_of(right)

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(TENSOR_FORMS))
        leaves = [self.leaf(item) for item in inputs]
        out = TENSOR_FORMS[op](*leaves)
        if upstream is None:
            out.backward()
        else:
            out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(to_array(leaf.grad) for leaf in leaves)

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        check_op(op, tuple(TENSOR_FORMS))
        flags = leaf_flags(requires_grad, len(inputs))
        leaves = tuple(
            self.torch.from_numpy(float64(item)).requires_grad_(flag) for item, flag in zip(inputs, flags)
        )
        return TensorGraph(leaves, TENSOR_FORMS[op](*leaves))

    def tensor_backward(self, graph: TensorGraph, upstream: Array | None) -> None:
        seed = None if upstream is None else self.torch.from_numpy(float64(upstream))
        graph.out.backward(seed, retain_graph=True)  # repeatable, like the spec's backward

    def tensor_grads(self, graph: TensorGraph) -> tuple[Array | None, ...]:
        return tuple(None if leaf.grad is None else to_array(leaf.grad) for leaf in graph.leaves)

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        forms = param_forms(self.torch)
        check_op(op, tuple(forms))
        return to_array(forms[op](*(self.leaf(item) for item in inputs), **params).detach())

    def tensor_from_data(self, data: Any) -> Array:
        """torch.tensor(data, dtype=torch.float64): what a port asks torch for."""
        return to_array(self.torch.tensor(data, dtype=self.torch.float64))

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        nodes = [self.leaf(float(x)) for x in leaves]
        out = run_program(PROGRAM_FORMS, nodes, program)
        out.backward()
        return float(out.item()), tuple(0.0 if node.grad is None else grad_of(node) for node in nodes)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        nodes = [self.leaf(item) for item in leaves]
        out = run_program(TENSOR_FORMS, nodes, program)
        out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(
            np.zeros(node.shape) if node.grad is None else to_array(node.grad) for node in nodes
        )

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        forms = param_forms(self.torch)
        check_op(op, tuple(forms))
        leaves = [self.leaf(item) for item in inputs]
        out = forms[op](*leaves, **params)
        if upstream is None:
            out.backward()
        else:
            out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(to_array(leaf.grad) for leaf in leaves)

    # -- module level: nn.Embedding, nn.Linear, an nn.Sequential MLP, nn.RMSNorm + MLP + residual --

    def module_embedding(self, vocab_size: int, context_length: int, width: int) -> TorchModule:
        return self.modules.embedding(vocab_size, context_length, width)

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> TorchModule:
        return self.modules.linear(in_features, out_features, use_bias, init)

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> TorchModule:
        return self.modules.mlp(widths, use_bias, init)

    def module_block(
        self,
        width: int,
        widths: Sequence[int],
        eps: float,
        use_bias: bool,
        init: InitSpec | None,
        gain_init: float,
    ) -> TorchModule:
        return self.modules.block(width, widths, eps, use_bias, init, gain_init)

    def module_norm_forward(self, built: TorchModule, inputs: Any) -> Array:
        return to_array(built.module["norm"](self.torch.from_numpy(float64(inputs))).detach())

    def module_assign(self, built: TorchModule, name: str, values: Array) -> None:
        parameter, source = dict(named_parameters(built))[name], self.torch.from_numpy(float64(values))
        if source.shape != parameter.shape:  # copy_ would broadcast a (1,) into every element
            shapes = f"has shape {tuple(parameter.shape)}, got {tuple(source.shape)}"
            raise ValueError(f"module_assign: {name!r} {shapes}")
        with self.torch.no_grad():
            parameter.copy_(source)

    def module_parameters(self, built: TorchModule) -> tuple[ParameterInfo, ...]:
        return tuple(
            ParameterInfo(name, tuple(parameter.shape), parameter.numel())
            for name, parameter in named_parameters(built)
        )

    def module_state(self, built: TorchModule) -> dict[str, Array]:
        return {name: to_array(parameter.detach()) for name, parameter in named_parameters(built)}

    def module_forward(self, built: TorchModule, inputs: Any) -> Array:
        return to_array(self.run(built, inputs).detach())

    def run(self, built: TorchModule, inputs: Any) -> Any:
        """A torch port's forward: token rows + position rows 0..T-1, a block's x + mlp(norm(x)), or the
        module on a float64 tensor."""
        torch = self.torch
        if built.embedding:
            ids = torch.tensor(inputs)  # what a port does with a Python list of ids
            return built.module["token"](ids) + built.module["position"](torch.arange(len(ids)))
        x = torch.from_numpy(float64(inputs))
        if built.block:
            return x + built.module["mlp"](built.module["norm"](x))
        return built.module(x)

    def module_identities(self, built: TorchModule) -> tuple[ParameterIdentity, ...]:
        return tuple(
            ParameterIdentity(name, (id(parameter),), element_addresses(parameter))
            for name, parameter in named_parameters(built)
        )

    def module_sgd_step(self, built: TorchModule, inputs: Any, learning_rate: float) -> None:
        built.module.zero_grad()
        self.run(built, inputs).sum().backward()
        with self.torch.no_grad():
            for parameter in built.module.parameters():
                parameter.sub_(learning_rate * parameter.grad)

    def module_replace_parameter(self, built: TorchModule, name: str) -> object:
        own = {logical: torch_name for torch_name, logical in built.names.items()}[name]
        owner_name, _, attribute = own.rpartition(".")
        owner = built.module.get_submodule(owner_name)
        old = getattr(owner, attribute)
        setattr(owner, attribute, self.torch.nn.Parameter(old.detach().clone()))
        return old


def named_parameters(built: TorchModule) -> list[tuple[str, Any]]:
    """(logical name, torch parameter) in torch's order, read from the module now."""
    return [(built.names[name], parameter) for name, parameter in built.module.named_parameters()]


def element_addresses(parameter: Any) -> tuple[int, ...]:
    """The memory address of every element, row-major (a scalar parameter's physical identity)."""
    strides = parameter.stride()
    base, step = parameter.data_ptr(), parameter.element_size()
    return tuple(
        base + step * sum(i * stride for i, stride in zip(index, strides))
        for index in itertools.product(*map(range, parameter.shape))
    )


def check_op(op: str, known: Sequence[str]) -> None:
    if op not in known:
        raise ValueError(f"torch engine: op must be one of {sorted(known)}, got {op!r}")


def grad_of(leaf: Any) -> float:
    return float(leaf.grad.item())


def float64(data: Any) -> Array:
    """A new float64 array (np.array copies), whatever the input's type."""
    return np.array(data, dtype=np.float64)


def to_array(tensor: Any) -> Array:
    """A float64 tensor's values as a numpy array of their own (not a view of torch's memory)."""
    return np.array(tensor.numpy())


# ---------------------------------------------------------------- module level (port conformance)


@dataclass(frozen=True, slots=True)
class TorchModule:
    """A torch module (float64) and the map from torch's parameter names to the seeds' names."""

    module: Any
    names: Mapping[str, str]
    embedding: bool = False  # token and position tables, run on token ids
    block: bool = False  # norm and mlp, run as x + mlp(norm(x))


class TorchModules:
    """nn.Embedding, nn.Linear, nn.Sequential(Linear, ReLU, ..., Linear) and nn.RMSNorm in float64."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.nn = torch.nn

    def embedding(self, vocab_size: int, context_length: int, width: int) -> TorchModule:
        tables = self.nn.ModuleDict(
            {
                "token": self.nn.Embedding(vocab_size, width, dtype=self.torch.float64),
                "position": self.nn.Embedding(context_length, width, dtype=self.torch.float64),
            }
        )
        return TorchModule(tables, EMBEDDING_NAMES, embedding=True)

    def linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None
    ) -> TorchModule:
        layer = self.nn.Linear(in_features, out_features, bias=use_bias, dtype=self.torch.float64)
        if init is not None:
            self.apply_init(layer, init, "fc1.weight")
        return TorchModule(layer, {"weight": "fc1.weight", "bias": "fc1.bias"})

    def mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None) -> TorchModule:
        modules: list[Any] = []
        names: dict[str, str] = {}
        for index, (c_in, c_out) in enumerate(itertools.pairwise(widths)):
            if index:
                modules.append(self.nn.ReLU())
            layer = self.nn.Linear(c_in, c_out, bias=use_bias, dtype=self.torch.float64)
            if init is not None:  # ModelPlan.mlp's roles: fc1 standard, every later layer He
                role = "relu" if index else "standard"
                self.apply_init(layer, init.with_role(role), f"mlp.fc{index + 1}.weight")
            names[f"{len(modules)}.weight"] = f"mlp.fc{index + 1}.weight"
            names[f"{len(modules)}.bias"] = f"mlp.fc{index + 1}.bias"
            modules.append(layer)
        return TorchModule(self.nn.Sequential(*modules), names)

    def block(
        self,
        width: int,
        widths: Sequence[int],
        eps: float,
        use_bias: bool,
        init: InitSpec | None,
        gain_init: float,
    ) -> TorchModule:
        """nn.RMSNorm(C, eps) with its gain set to gain_init by torch.nn.init, then mlp(widths): the
        ModuleDict a port keeps (norm first, as torch registers it); the residual is run by the port."""
        norm = self.nn.RMSNorm(width, eps=eps, dtype=self.torch.float64)  # a learnable gain by default
        self.nn.init.constant_(norm.weight, gain_init)
        mlp = self.mlp(widths, use_bias, init)
        names = {"norm.weight": "block.norm.gain"}
        names.update({f"mlp.{own}": f"block.{logical}" for own, logical in mlp.names.items()})
        return TorchModule(self.nn.ModuleDict({"norm": norm, "mlp": mlp.module}), names, block=True)

    def generator(self, init: InitSpec, tensor: str) -> Any:
        """A generator of the tensor's own, seeded from the spec's seed and the tensor's logical name,
        so a tensor's values do not depend on the other layers (S07.rule.init-deterministic)."""
        digest = hashlib.blake2b(f"{init.seed}/{tensor}".encode(), digest_size=8).digest()
        return self.torch.Generator().manual_seed(int.from_bytes(digest, "big") >> 1)

    def apply_init(self, layer: Any, init: InitSpec, tensor: str) -> None:
        """torch.nn.init's kaiming initializer (fan-in; gain √2 for relu, 1 for standard) times the
        spec's gain, drawn from the tensor's own generator (see generator); the bias zero."""
        generator = self.generator(init, tensor)
        initializer = KAIMING[init.distribution]
        nonlinearity = "relu" if init.role == "relu" else "linear"
        with self.torch.no_grad():
            getattr(self.nn.init, initializer)(layer.weight, nonlinearity=nonlinearity, generator=generator)
            layer.weight.mul_(init.gain)
            if layer.bias is not None:
                self.nn.init.zeros_(layer.bias)


EMBEDDING_NAMES = {"token.weight": "token_weight", "position.weight": "position_weight"}
KAIMING = {"normal": "kaiming_normal_", "uniform": "kaiming_uniform_"}
