"""GravityOCR decoder: vision_proj + pre-norm causal decoder (RMSNorm, RoPE rotate-half, SwiGLU).

One set of weights plays both roles (AR verifier and block-diffusion drafter); the only addition
to a plain AR model is the trainable <mask> row of `embed`. Field and weight names follow
docs/ARCHITECTURE.md. The forward takes an explicit boolean attention mask (True = may attend),
so the same module runs the clean/corrupted training streams and the decode windows.
The CTC head is a training-only alignment aid: it is never exported.
"""
import json
import math
from dataclasses import asdict, dataclass, field, fields

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GOCRConfig:
    vocab_size: int = 613
    d_model: int = 256
    n_layers: int = 4
    n_heads: int = 4
    head_dim: int = 64
    ffn_dim: int = 768
    rope_theta: float = 10000.0
    rms_eps: float = 1e-5
    vision_dim: int = 120
    max_positions: int = 2048
    block_size: int = 32
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    mask_id: int = 3
    sep_id: int = 5
    task_ids: dict = field(default_factory=lambda: {"text": 6, "table": 7, "formula": 8})

    def to_json(self):
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_dict(cls, d):
        names = {f.name for f in fields(cls)}
        missing = names - set(d)
        if missing:
            raise ValueError(f"config.json lacks {sorted(missing)}; re-run training/export.py")
        return cls(**{k: v for k, v in d.items() if k in names})

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls.from_dict(json.load(f))


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(cfg, device=None):
    """cos/sin [max_positions, head_dim/2] with theta_i = rope_theta^(-2i/head_dim)."""
    half = cfg.head_dim // 2
    inv = cfg.rope_theta ** (-torch.arange(0, half, dtype=torch.float64) * 2.0 / cfg.head_dim)
    ang = torch.arange(cfg.max_positions, dtype=torch.float64)[:, None] * inv[None, :]
    return ang.cos().float().to(device), ang.sin().float().to(device)


def apply_rope(x, cos, sin):
    """x (..., L, hd); cos/sin (..., L, hd/2) broadcastable. Rotate-half on pairs (i, i + hd/2)."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.h, self.hd = cfg.n_heads, cfg.head_dim
        inner = cfg.n_heads * cfg.head_dim
        self.wq = nn.Linear(cfg.d_model, inner, bias=False)
        self.wk = nn.Linear(cfg.d_model, inner, bias=False)
        self.wv = nn.Linear(cfg.d_model, inner, bias=False)
        self.wo = nn.Linear(inner, cfg.d_model, bias=False)
        # training-only probe: (b_idx, q_idx) rows whose head-0 attention probabilities to keep
        self.probe_rows, self.probe_out = None, None

    def forward(self, x, cos, sin, mask, add_mask=None):
        # x (B, L, d); cos/sin (B, 1, L, hd/2); mask (B, 1, L, L) bool, True = attend;
        # add_mask: the same as 0/-inf floats (CPU path, built once per forward)
        B, L, _ = x.shape
        q = self.wq(x).view(B, L, self.h, self.hd).transpose(1, 2)  # (B, H, L, hd)
        k = self.wk(x).view(B, L, self.h, self.hd).transpose(1, 2)
        v = self.wv(x).view(B, L, self.h, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if hasattr(F, "scaled_dot_product_attention") and x.is_cuda and self.probe_rows is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            att = (q * (1.0 / math.sqrt(self.hd))) @ k.transpose(-1, -2)  # (B, H, L, L)
            if add_mask is None:
                add_mask = torch.zeros(mask.shape, dtype=att.dtype, device=att.device).masked_fill_(~mask, float("-inf"))
            att = att + add_mask if att.requires_grad and self.probe_rows is not None else att.add_(add_mask)
            p = att.softmax(-1)
            if self.probe_rows is not None:
                b_idx, q_idx = self.probe_rows
                self.probe_out = p[b_idx, 0, q_idx]  # (N, L)
            y = p @ v
        return self.wo(y.transpose(1, 2).reshape(B, L, self.h * self.hd))


class SwiGLU(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.w_gate = nn.Linear(cfg.d_model, cfg.ffn_dim, bias=False)
        self.w_up = nn.Linear(cfg.d_model, cfg.ffn_dim, bias=False)
        self.w_down = nn.Linear(cfg.ffn_dim, cfg.d_model, bias=False)

    def forward(self, x):
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.rms_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.rms_eps)
        self.mlp = SwiGLU(cfg)

    def forward(self, x, cos, sin, mask, add_mask=None):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask, add_mask)
        return x + self.mlp(self.mlp_norm(x))


class GravityOCR(nn.Module):
    def __init__(self, cfg: GOCRConfig, ctc_head: bool = False):
        super().__init__()
        self.cfg = cfg
        self.vision_proj = nn.Linear(cfg.vision_dim, cfg.d_model, bias=True)
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.layers = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layers)])
        self.norm = RMSNorm(cfg.d_model, cfg.rms_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        # training-only alignment head over the vision rows (blank = pad_id); never exported
        self.ctc_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=True) if ctc_head else None
        cos, sin = rope_tables(cfg)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.apply(self._init)
        for n, p in self.named_parameters():
            if n.endswith("wo.weight") or n.endswith("w_down.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * cfg.n_layers))

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def export_state_dict(self):
        """Weights named as in docs/ARCHITECTURE.md (no training-only heads)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith("ctc_head.")}

    def n_params(self, exported=True):
        sd = self.export_state_dict() if exported else self.state_dict()
        return sum(v.numel() for v in sd.values())

    def embed_inputs(self, ids, feats=None, is_vis=None):
        """ids (B, L) long; feats (B, L, vision_dim) or None; is_vis (B, L) bool -> (B, L, d)."""
        x = self.embed(ids)
        if feats is not None:
            v = self.vision_proj(feats.to(x.dtype))
            x = torch.where(is_vis[..., None], v, x)
        return x

    def forward(self, x, pos, mask):
        """x (B, L, d) input embeddings; pos (B, L) long positions; mask (B, L, L) or (L, L) bool.
        Returns final-normed hidden states (B, L, d); apply lm_head to the rows you need."""
        if mask.dim() == 2:
            mask = mask[None]
        mask = mask[:, None]  # (B, 1, L, L)
        cos = self.rope_cos[pos][:, None]  # (B, 1, L, hd/2)
        sin = self.rope_sin[pos][:, None]
        add_mask = None
        if not x.is_cuda:
            add_mask = torch.zeros(mask.shape, dtype=x.dtype, device=x.device).masked_fill_(~mask, float("-inf"))
        for layer in self.layers:
            x = layer(x, cos, sin, mask, add_mask)
        return self.norm(x)

    def logits(self, h):
        return self.lm_head(h)
