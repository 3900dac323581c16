"""The e5-small encoder as an ONNX graph, built in memory from E5Weights.

Input `x` is the summed word + position + type embedding (B, L, H) and `mask` the additive
attention mask (B, 1, 1, L): 0 for a token, -1e30 for padding, so a padded key gets exactly
zero weight and a text's vector does not depend on what it was batched with. Output is the
last hidden state (B, L, H); pooling stays in numpy. Standard opset-20 ops only, which
onnxruntime fuses (MatMul+Add, Gelu, LayerNormalization) and runs on its own sgemm kernels.

With `int8=True` (the passage graph) every layer's six linear maps run as integer matrix
products (onnxruntime's u8s8 kernels, ≈ 1.4x the float sgemm's speed here): the activations
are quantised to 8 bits **per token row** (scale = the row's largest magnitude / 127, zero
point 128), so a token's codes depend on that token alone and a text's vector still does not
depend on its batch-mates; the weights to 7 bits per output column (±63: AVX2's u8s8 product
saturates a pair of 8-bit weights times 255). The attention products stay float. Vectors agree
with the float graph's to cos ≥ 0.998 (bench/embed_throughput.py); onnxruntime's stock dynamic
quantisation (one scale for the whole batch) is 1.5x but makes a vector depend on its batch.

The weights stay out of the serialised graph: each is declared as external data and handed to
the session as a numpy-backed OrtValue (SessionOptions.add_external_initializers). Serialising
85 MB of protobuf held the GIL for 109 ms, long enough to stall the desktop app's UI thread
while an import started; the graph alone is a few kilobytes.
"""

from __future__ import annotations

import numpy as np

from core.embedding.e5_weights import E5Weights

OPSET = 20
#: The IR version that came with opset 20 (onnx 1.15). onnx stamps its own newest IR version
#: otherwise, which older onnxruntime builds refuse ("Unsupported model IR version"): macOS
#: on Intel stops at onnxruntime 1.23, which reads IR <= 11 (docs/install.md).
IR_VERSION = 9


#: Largest weight code in the int8 graph: 7 bits keep AVX2's u8s8 pair sums below 2^15.
WEIGHT_CODES = 63
_ACTIVATION_CODES = 127
_ZERO_POINT = 128


