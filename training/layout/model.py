"""Layout detector network: a small one-stage FCOS-style detector with a single stride-8 head.

Backbone of depthwise-separable blocks down to stride 64 (the receptive field must cover a
full-width paragraph from its centre), a top-down FPN back to stride 8, and one head giving per
cell: class logits (C), ltrb distances (4, log space, in input pixels) and centerness (1).
`decode()` turns raw heads into per-cell scores and boxes; the exported ONNX includes it, so the
TS side only thresholds, rescales, clips and runs NMS.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, k=3, s=1, groups=1, dil=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, s, padding=dil * (k // 2), dilation=dil, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


class DS(nn.Module):
    """Depthwise 3x3 (optionally strided / dilated) + pointwise 1x1, residual when shapes match."""

    def __init__(self, cin, cout, s=1, dil=1):
        super().__init__()
        self.dw = conv_bn(cin, cin, 3, s, groups=cin, dil=dil)
        self.pw = conv_bn(cin, cout, 1, act=False)
        self.res = s == 1 and cin == cout

    def forward(self, x):
        y = self.pw(self.dw(x))
        return F.relu(y + x) if self.res else F.relu(y)


class LayoutNet(nn.Module):
    def __init__(self, num_classes, width=64, fpn_dim=96, stride=8):
        super().__init__()
        assert stride == 8
        w = width
        self.num_classes = num_classes
        self.stem = nn.Sequential(conv_bn(1, 16, 3, 2), DS(16, w // 2, 2), DS(w // 2, w // 2))  # /4
        self.s8 = nn.Sequential(DS(w // 2, w, 2), DS(w, w), DS(w, w))                            # /8
        self.s16 = nn.Sequential(DS(w, 2 * w, 2), DS(2 * w, 2 * w), DS(2 * w, 2 * w, dil=2))        # /16
        self.s32 = nn.Sequential(DS(2 * w, 3 * w, 2), DS(3 * w, 3 * w), DS(3 * w, 3 * w, dil=2))    # /32
        self.s64 = nn.Sequential(DS(3 * w, 3 * w, 2), DS(3 * w, 3 * w), DS(3 * w, 3 * w, dil=2))    # /64
        d = fpn_dim
        self.lat = nn.ModuleList([conv_bn(c, d, 1, act=False) for c in (w, 2 * w, 3 * w, 3 * w)])
        self.smooth = nn.ModuleList([DS(d, d) for _ in range(3)])
        self.tower = nn.Sequential(DS(d, d), DS(d, d, dil=2), DS(d, d))
        self.cls = nn.Conv2d(d, num_classes, 1)
        self.reg = nn.Conv2d(d, 4, 1)
        self.ctr = nn.Conv2d(d, 1, 1)
        nn.init.constant_(self.cls.bias, -math.log((1 - 0.01) / 0.01))
        nn.init.normal_(self.cls.weight, std=0.01)
        nn.init.normal_(self.reg.weight, std=0.01)
        nn.init.constant_(self.reg.bias, math.log(4.0))  # start at ~4 cells (32 px) each side
        nn.init.normal_(self.ctr.weight, std=0.01)
        nn.init.zeros_(self.ctr.bias)

    def forward(self, x):  # x: (N, 1, H, W)
        c4 = self.stem(x)
        c8 = self.s8(c4)
        c16 = self.s16(c8)
        c32 = self.s32(c16)
        c64 = self.s64(c32)
        p = self.lat[3](c64)
        for lvl, c in ((2, c32), (1, c16), (0, c8)):
            p = F.interpolate(p, size=c.shape[-2:], mode="nearest") + self.lat[lvl](c)
            p = self.smooth[lvl](p)
        t = self.tower(p)                       # (N, d, H/8, W/8)
        return self.cls(t), self.reg(t), self.ctr(t)


def grid_centers(h, w, stride, device=None):
    """Cell centres in input pixels: (h*w, 2) as (x, y), row-major like the flattened heads."""
    ys = (torch.arange(h, device=device, dtype=torch.float32) + 0.5) * stride
    xs = (torch.arange(w, device=device, dtype=torch.float32) + 0.5) * stride
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack([gx.reshape(-1), gy.reshape(-1)], 1)


def decode_ltrb(reg):
    """raw reg (N, 4, h, w) -> ltrb distances in input px (N, h*w, 4)."""
    n = reg.shape[0]
    return torch.exp(reg.clamp(max=7.0)).reshape(n, 4, -1).permute(0, 2, 1)


def decode(cls, reg, ctr, stride):
    """Raw heads -> scores (N, h*w, C) = sqrt(sigmoid(cls) * sigmoid(ctr)), boxes (N, h*w, 4) x0y0x1y1."""
    n, c, h, w = cls.shape
    centers = grid_centers(h, w, stride, cls.device)  # (hw, 2)
    d = decode_ltrb(reg)
    x0 = centers[None, :, 0] - d[..., 0]
    y0 = centers[None, :, 1] - d[..., 1]
    x1 = centers[None, :, 0] + d[..., 2]
    y1 = centers[None, :, 1] + d[..., 3]
    boxes = torch.stack([x0, y0, x1, y1], -1)
    p = torch.sigmoid(cls).reshape(n, c, -1).permute(0, 2, 1)
    q = torch.sigmoid(ctr).reshape(n, 1, -1).permute(0, 2, 1)
    return torch.sqrt(p * q), boxes


class ExportWrapper(nn.Module):
    """What the ONNX file computes: image (N,1,H,W) -> scores (N,HW,C), boxes (N,HW,4)."""

    def __init__(self, net, stride):
        super().__init__()
        self.net = net
        self.stride = stride

    def forward(self, image):
        cls, reg, ctr = self.net(image)
        return decode(cls, reg, ctr, self.stride)


def count_params(m):
    return sum(p.numel() for p in m.parameters())
