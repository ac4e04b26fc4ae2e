#!/usr/bin/python3
"""Exports memplan's ONNX model zoo into testdata/models.

Run with Debian's interpreter after
    apt-get install python3-torch python3-torchvision python3-onnx
as
    /usr/bin/python3 scripts/export_models.py [outdir]
(outdir defaults to testdata/models next to this script's parent). CI never
runs this script; its outputs are committed.

Every model has random weights (torch.manual_seed; weights=None, nothing is
downloaded), is exported with the legacy TorchScript exporter at opset 13 and
run through onnx.shape_inference, so every intermediate value carries its type
in value_info.

Two variants:
  <name>.onnx              graph only: float initializers with more than
                           KEEP_ELEMS elements keep their dims but lose their
                           data (no raw_data, no float_data). memplan's
                           importer reads such a tensor as a shape-only weight.
  <name>_full/model.onnx   every weight, plus test_data_set_0/input_0.pb and
                           output_0.pb (TensorProto, ONNX's test-data layout):
                           one seeded input and PyTorch's output for it.

The larger variants (LARGE; `large` on the command line) are the torchvision
CNNs at their natural resolution (224x224, inception_v3 299x299) with a
symbolic batch dimension "batch", graph only with every float initializer
stripped (any size), written to large/<name>.onnx. Bind the batch when
importing: planreport -onnx-dims batch=8 testdata/models/large/googlenet.onnx.
They feed the GPU study (scripts/gpu_bench.sh, scripts/torch_peers.py), which
times them with random weights on both sides.
"""

import math
import os
import sys

import onnx
import onnx.numpy_helper
import onnx.shape_inference
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 13
KEEP_ELEMS = 1024  # float initializers this small keep their data in graph-only files


# ---------------------------------------------------------------- GPT-2-like