def build_encoder(weights: E5Weights, int8: bool = False
                  ) -> tuple[bytes, dict[str, np.ndarray]]:
    """The serialised ModelProto and its external initializers (name -> array)."""
    from onnx import TensorProto, helper, numpy_helper

    c = weights.config
    head_dim = c.hidden // c.heads
    initializers, nodes, external = [], [], {}

    def const(name: str, value: np.ndarray) -> str:
        value = np.ascontiguousarray(value)
        if value.size < 1024:     # shapes and scalars stay inline
            initializers.append(numpy_helper.from_array(value, name))
            return name
        kind = helper.np_dtype_to_tensor_dtype(value.dtype)
        tensor = TensorProto(name=name, data_type=kind, dims=value.shape,
                             data_location=TensorProto.EXTERNAL)
        for key, val in (("location", "pulse-in-memory"), ("offset", "0"),
                         ("length", str(value.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, val
        initializers.append(tensor)
        external[name] = value
        return name

    def op(kind: str, inputs: list[str], domain: str = "", **attrs) -> str:
        out = f"{kind.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(kind, inputs, [out], domain=domain, **attrs))
        return out

    def norm(x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        return op("LayerNormalization", [x, const(f"{name}.w", w), const(f"{name}.b", b)],
                  axis=-1, epsilon=c.eps)

    split_heads = const("shape.heads", np.array([0, 0, c.heads, head_dim], np.int64))
    join_heads = const("shape.hidden", np.array([0, 0, c.hidden], np.int64))
    scale = const("attention.scale", np.array(1.0 / np.sqrt(head_dim), np.float32))
    thirds = const("shape.thirds", np.array([c.hidden] * 3, np.int64))

    if int8:
        axis_last = const("axes.last", np.array([-1], np.int64))
        flat = const("shape.flat", np.array([-1], np.int64))
        per_code = const("activation.per_code", np.array(1 / _ACTIVATION_CODES, np.float32))
        tiny = const("activation.tiny", np.array(1e-30, np.float32))
        zero_point = const("activation.zero_point", np.array(_ZERO_POINT, np.uint8))
        one = const("activation.unit", np.array(1, np.float32))
        lead = op("Slice", [op("Shape", ["x"]), const("dims.from", np.array([0], np.int64)),
                            const("dims.to", np.array([2], np.int64))])     # (batch, length)
        row_zero_points = op("ConstantOfShape", [op("ReduceProd", [lead], keepdims=1)],
                             value=helper.make_tensor("zp", TensorProto.UINT8, [1], [_ZERO_POINT]))
    quantised: dict[str, tuple[str, str]] = {}
    shapes: dict[str, str] = {}

    def shape_const(name: str, dims: list[int]) -> str:
        """One initializer per shape, however many inputs use it (a name given twice made
        onnxruntime treat it as a graph input, not a constant)."""
        if name not in shapes:
            shapes[name] = const(name, np.array(dims, np.int64))
        return shapes[name]

    def quantise(inp: str, width: int) -> tuple[str, str]:
        """`inp` (B, L, width) as uint8 codes with one scale per token row (B, L, 1)."""
        if inp not in quantised:
            # max |x| as max(max x, -min x): the same bits as ReduceMax(Abs(x)), which was
            # no faster here (bench: 725 LoCoMo texts, load ≈ 7)
            largest = op("Max", [op("ReduceMax", [inp, axis_last], keepdims=1),
                                 op("Neg", [op("ReduceMin", [inp, axis_last], keepdims=1)])])
            scale = op("Max", [op("Mul", [largest, per_code]), tiny])
            rows = op("Reshape", [inp, shape_const(f"shape.rows{width}", [-1, width])])
            codes = op("QuantizeLinear", [rows, op("Reshape", [scale, flat]), row_zero_points],
                       axis=0)
            shape = op("Concat", [lead, shape_const(f"shape.width{width}", [width])], axis=0)
            quantised[inp] = (op("Reshape", [codes, shape]), scale)
        return quantised[inp]

    def linear(inp: str, layer: dict[str, np.ndarray], name: str, key: str) -> str:
        w, bias = layer[f"{key}.w"], const(f"{name}.{key}.b", layer[f"{key}.b"])
        if not int8:
            return op("Add", [op("MatMul", [inp, const(f"{name}.{key}.w", w)]), bias])
        step = np.maximum(np.abs(w).max(axis=0), 1e-30) / WEIGHT_CODES   # per output column
        codes = np.round(w / step).astype(np.int8)
        x_codes, x_scale = quantise(inp, w.shape[0])
        product = op("MatMulIntegerToFloat",
                     [x_codes, const(f"{name}.{key}.codes", codes), one,
                      const(f"{name}.{key}.step", step.astype(np.float32)), zero_point],
                     domain="com.microsoft")
        return op("Add", [op("Mul", [product, x_scale]), bias])

    x = norm("x", weights.vector("emb.ln.w"), weights.vector("emb.ln.b"), "emb.ln")
    for index in range(c.layers):
        layer, name = weights.layer(index), f"l{index}"
        # q, k and v as one product (one kernel call instead of three: ~5 % less CPU for a
        # query; each output is the same dot product, so the vectors are the same bit for bit)
        fused = {f"qkv.{p}": np.concatenate([layer[f"{key}.{p}"] for key in ("q", "k", "v")],
                                            axis=-1) for p in ("w", "b")}
        parts = [f"qkv_{len(nodes)}_{i}" for i in range(3)]
        nodes.append(helper.make_node("Split", [linear(x, fused, name, "qkv"), thirds], parts,
                                      axis=-1))
        q, k, v = (op("Reshape", [part, split_heads]) for part in parts)
        q = op("Transpose", [q], perm=[0, 2, 1, 3])
        k = op("Transpose", [k], perm=[0, 2, 3, 1])
        v = op("Transpose", [v], perm=[0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), "mask"])
        context = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        context = op("Reshape", [op("Transpose", [context], perm=[0, 2, 1, 3]), join_heads])
        x = norm(op("Add", [x, linear(context, layer, name, "ao")]), layer["aln.w"], layer["aln.b"],
                 f"{name}.aln")
        hidden = op("Gelu", [linear(x, layer, name, "fi")])
        x = norm(op("Add", [x, linear(hidden, layer, name, "fo")]), layer["oln.w"], layer["oln.b"],
                 f"{name}.oln")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))

    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "length", c.hidden]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "length"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT,
                                       ["batch", "length", c.hidden])],
        initializers)
    opsets = [helper.make_opsetid("", OPSET)]
    if int8:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="pulse",
                              ir_version=IR_VERSION)
    return model.SerializeToString(), external
