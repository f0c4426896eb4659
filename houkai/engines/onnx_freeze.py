"""Fixed int8 activation scales: a text's vector no longer depends on its batch.

Dynamic int8 (``quantize_dynamic``) quantizes each MatMul's input with one scale computed
at run time over the whole padded batch, so a memory's stored vector depended on which
other memories were encoded with it: cosine 0.992 on average (0.97 at worst) to the same
text encoded alone. Among near-identical memories ("… rebuilt nightly at 03:00 UTC"
against "… at 11:00 UTC", 0.993 apart) that was enough for a memory's own words to rank
ten siblings above it (ADR 0074).

:func:`freeze_scales` keeps the dynamic model's int8 weights and replaces every
``DynamicQuantizeLinear`` by a ``QuantizeLinear`` with a fixed uint8 scale and zero point:
the min/max of that tensor over a deterministic calibration set, as the dynamic op would
compute them, narrowed by :data:`RANGE_FACTORS`. It then fuses each
``MatMulInteger → Cast → Mul [→ Add]`` chain into ONNX Runtime's ``MatMulIntegerToFloat``,
the kernel its own optimizer picks only while the scales are computed at run time.
Measured: batch invariance 1.0 (float rounding), the same speed as dynamic int8, LoCoMo
inside the int8 quality gate (ADR 0074).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

Feeds = Callable[[Sequence[str]], dict[str, np.ndarray]]

#: Calibration batches: padded batches of 32 and single texts, as the embedder feeds them.
CALIBRATION_BATCHES = 20
CALIBRATION_SINGLES = 64
_UINT8_MAX = 255.0

#: Each range's ends shrunk, by the quantized tensor's path in the exported graph (under
#: ``/transformer/encoder/``; other tensors keep the plain range). Found once by a greedy
#: search that kept, per end, the factor of {1, .85, .7, .55, .4, .3, .2, .12} giving the
#: highest mean cosine to fp32 on 384 held-out calibration texts (0.9928 → 0.9953).
#: LoCoMo, never searched on, is the check (hybrid MRR: plain ranges 0.575, these 0.584,
#: fp32 0.583, dynamic int8 0.585; ADR 0074).
RANGE_FACTORS: dict[str, tuple[float, float]] = {
    "layer.0/attention/self/Reshape_3": (0.55, 1.0),
    "layer.0/attention/output/LayerNorm/LayerNormalization": (0.55, 0.3),
    "layer.0/intermediate/intermediate_act_fn/Mul_1": (1.0, 0.2),
    "layer.0/output/LayerNorm/LayerNormalization": (0.55, 1.0),
    "layer.1/attention/output/LayerNorm/LayerNormalization": (0.55, 1.0),
    "layer.1/intermediate/intermediate_act_fn/Mul_1": (1.0, 0.7),
    "layer.2/attention/self/Reshape_3": (0.4, 1.0),
    "layer.2/attention/output/LayerNorm/LayerNormalization": (0.7, 0.55),
    "layer.2/intermediate/intermediate_act_fn/Mul_1": (0.85, 1.0),
    "layer.2/output/LayerNorm/LayerNormalization": (0.55, 1.0),
    "layer.3/attention/self/Reshape_3": (0.55, 1.0),
    "layer.3/attention/output/LayerNorm/LayerNormalization": (0.55, 1.0),
    "layer.3/output/LayerNorm/LayerNormalization": (0.7, 1.0),
    "layer.4/attention/output/LayerNorm/LayerNormalization": (0.55, 1.0),
    "layer.4/intermediate/intermediate_act_fn/Mul_1": (1.0, 0.85),
    "layer.4/output/LayerNorm/LayerNormalization": (0.85, 1.0),
    "layer.5/attention/self/Reshape_3": (0.85, 0.85),
    "layer.5/attention/output/LayerNorm/LayerNormalization": (0.7, 0.85),
    "layer.5/intermediate/intermediate_act_fn/Mul_1": (1.0, 0.7),
}


def calibration_texts() -> list[str]:
    """Deterministic agent-memory text (facts, log lines in ten formats, chat turns).

    Generated, never downloaded: the clustered generators of ``houkai bench findable``,
    with seeds no benchmark or test uses."""
    from ..corpora import clustered

    texts = clustered.facts(400, 11)
    for generator in range(len(clustered.LOG_FORMATS)):
        texts += clustered.log_lines(60, 7, generator)
    texts += clustered.chat_turns(300, 9)
    return texts


def _calibration_batches(texts: list[str]) -> Iterator[list[str]]:
    rng = random.Random(0)
    pool = texts[:]
    rng.shuffle(pool)
    batches = [pool[i * 32 : (i + 1) * 32] for i in range(CALIBRATION_BATCHES)]
    rest = pool[CALIBRATION_BATCHES * 32 :]
    batches += [[t] for t in rest[:CALIBRATION_SINGLES]]
    rng.shuffle(batches)
    yield from (b for b in batches if b)


def _ranges(model: Any, feeds: Feeds, texts: list[str]) -> dict[str, tuple[float, float]]:
    """Min and max of every ``DynamicQuantizeLinear`` input over the calibration set."""
    import onnx
    import onnxruntime as ort

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    watched = [n.input[0] for n in probe.graph.node if n.op_type == "DynamicQuantizeLinear"]
    del probe.graph.output[:]
    probe.graph.output.extend(onnx.helper.make_empty_tensor_value_info(t) for t in watched)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        probe.SerializeToString(), sess_options=options, providers=["CPUExecutionProvider"]
    )
    lo = dict.fromkeys(watched, 0.0)  # the dynamic op's range always holds 0
    hi = dict.fromkeys(watched, 0.0)
    for batch in _calibration_batches(texts):
        for name, value in zip(watched, session.run(watched, feeds(batch)), strict=True):
            lo[name] = min(lo[name], float(value.min()))
            hi[name] = max(hi[name], float(value.max()))
    return {name: (lo[name], hi[name]) for name in watched}


def _tensor_path(name: str) -> str:
    return name.removeprefix("/transformer/encoder/").removesuffix("_output_0")


def _scale_and_zero(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """What ``DynamicQuantizeLinear`` computes for a tensor spanning [lo, hi]."""
    scale = (hi - lo) / _UINT8_MAX or 1.0
    zero = np.clip(np.round(-lo / scale), 0, 255)
    return np.array(scale, np.float32), np.array(zero, np.uint8)


def _fuse_matmuls(nodes: list[Any], constants: set[str]) -> list[Any]:
    """``MatMulInteger → Cast → Mul(a_scale · b_scale) [→ Add(bias)]`` as one
    ``com.microsoft.MatMulIntegerToFloat`` per chain."""
    from onnx import helper

    producer = {out: n for n in nodes for out in n.output}
    users: dict[str, list[Any]] = {}
    for n in nodes:
        for name in n.input:
            users.setdefault(name, []).append(n)
    dropped: set[int] = set()
    out: list[Any] = []
    for node in nodes:
        if node.op_type != "MatMulInteger":
            out.append(node)
            continue
        (cast,) = users[node.output[0]]
        (mul,) = users[cast.output[0]]
        scales = producer[next(i for i in mul.input if i != cast.output[0])]
        inputs = [node.input[0], node.input[1], *scales.input, node.input[2], node.input[3]]
        result = mul.output[0]
        after = users.get(result, [])
        if len(after) == 1 and after[0].op_type == "Add":
            bias = [i for i in after[0].input if i in constants]
            if bias:
                inputs.append(bias[0])
                result = after[0].output[0]
                dropped.add(id(after[0]))
        dropped.update({id(cast), id(mul)})
        out.append(
            helper.make_node(
                "MatMulIntegerToFloat",
                inputs,
                [result],
                name=f"{node.name}_float",
                domain="com.microsoft",
            )
        )
    out = [n for n in out if id(n) not in dropped]
    used = {name for n in out for name in n.input}
    return [  # the scale products only the fused nodes read now
        n
        for n in out
        if not (n.op_type == "Mul" and set(n.input) <= constants and n.output[0] not in used)
    ]


def freeze_scales(source: Path, target: Path, feeds: Feeds, texts: list[str]) -> int:
    """Write *source* (a dynamic int8 model) with fixed activation scales to *target*;
    returns how many quantizers were frozen."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    ranges = _ranges(model, feeds, texts)
    nodes = []
    for node in model.graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            nodes.append(node)
            continue
        x, (y, scale_name, zero_name) = node.input[0], node.output
        lo, hi = ranges[x]
        shrink_lo, shrink_hi = RANGE_FACTORS.get(_tensor_path(x), (1.0, 1.0))
        scale, zero = _scale_and_zero(lo * shrink_lo, hi * shrink_hi)
        model.graph.initializer.extend(
            [numpy_helper.from_array(scale, scale_name), numpy_helper.from_array(zero, zero_name)]
        )
        nodes.append(
            helper.make_node(
                "QuantizeLinear", [x, scale_name, zero_name], [y], name=f"{node.name}_fixed"
            )
        )
    constants = {i.name for i in model.graph.initializer}
    nodes = _fuse_matmuls(nodes, constants)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(target))
    return len(ranges)
