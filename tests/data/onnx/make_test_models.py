#!/usr/bin/python3
"""Writes the small ONNX files tests/test-onnx.c and tests/cli.sh read.

Usage: /usr/bin/python3 tests/data/onnx/make_test_models.py

Each file has one property a test checks (an unsupported op, a symbolic
dimension, a shape the file declares wrongly...); most are invalid on
purpose, so they are written without onnx.checker. Deterministic output.
"""
import os

import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def save(name, nodes, inputs, outputs, inits=(), value_info=(), opset=13, domains=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits),
                              value_info=list(value_info))
    ops = [helper.make_opsetid("", opset)] if opset else []
    ops += [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(graph, producer_name="acsim make_test_models.py", opset_imports=ops)
    m.ir_version = 7
    onnx.save(m, os.path.join(HERE, name + ".onnx"))


def conv(name, x, w, out, **kw):
    return helper.make_node("Conv", [x, w], [out], name=name, **kw)


def main():
    # A small valid network: conv, a residual branch, a pool and a concat.
    # x 1x4x8x8 -> c1 (3x3, 8) -> relu -> c2 (3x3, 8) -> add(c2, c1) ->
    # concat(add, maxpool(c1) upsampled by Resize) -> output 1x16x8x8.
    save("small", [
        conv("c1", "x", "w1", "c1o", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1o"], ["r1"], name="relu1"),
        conv("c2", "r1", "w2", "c2o", pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2o", "r1"], ["sum"], name="add"),
        helper.make_node("MaxPool", ["r1"], ["p"], name="pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Resize", ["p", "", "scales"], ["up"], name="up", mode="nearest"),
        helper.make_node("Concat", ["sum", "up"], ["y"], name="cat", axis=1),
    ], [vi("x", [1, 4, 8, 8]), vi("w1", [8, 4, 3, 3]), vi("w2", [8, 8, 3, 3])],
        [vi("y", [1, 16, 8, 8])],
        inits=[numpy_helper.from_array(__import__("numpy").array([1, 1, 2, 2], "float32"),
                                       "scales")],
        value_info=[vi("c1o", [1, 8, 8, 8]), vi("p", [1, 8, 4, 4])])
    # An LSTM, which acsim does not support.
    save("lstm", [helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm1", hidden_size=4)],
         [vi("x", [2, 1, 3]), vi("w", [1, 16, 3]), vi("r", [1, 16, 4])], [vi("y", None)])
    # A symbolic batch dimension.
    save("symbolic", [conv("conv", "x", "w", "y")],
         [vi("x", ["N", 3, 8, 8]), vi("w", [4, 3, 3, 3])], [vi("y", None)])
    # value_info declares a shape the convolution does not produce (6x6).
    save("declared", [conv("conv", "x", "w", "y")],
         [vi("x", [1, 3, 8, 8]), vi("w", [4, 3, 3, 3])], [vi("y", [1, 4, 8, 8])])
    # Weights for 2 input channels on a 3-channel input.
    save("channels", [conv("conv", "x", "w", "y")],
         [vi("x", [1, 3, 8, 8]), vi("w", [4, 2, 3, 3])], [vi("y", None)])
    # A Reshape whose shape is a graph input fed at run time.
    save("runtime_shape", [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
         [vi("x", [2, 6]), vi("s", [2], TensorProto.INT64)], [vi("y", None)])
    # An op of another domain.
    save("domain", [helper.make_node("FusedConv", ["x"], ["y"], name="fused",
                                     domain="com.microsoft")],
         [vi("x", [1, 3, 8, 8])], [vi("y", None)], domains=["com.microsoft"])
    # Two nodes that read each other.
    save("cycle", [helper.make_node("Relu", ["b"], ["a"], name="first"),
                   helper.make_node("Relu", ["a"], ["b"], name="second")],
         [vi("x", [1, 4])], [vi("b", None)])
    # A node reading a tensor nothing defines.
    save("undefined", [helper.make_node("Relu", ["ghost"], ["y"], name="relu")],
         [vi("x", [1, 4])], [vi("y", None)])
    # A node name with control bytes, of an unsupported op.
    save("control", [helper.make_node("Gather", ["x", "i"], ["y"], name="bad\x1b[31mname\n")],
         [vi("x", [4]), vi("i", [1], TensorProto.INT64)], [vi("y", None)])
    # kernel_shape given as floats.
    node = conv("conv", "x", "w", "y")
    node.attribute.append(helper.make_attribute("kernel_shape", [3.0, 3.0]))
    save("attr_type", [node], [vi("x", [1, 3, 8, 8]), vi("w", [4, 3, 3, 3])], [vi("y", None)])
    # An input with 2^31 x 2^31 x 2^31 elements: sizes overflow.
    save("huge", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
         [vi("x", [2 ** 31, 2 ** 31, 2 ** 31])], [vi("y", None)])
    # No opset for the default domain.
    save("no_opset", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
         [vi("x", [1, 4])], [vi("y", None)], opset=0)
    # Conv + BatchNormalization + Relu, where the conv output also feeds an
    # Add: the BN folds into the conv; the Relu after the Add fuses into it.
    bn = ["bn." + s for s in ("scale", "bias", "mean", "var")]
    save("fuse", [
        conv("conv", "x", "w", "c", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c"] + bn, ["b"], name="bn"),
        helper.make_node("Relu", ["b"], ["r"], name="relu"),
        helper.make_node("Add", ["r", "x"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu2"),
        helper.make_node("Sigmoid", ["r"], ["z"], name="sig"),
    ], [vi("x", [1, 4, 6, 6]), vi("w", [4, 4, 3, 3])] + [vi(n, [4]) for n in bn],
        [vi("y", [1, 4, 6, 6]), vi("z", [1, 4, 6, 6])])


if __name__ == "__main__":
    main()
