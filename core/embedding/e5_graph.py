"""The e5-small encoder as an ONNX graph, built in memory from E5Weights.

Input `x` is the summed word + position + type embedding (B, L, H) and `mask` the additive
attention mask (B, 1, 1, L): 0 for a token, -1e30 for padding, so a padded key gets exactly
zero weight and a text's vector does not depend on what it was batched with. Output is the
last hidden state (B, L, H); pooling stays in numpy. Standard opset-20 ops only, which
onnxruntime fuses (MatMul+Add, Gelu, LayerNormalization) and runs on its own sgemm kernels.

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


def build_encoder(weights: E5Weights) -> tuple[bytes, dict[str, np.ndarray]]:
    """The serialised ModelProto and its external initializers (name -> float32 array)."""
    from onnx import TensorProto, helper, numpy_helper

    c = weights.config
    head_dim = c.hidden // c.heads
    initializers, nodes, external = [], [], {}

    def const(name: str, value: np.ndarray) -> str:
        value = np.ascontiguousarray(value)
        if value.size < 1024:     # shapes and scalars stay inline
            initializers.append(numpy_helper.from_array(value, name))
            return name
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=value.shape,
                             data_location=TensorProto.EXTERNAL)
        for key, val in (("location", "pulse-in-memory"), ("offset", "0"),
                         ("length", str(value.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, val
        initializers.append(tensor)
        external[name] = value.astype(np.float32, copy=False)
        return name

    def op(kind: str, inputs: list[str], **attrs) -> str:
        out = f"{kind.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def norm(x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        return op("LayerNormalization", [x, const(f"{name}.w", w), const(f"{name}.b", b)],
                  axis=-1, epsilon=c.eps)

    split_heads = const("shape.heads", np.array([0, 0, c.heads, head_dim], np.int64))
    join_heads = const("shape.hidden", np.array([0, 0, c.hidden], np.int64))
    scale = const("attention.scale", np.array(1.0 / np.sqrt(head_dim), np.float32))
    thirds = const("shape.thirds", np.array([c.hidden] * 3, np.int64))

    def linear(inp: str, layer: dict[str, np.ndarray], name: str, key: str) -> str:
        product = op("MatMul", [inp, const(f"{name}.{key}.w", layer[f"{key}.w"])])
        return op("Add", [product, const(f"{name}.{key}.b", layer[f"{key}.b"])])

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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="pulse", ir_version=IR_VERSION)
    return model.SerializeToString(), external