class GPTBlock(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, self.dh).transpose(1, 2)
        k = k.view(b, t, self.heads, self.dh).transpose(1, 2)
        v = v.view(b, t, self.heads, self.dh).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.dh))
        att = F.softmax(att + self.mask[:t, :t], dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=128, d=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList([GPTBlock(d, heads, seq) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("pos", torch.arange(seq).unsqueeze(0))

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(self.pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


# ---------------------------------------------------------------- Llama-like


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, hidden, seq):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.norm1 = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.norm2 = RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        h = self.norm1(x)
        q = self.wq(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        k = self.wk(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        v = self.wv(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh) + self.mask
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.wo(y)
        h = self.norm2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, vocab=128, d=64, heads=4, hidden=172, layers=2, seq=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([LlamaBlock(d, heads, hidden, seq) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        dh = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, dh, 2).float() / dh))
        ang = torch.outer(torch.arange(seq).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())

    def forward(self, ids):
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x, self.cos, self.sin)
        return self.head(self.norm(x))


# ---------------------------------------------------------------- small UNet


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, cin=3, cout=2, w=8):
        super().__init__()
        self.d1, self.d2, self.mid = conv_block(cin, w), conv_block(w, 2 * w), conv_block(2 * w, 4 * w)
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.u2 = conv_block(4 * w, 2 * w)
        self.up1 = nn.ConvTranspose2d(2 * w, w, 2, stride=2)
        self.u1 = conv_block(2 * w, w)
        self.out = nn.Conv2d(w, cout, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        m = self.mid(F.max_pool2d(b, 2))
        y = self.u2(torch.cat((self.up2(m), b), dim=1))
        y = self.u1(torch.cat((self.up1(y), a), dim=1))
        return self.out(y)


# ---------------------------------------------------------------- opaque ops


class OpaqueNet(nn.Module):
    """A small conv net with two ops outside memplan's core set (LeakyRelu,
    and Resize from nearest-neighbour upsampling): it plans, it does not run."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.c3 = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        y = F.leaky_relu(self.c1(x), 0.1)
        y = F.leaky_relu(self.c2(F.max_pool2d(y, 2)), 0.1)
        return self.c3(F.interpolate(y, scale_factor=2.0, mode="nearest"))


# ---------------------------------------------------------------- the zoo


def randomize_bn(model):
    """Gives BatchNorm layers non-trivial running statistics and affine terms,
    so an importer that ignored them would be caught by the reference output."""
    g = torch.Generator().manual_seed(7)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
            m.running_var.copy_(0.5 + torch.rand(n, generator=g))
            m.weight.data.copy_(1.0 + 0.1 * torch.randn(n, generator=g))
            m.bias.data.copy_(0.1 * torch.randn(n, generator=g))


def image_input(shape):
    return lambda g: torch.randn(*shape, generator=g)


def token_input(vocab, seq):
    return lambda g: torch.randint(0, vocab, (1, seq), generator=g, dtype=torch.int64)


# name -> (constructor, input maker, write a full variant)
ZOO = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), image_input((1, 3, 64, 64)), False),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), image_input((1, 3, 64, 64)), False),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(weights=None), image_input((1, 3, 64, 64)), True),
    "densenet121": (lambda: torchvision.models.densenet121(weights=None), image_input((1, 3, 64, 64)), False),
    "googlenet": (
        lambda: torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True),
        image_input((1, 3, 64, 64)),
        False,
    ),
    "gpt2_tiny": (lambda: GPT(), token_input(128, 16), True),
    "llama_tiny": (lambda: Llama(), token_input(128, 16), True),
    "unet_small": (lambda: UNet(), image_input((1, 3, 32, 32)), True),
    "opaque_convnet": (lambda: OpaqueNet(), image_input((1, 3, 32, 32)), False),
}


# name -> (constructor, input shape without the batch dimension): the larger
# variants of the GPU study, exported with a symbolic batch by export_large.
LARGE = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(weights=None), (3, 224, 224)),
    "densenet121": (lambda: torchvision.models.densenet121(weights=None), (3, 224, 224)),
    "googlenet": (lambda: torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True), (3, 224, 224)),
    "inception_v3": (
        lambda: torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=True), (3, 299, 299)),
}


def build(name, large=False):
    """Returns (model in eval mode with the zoo's seeded random weights, input
    maker taking a torch.Generator and a batch size). Shared with
    scripts/torch_peers.py, so both sides time the same architectures."""
    torch.manual_seed(0)
    if large:
        make, shape = LARGE[name]
        make_input = lambda g, batch=1: torch.randn(batch, *shape, generator=g)
    else:
        make, zoo_input, _ = ZOO[name]
        make_input = lambda g, batch=1: zoo_input(g)
    model = make()
    randomize_bn(model)
    model.eval()
    return model, make_input


def export_large(name, outdir):
    model, make_input = build(name, large=True)
    x = make_input(torch.Generator().manual_seed(1), 1)
    sub = os.path.join(outdir, "large")
    os.makedirs(sub, exist_ok=True)
    path = os.path.join(sub, name + ".onnx")
    torch.onnx.export(
        model, (x,), path, opset_version=OPSET, do_constant_folding=True,
        input_names=["input"], output_names=["output"],
        dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
    )
    m = onnx.shape_inference.infer_shapes(onnx.load(path))
    onnx.checker.check_model(m)
    strip(m, keep=0)
    m.doc_string = "memplan zoo: %s %s, random weights, opset %d, symbolic batch, graph only (float initializers keep dims, no data)" % (
        name, "x".join(map(str, x.shape[1:])), OPSET)
    onnx.save(m, path)
    print("large/%-14s %8d bytes graph-only" % (name, os.path.getsize(path)))


def export(name, full, outdir):
    model, make_input = build(name)
    x = make_input(torch.Generator().manual_seed(1))
    with torch.no_grad():
        y = model(x)
    # Models with ops outside memplan's core set go to a subfolder, so that
    # tools that run every top-level model of the zoo do not pick them up.
    sub = os.path.join(outdir, "opaque") if name.startswith("opaque_") else outdir
    os.makedirs(sub, exist_ok=True)
    path = os.path.join(sub, name + ".onnx")
    torch.onnx.export(
        model, (x,), path, opset_version=OPSET, do_constant_folding=True,
        input_names=["input"], output_names=["output"],
    )
    m = onnx.shape_inference.infer_shapes(onnx.load(path))
    onnx.checker.check_model(m)
    m.doc_string = "memplan zoo: %s, random weights (seed 0), opset %d" % (name, OPSET)
    if full:
        d = os.path.join(outdir, name + "_full")
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for fname, t, tname in (("input_0.pb", x, "input"), ("output_0.pb", y, "output")):
            tp = onnx.numpy_helper.from_array(t.numpy(), tname)
            with open(os.path.join(d, "test_data_set_0", fname), "wb") as f:
                f.write(tp.SerializeToString())
    strip(m)
    m.doc_string += ", graph only (large float initializers keep dims, no data)"
    onnx.save(m, path)
    print("%-14s %8d bytes graph-only%s" % (name, os.path.getsize(path), ", full variant" if full else ""))


def strip(m, keep=KEEP_ELEMS):
    floats = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}
    for t in m.graph.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if t.data_type in floats and n > keep:
            t.ClearField("raw_data")
            t.ClearField("float_data")
            t.ClearField("double_data")
            t.ClearField("int32_data")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "testdata", "models")
    os.makedirs(outdir, exist_ok=True)
    only = set(sys.argv[2:])
    for name, (_, _, full) in ZOO.items():
        if not only or name in only:
            export(name, full, outdir)
    for name in LARGE:
        if not only or "large" in only or "large/" + name in only:
            export_large(name, outdir)


if __name__ == "__main__":
    main()
