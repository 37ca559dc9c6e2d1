"""The bundled model's networks.

`shapesnet` (shipped): a compact encoder-decoder of plain 3x3 convolutions, output stride 4, so a 256x256
input gives 5 x 64 x 64 logits, which edgeseg's postprocessing upsamples. The encoder reaches stride 32
with dilations and a global-context gate, so a pixel sees whole shapes. Plain convolutions rather than
depthwise-separable ones: on the CPUs this is trained and run on (and in onnxruntime's WASM kernels)
they are faster per useful FLOP. About 0.3 GMAC at 256x256.

`lraspp-small`: torchvision's LRASPP head on a dilated MobileNetV3-Small (output stride 8), tried as an
alternative; models/README.md has how far it got here.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class Conv(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1, kernel: int = 3):
        padding = dilation if kernel == 3 else 0
        super().__init__(
            nn.Conv2d(cin, cout, kernel, stride, padding=padding, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class Residual(nn.Module):
    def __init__(self, channels: int, dilation: int = 1):
        super().__init__()
        self.body = Conv(channels, channels, dilation=dilation)

    def forward(self, x):
        return x + self.body(x)


class ShapesNet(nn.Module):
    def __init__(self, classes: int = 5, width: tuple = (16, 32, 64, 96, 128)):
        super().__init__()
        c0, c1, c2, c3, c4 = width
        self.stem = Conv(3, c0, stride=2)  # /2
        self.enc1 = Conv(c0, c1, stride=2)  # /4
        self.enc2 = nn.Sequential(Conv(c1, c2, stride=2), Residual(c2))  # /8
        self.enc3 = nn.Sequential(Conv(c2, c3, stride=2), Residual(c3), Residual(c3, 2))  # /16
        self.enc4 = nn.Sequential(Conv(c3, c4, stride=2), Residual(c4, 2), Residual(c4, 4))  # /32
        self.context = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c4, c4, 1), nn.Sigmoid())
        self.dec3 = Conv(c4 + c3, c3)
        self.dec2 = Conv(c3 + c2, 48)
        self.dec1 = Conv(48 + c1, 32, kernel=1)
        self.head = nn.Conv2d(32, classes, 1)

    @staticmethod
    def _up(x, like):
        return F.interpolate(x, size=like.shape[-2:], mode="bilinear", align_corners=False)

    def forward(self, x):
        s4 = self.enc1(self.stem(x))
        s8 = self.enc2(s4)
        s16 = self.enc3(s8)
        s32 = self.enc4(s16)
        s32 = s32 * self.context(s32)
        d = self.dec3(torch.cat([self._up(s32, s16), s16], 1))
        d = self.dec2(torch.cat([self._up(d, s8), s8], 1))
        d = self.dec1(torch.cat([self._up(d, s4), s4], 1))
        return self.head(d)


class HardSwish(nn.Module):
    """x * hardsigmoid(x), as nn.Hardswish computes it, exported as HardSigmoid + Mul (ops every
    onnxruntime-web execution provider has, where HardSwish is not on all of them)."""

    def forward(self, x):
        return x * F.hardsigmoid(x)


class LRASPPSmall(nn.Module):
    """torchvision's LRASPP head on a dilated MobileNetV3-Small, from scratch (no pretrained weights here).

    Logits at output stride 8 (32 x 32 for a 256 x 256 input): edgeseg's postprocessing upsamples them to
    the image, so the network does not. 1.08M parameters, a 4.3 MB ONNX file.
    """

    def __init__(self, classes: int = 5):
        super().__init__()
        from torchvision.models import mobilenet_v3_small
        from torchvision.models._utils import IntermediateLayerGetter
        from torchvision.models.segmentation.lraspp import LRASPPHead

        features = mobilenet_v3_small(dilated=True).features
        for module in list(features.modules()):
            for name, child in module.named_children():
                if isinstance(child, nn.Hardswish):
                    setattr(module, name, HardSwish())
        stages = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
        low, high = stages[-4], stages[-1]
        self.backbone = IntermediateLayerGetter(features, {str(low): "low", str(high): "high"})
        self.head = LRASPPHead(features[low].out_channels, features[high].out_channels, classes, 128)

    def forward(self, x):
        return self.head(self.backbone(x))


ARCHS = {"shapesnet": ShapesNet, "lraspp-small": LRASPPSmall}
