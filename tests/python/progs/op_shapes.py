"""Runs one call each of mm, addmm (through F.linear), a 2-D convolution and a layer norm on the CPU, for
`perfscope record --python-hooks=shapes`; tests/python/python_tests.sh checks the report's operator model
against FLOPs worked out by hand from these shapes."""
import torch
import torch.nn.functional as F

with torch.no_grad():
    a = torch.randn(64, 128)
    b = torch.randn(128, 32)
    torch.mm(a, b)                                        # mm M=64 N=32 K=128
    x = torch.randn(16, 256)
    w = torch.randn(512, 256)
    bias = torch.randn(512)
    F.linear(x, w, bias)                                  # addmm M=16 N=512 K=256, bias
    img = torch.randn(2, 3, 32, 32)
    cw = torch.randn(8, 3, 3, 3)
    F.conv2d(img, cw, None, stride=1, padding=1)          # out [2, 8, 32, 32]
    h = torch.randn(4, 10, 64)
    F.layer_norm(h, (64,), torch.ones(64), torch.zeros(64))
print("ops done")
