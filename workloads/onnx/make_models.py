#!/usr/bin/python3
"""Writes the shape-only ONNX models of workloads/onnx/.

Usage: /usr/bin/python3 workloads/onnx/make_models.py [OUTDIR [NAME...]]

Needs Debian's python3-onnx (hence /usr/bin/python3). Each network is built
layer by layer from its paper or reference implementation (named below);
weights are graph inputs with a shape and no data, so the files hold only
the graph and stay small. Every model is checked by onnx.checker and
annotated by onnx.shape_inference (its value_info), which acsim checks its
own shape inference against. The output is deterministic: running the
script again gives the same bytes.
"""
import os
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class Net:
    """A graph under construction: nodes, weight inputs, constants."""

    def __init__(self, name, shape):
        self.name = name
        self.nodes = []
        self.inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)]
        self.inits = []
        self.shapes = {"input": list(shape)}  # channel counts we track ourselves
        self.count = {}

    def weight(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        return name

    def const(self, name, values, dtype=TensorProto.FLOAT, dims=None):
        import numpy as np
        arr = np.array(values, dtype=np.float32 if dtype == TensorProto.FLOAT else np.int64)
        if dims is not None:
            arr = arr.reshape(dims)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def node(self, op, name, inputs, **attrs):
        out = name + ".out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, name, cin, cout, k, stride=1, pad=None, group=1, bn=True, act="relu",
             bias=False, auto_pad=None, alpha=0.1):
        """Conv (+ BatchNormalization) (+ activation), as exported for training:
        acsim folds the BN and fuses the activation."""
        if pad is None:
            pad = k // 2
        ins = [x, self.weight(name + ".weight", [cout, cin // group, k, k])]
        if bias:
            ins.append(self.weight(name + ".bias", [cout]))
        attrs = dict(kernel_shape=[k, k], strides=[stride, stride], group=group)
        if auto_pad:
            attrs["auto_pad"] = auto_pad
        else:
            attrs["pads"] = [pad] * 4
        y = self.node("Conv", name, ins, **attrs)
        if bn:
            p = name + ".bn"
            y = self.node("BatchNormalization", p,
                          [y] + [self.weight("%s.%s" % (p, s), [cout])
                                 for s in ("scale", "bias", "mean", "var")])
        return self.act(y, name, act, alpha)

    def act(self, y, name, act, alpha=0.1):
        if act == "relu":
            return self.node("Relu", name + ".relu", [y])
        if act == "relu6":
            lo = self.const(name + ".min", 0.0)
            hi = self.const(name + ".max", 6.0)
            return self.node("Clip", name + ".relu6", [y, lo, hi])
        if act == "leaky":
            return self.node("LeakyRelu", name + ".leaky", [y], alpha=alpha)
        return y

    def head(self, x, cin, classes, name="fc", dropout=False):
        y = self.node("GlobalAveragePool", "avgpool", [x])
        y = self.node("Flatten", "flatten", [y], axis=1)
        if dropout:
            y = self.node("Dropout", "dropout", [y])
        return self.node("Gemm", name, [y, self.weight(name + ".weight", [classes, cin]),
                                        self.weight(name + ".bias", [classes])], transB=1)

    def model(self, out):
        def make(outputs):
            graph = helper.make_graph(self.nodes, self.name, self.inputs, outputs,
                                      initializer=self.inits)
            m = helper.make_model(graph, producer_name="acsim make_models.py",
                                  opset_imports=[helper.make_opsetid("", OPSET)])
            m.ir_version = 7
            return m
        # The output's shape is ONNX's inference, declared on the graph output.
        typed = onnx.shape_inference.infer_shapes(
            make([helper.make_empty_tensor_value_info(out)]), strict_mode=True)
        info = [v for v in typed.graph.value_info if v.name == out]
        m = make(info)
        onnx.checker.check_model(m)
        return onnx.shape_inference.infer_shapes(m, strict_mode=True)


def mobilenet_v1():
    """MobileNet v1 1.0-224: Howard et al., "MobileNets: Efficient Convolutional
    Neural Networks for Mobile Vision Applications" (2017), Table 1."""
    n = Net("mobilenet_v1", [1, 3, 224, 224])
    x = n.conv("input", "conv1", 3, 32, 3, 2)
    cin = 32
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + \
             [(1024, 2), (1024, 1)]
    for i, (cout, s) in enumerate(blocks, 1):
        x = n.conv(x, "block%d.dw" % i, cin, cin, 3, s, group=cin)
        x = n.conv(x, "block%d.pw" % i, cin, cout, 1)
        cin = cout
    y = n.head(x, cin, 1000)
    return n.model(n.node("Softmax", "softmax", [y], axis=1))


def mobilenet_v2():
    """MobileNet v2 1.0-224: Sandler et al., "MobileNetV2: Inverted Residuals and
    Linear Bottlenecks" (CVPR 2018), Table 2; layer order as torchvision's
    mobilenet_v2 (ReLU6, no activation after the projection)."""
    n = Net("mobilenet_v2", [1, 3, 224, 224])
    x = n.conv("input", "features.0", 3, 32, 3, 2, act="relu6")
    cin, idx = 32, 1
    for t, c, reps, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for r in range(reps):
            stride = s if r == 0 else 1
            name = "features.%d" % idx
            hid = cin * t
            y = x
            if t != 1:
                y = n.conv(y, name + ".expand", cin, hid, 1, act="relu6")
            y = n.conv(y, name + ".dw", hid, hid, 3, stride, group=hid, act="relu6")
            y = n.conv(y, name + ".project", hid, c, 1, act=None)
            if stride == 1 and cin == c:
                y = n.node("Add", name + ".add", [x, y])
            x, cin, idx = y, c, idx + 1
    x = n.conv(x, "features.%d" % idx, cin, 1280, 1, act="relu6")
    return n.model(n.head(x, 1280, 1000, "classifier", dropout=True))


def resnet(depth):
    """ResNet-18 and ResNet-50: He et al., "Deep Residual Learning for Image
    Recognition" (CVPR 2016), Table 1; as torchvision's resnet18/resnet50
    (projection shortcuts where the shape changes, stride on the 3x3 conv)."""
    bottleneck = depth == 50
    reps = [2, 2, 2, 2] if depth == 18 else [3, 4, 6, 3]
    n = Net("resnet%d" % depth, [1, 3, 224, 224])
    x = n.conv("input", "conv1", 3, 64, 7, 2, 3)
    x = n.node("MaxPool", "maxpool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)
    cin = 64
    for stage, (width, count) in enumerate(zip([64, 128, 256, 512], reps), 1):
        for b in range(count):
            stride = 2 if b == 0 and stage > 1 else 1
            name = "layer%d.%d" % (stage, b)
            cout = width * 4 if bottleneck else width
            if bottleneck:
                y = n.conv(x, name + ".conv1", cin, width, 1)
                y = n.conv(y, name + ".conv2", width, width, 3, stride)
                y = n.conv(y, name + ".conv3", width, cout, 1, act=None)
            else:
                y = n.conv(x, name + ".conv1", cin, width, 3, stride)
                y = n.conv(y, name + ".conv2", width, width, 3, act=None)
            short = x
            if stride != 1 or cin != cout:
                short = n.conv(x, name + ".downsample", cin, cout, 1, stride, act=None)
            x = n.act(n.node("Add", name + ".add", [y, short]), name, "relu")
            cin = cout
    return n.model(n.head(x, cin, 1000))


def squeezenet():
    """SqueezeNet 1.1: forresti/SqueezeNet, SqueezeNet_v1.1 (Iandola et al.,
    "SqueezeNet: AlexNet-level accuracy with 50x fewer parameters", 2016);
    as torchvision's squeezenet1_1 (pools with ceil_mode)."""
    n = Net("squeezenet1_1", [1, 3, 224, 224])
    x = n.conv("input", "conv1", 3, 64, 3, 2, 0, bn=False, bias=True)
    cin = 64

    def pool(x, name):
        return n.node("MaxPool", name, [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)

    def fire(x, name, cin, s, e):
        sq = n.conv(x, name + ".squeeze", cin, s, 1, bn=False, bias=True)
        a = n.conv(sq, name + ".expand1x1", s, e, 1, bn=False, bias=True)
        b = n.conv(sq, name + ".expand3x3", s, e, 3, bn=False, bias=True)
        return n.node("Concat", name + ".concat", [a, b], axis=1), 2 * e

    x = pool(x, "pool1")
    x, cin = fire(x, "fire2", cin, 16, 64)
    x, cin = fire(x, "fire3", cin, 16, 64)
    x = pool(x, "pool3")
    x, cin = fire(x, "fire4", cin, 32, 128)
    x, cin = fire(x, "fire5", cin, 32, 128)
    x = pool(x, "pool5")
    for i, (s, e) in enumerate([(48, 192), (48, 192), (64, 256), (64, 256)], 6):
        x, cin = fire(x, "fire%d" % i, cin, s, e)
    x = n.node("Dropout", "dropout", [x])
    x = n.conv(x, "conv10", cin, 1000, 1, bn=False, bias=True)
    x = n.node("GlobalAveragePool", "avgpool", [x])
    return n.model(n.node("Flatten", "flatten", [x], axis=1))


def tiny_yolov2():
    """Tiny YOLOv2 (VOC, 416x416): pjreddie/darknet cfg/yolov2-tiny-voc.cfg;
    the last max pool (2x2, stride 1) pads like darknet (SAME_UPPER)."""
    n = Net("tiny_yolov2", [1, 3, 416, 416])
    x, cin = "input", 3
    for i, cout in enumerate([16, 32, 64, 128, 256, 512], 1):
        x = n.conv(x, "conv%d" % i, cin, cout, 3, act="leaky")
        stride = 1 if cout == 512 else 2
        x = n.node("MaxPool", "pool%d" % i, [x], kernel_shape=[2, 2], strides=[stride] * 2,
                   auto_pad="SAME_UPPER")
        cin = cout
    x = n.conv(x, "conv7", 512, 1024, 3, act="leaky")
    x = n.conv(x, "conv8", 1024, 1024, 3, act="leaky")
    return n.model(n.conv(x, "conv9", 1024, 125, 1, bn=False, bias=True, act=None))


def unet():
    """A small U-Net (Ronneberger et al., "U-Net: Convolutional Networks for
    Biomedical Image Segmentation", MICCAI 2015) for 1x3x128x128 images: three
    levels of two 3x3 convolutions (16, 32, 64 channels, padded), a 128-channel
    bottleneck; the way up uses ConvTranspose twice and Resize once, each
    followed by the skip Concat and two convolutions; a 1x1 convolution to 2
    classes and a Sigmoid."""
    n = Net("unet", [1, 3, 128, 128])
    x, cin, skips = "input", 3, []
    for lvl, c in enumerate([16, 32, 64], 1):
        x = n.conv(x, "down%d.conv1" % lvl, cin, c, 3)
        x = n.conv(x, "down%d.conv2" % lvl, c, c, 3)
        skips.append((x, c))
        x = n.node("MaxPool", "down%d.pool" % lvl, [x], kernel_shape=[2, 2], strides=[2, 2])
        cin = c
    x = n.conv(x, "mid.conv1", cin, 128, 3)
    x = n.conv(x, "mid.conv2", 128, 128, 3)
    cin = 128
    for lvl in (3, 2, 1):
        skip, c = skips[lvl - 1]
        name = "up%d" % lvl
        if lvl == 2:
            roi = n.const(name + ".roi", [], dims=[0])
            scales = n.const(name + ".scales", [1.0, 1.0, 2.0, 2.0])
            x = n.node("Resize", name + ".resize", [x, roi, scales], mode="nearest")
            x = n.conv(x, name + ".reduce", cin, c, 1, bn=False, bias=True, act=None)
        else:
            x = n.node("ConvTranspose", name + ".upconv",
                       [x, n.weight(name + ".upconv.weight", [cin, c, 2, 2]),
                        n.weight(name + ".upconv.bias", [c])],
                       kernel_shape=[2, 2], strides=[2, 2])
        x = n.node("Concat", name + ".concat", [skip, x], axis=1)
        x = n.conv(x, name + ".conv1", 2 * c, c, 3)
        x = n.conv(x, name + ".conv2", c, c, 3)
        cin = c
    x = n.conv(x, "head", cin, 2, 1, bn=False, bias=True, act=None)
    return n.model(n.node("Sigmoid", "sigmoid", [x]))


def alexnet():
    """AlexNet: Krizhevsky et al. (NIPS 2012) as torchvision's alexnet, the
    one-tower variant of "One weird trick for parallelizing convolutional
    neural networks" (Krizhevsky, 2014): 64-192-384-256-256 filters."""
    n = Net("alexnet", [1, 3, 224, 224])
    x, cin = "input", 3
    for i, (cout, k, s, p, pool) in enumerate([(64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                               (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                                               (256, 3, 1, 1, True)], 1):
        x = n.conv(x, "conv%d" % i, cin, cout, k, s, p, bn=False, bias=True)
        if pool:
            x = n.node("MaxPool", "pool%d" % i, [x], kernel_shape=[3, 3], strides=[2, 2])
        cin = cout
    x = n.node("Flatten", "flatten", [x], axis=1)
    fin = 256 * 6 * 6
    for i, cout in enumerate([4096, 4096, 1000], 6):
        if i < 8:
            x = n.node("Dropout", "dropout%d" % i, [x])
        x = n.node("Gemm", "fc%d" % i, [x, n.weight("fc%d.weight" % i, [cout, fin]),
                                         n.weight("fc%d.bias" % i, [cout])], transB=1)
        if i < 8:
            x = n.act(x, "fc%d" % i, "relu")
        fin = cout
    return n.model(x)


def googlenet():
    """GoogLeNet (Inception v1): Szegedy et al., "Going Deeper with
    Convolutions" (CVPR 2015), Table 1; as torchvision's googlenet without the
    auxiliary classifiers (a 3x3 convolution in the "5x5" branch, pools with
    ceil_mode, BatchNormalization after every convolution)."""
    n = Net("googlenet", [1, 3, 224, 224])

    def pool(x, name, stride=2):
        return n.node("MaxPool", name, [x], kernel_shape=[3, 3], strides=[stride] * 2,
                      pads=[1] * 4 if stride == 1 else [0] * 4, ceil_mode=1)

    def inception(x, name, cin, c1, c3r, c3, c5r, c5, pp):
        b1 = n.conv(x, name + ".branch1", cin, c1, 1)
        b2 = n.conv(n.conv(x, name + ".branch2.0", cin, c3r, 1), name + ".branch2.1", c3r, c3, 3)
        b3 = n.conv(n.conv(x, name + ".branch3.0", cin, c5r, 1), name + ".branch3.1", c5r, c5, 3)
        b4 = n.conv(pool(x, name + ".branch4.0", 1), name + ".branch4.1", cin, pp, 1)
        return n.node("Concat", name + ".concat", [b1, b2, b3, b4], axis=1), c1 + c3 + c5 + pp

    x = n.conv("input", "conv1", 3, 64, 7, 2, 3)
    x = pool(x, "maxpool1")
    x = n.conv(x, "conv2", 64, 64, 1)
    x = n.conv(x, "conv3", 64, 192, 3)
    x = pool(x, "maxpool2")
    cin = 192
    for block in [("inception3a", 64, 96, 128, 16, 32, 32),
                  ("inception3b", 128, 128, 192, 32, 96, 64), "maxpool3",
                  ("inception4a", 192, 96, 208, 16, 48, 64),
                  ("inception4b", 160, 112, 224, 24, 64, 64),
                  ("inception4c", 128, 128, 256, 24, 64, 64),
                  ("inception4d", 112, 144, 288, 32, 64, 64),
                  ("inception4e", 256, 160, 320, 32, 128, 128), "maxpool4",
                  ("inception5a", 256, 160, 320, 32, 128, 128),
                  ("inception5b", 384, 192, 384, 48, 128, 128)]:
        if isinstance(block, str):
            x = pool(x, block)
        else:
            x, cin = inception(x, block[0], cin, *block[1:])
    return n.model(n.head(x, cin, 1000, dropout=True))


MODELS = {
    "mobilenet_v1": mobilenet_v1,
    "mobilenet_v2": mobilenet_v2,
    "resnet18": lambda: resnet(18),
    "resnet50": lambda: resnet(50),
    "squeezenet1_1": squeezenet,
    "tiny_yolov2": tiny_yolov2,
    "unet": unet,
    "alexnet": alexnet,
    "googlenet": googlenet,
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    only = sys.argv[2:]
    for name, make in MODELS.items():
        if only and name not in only:
            continue
        path = os.path.join(out, name + ".onnx")
        onnx.save(make(), path)
        print("%s: %d bytes" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
