"""Inputs for the robustness, fuzz and no-import tests, all written here (nothing copied).

`nano_gpt(...)` is a small nanoGPT-style model in the common shape: attention and MLP blocks
added into the residual stream, an `_init_weights` applied with `self.apply`, and optionally the
GPT-2 depth scaling of the two residual writers. `ADVERSARIAL` maps a case name to a whole
source file built to make a static analysis recurse, loop or blow up.
"""

from __future__ import annotations

NANO_GPT = """\
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GPTConfig:
    block_size: int = 256
    vocab_size: int = 4096
    n_layer: int = 8
    n_head: int = 8
    n_embd: int = 256
    dropout: float = 0.0
    bias: bool = False


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
{scaling}
    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)
"""

DEPTH_SCALING = """\
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
"""


def nano_gpt(scaled: bool = True) -> str:
    return NANO_GPT.format(scaling=DEPTH_SCALING if scaled else "")


def _with_init(body: str) -> str:
    """`nano_gpt()` with the `_init_weights` body's std replaced by `body` (an expression)."""
    return nano_gpt(scaled=False).replace(
        "torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)\n            if",
        f"torch.nn.init.normal_(module.weight, mean=0.0, std={body})\n            if",
    )


def recursive_hierarchy() -> str:
    return (
        nano_gpt()
        + """

class A(B):
    pass


class B(A):
    def __init__(self):
        super().__init__()
        self.c_proj = nn.Linear(4, 4)


class C(C):
    pass


class Loop(Loop, nn.Module):
    def forward(self, x):
        return x + self.forward(x)


class Outer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.inner = Inner(config)
        self.h = nn.ModuleList([Outer(config) for _ in range(config.n_layer)])

    def forward(self, x):
        return x + self.inner(x)


class Inner(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.outer = Outer(config)
        self.c_proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.c_proj(self.outer(x))
"""
    )


def self_referencing_aliases() -> str:
    return """\
import math
import torch
import torch.nn as nn
nn = nn
torch = torch.torch
init = nn.init
init = init
a = b
b = a
math = math.math
L = L


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        config = config.config
        self.c_proj = self.c_proj
        self.c_fc = nn.Linear(config.n_embd, config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.alias = self.alias.alias

    def forward(self, x):
        x = x + self.c_proj(self.c_fc(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        n = n_layer = L = config.n_layer
        n_layer = n_layer
        self.h = nn.ModuleList([Block(config) for _ in range(n_layer)])
        self.apply(self._init_weights)
        std = std * 2
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                std = std / math.sqrt(2 * L)
                init.normal_(p, std=std)

    def _init_weights(self, module):
        self._init_weights(module)
        self.apply(self._init_weights)
        if isinstance(module, nn.Linear):
            init.normal_(module.weight, std=self.std)

    def forward(self, x):
        for block in self.h:
            x = block(x)
        return x
"""


def huge_std_expressions(terms: int) -> str:
    product = " * ".join(["1.0"] * terms)
    return _with_init(f"0.02 / math.sqrt(2 * self.config.n_layer) * {product}")


def sum_of_terms(terms: int) -> str:
    return _with_init(" + ".join(["0.0001"] * terms))


def nested_parentheses(depth: int) -> str:
    return _with_init("(" * depth + "0.02" + ")" * depth)


def exec_built_classes() -> str:
    return (
        nano_gpt()
        + """

exec("class Ghost(nn.Module):\\n    def __init__(self):\\n        super().__init__()\\n        self.c_proj = nn.Linear(4, 4)\\n")
Phantom = type("Phantom", (nn.Module,), {"forward": lambda self, x: x + self.c_proj(x)})
Spectre = type("Spectre", (Phantom, Ghost), dict(c_proj=nn.Linear(4, 4)))
globals()["Wraith"] = type("Wraith", (nn.Module,), {})
eval(compile("class Shade(nn.Module): pass", "<s>", "exec"))


class Haunted(Spectre):
    def __init__(self, config):
        super().__init__()
        exec("self.c_proj = nn.Linear(4, 4)")
        setattr(self, "c_proj", nn.Linear(4, 4))
        self.h = nn.ModuleList([eval("Block")(config) for _ in range(config.n_layer)])
"""
    )


def decorators_everywhere(chain: int) -> str:
    decorators = "".join("@functools.lru_cache(maxsize=None)\n" if i % 2 else "@staticmethod\n" for i in range(chain))
    indented = "".join("    " + line + "\n" for line in decorators.splitlines())
    source = nano_gpt()
    source = source.replace("\nclass ", "\n" + decorators + "@dataclass\n@torch.no_grad()\nclass ")
    source = source.replace("\n    def ", "\n" + indented + "    @(lambda f: f)\n    @torch.jit.ignore\n    def ")
    return "import functools\n" + source


def nested_functions(levels: int) -> str:
    lines = ["import torch.nn as nn", ""]
    for level in range(levels):
        lines.append("    " * level + f"def f{level}(x):")
    lines.append("    " * levels + "return nn.Linear(4, 4)")
    return "\n".join(lines) + "\n"


def long_inheritance_chain(classes: int) -> str:
    lines = ["import torch.nn as nn", "", "class C0(nn.Module):", "    pass", ""]
    for index in range(1, classes):
        lines += [
            f"class C{index}(C{index - 1}):",
            "    def forward(self, x):",
            "        return x + super().forward(x)",
            "",
        ]
    return "\n".join(lines) + "\n"


def endless_loops() -> str:
    return (
        nano_gpt()
        + """

class Spin(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(10 ** 12)])
        while True:
            nn.init.normal_(self.c_proj.weight, std=0.02)
        for i in range(10 ** 15):
            self.c_proj.weight.data.mul_(0.5)
            self.h.append(Spin(config))

    def forward(self, x):
        while x is not None:
            x = x + self.c_proj(x)
        return self.forward(x)
"""
    )


def generated_file(lines: int) -> str:
    """A generated module of `lines` lines: many small model classes and a big table."""
    parts = ["import torch", "import torch.nn as nn", ""]
    index = 0
    while len(parts) < lines - 12:
        parts += [
            f"class Generated{index}(nn.Module):",
            "    def __init__(self, d=64):",
            "        super().__init__()",
            "        self.c_fc = nn.Linear(d, 4 * d)",
            "        self.c_proj = nn.Linear(4 * d, d)",
            "",
            "    def forward(self, x):",
            "        return x + self.c_proj(torch.relu(self.c_fc(x)))",
            "",
        ]
        index += 1
    parts.append("TABLE = [" + ", ".join(str(i) for i in range(2000)) + "]")
    while len(parts) < lines:
        parts.append("")
    return "\n".join(parts[:lines]) + "\n"


#: name -> source; each must be analysed (or refused with INI901) quickly, never crash.
ADVERSARIAL = {
    "recursive class hierarchy": recursive_hierarchy(),
    "self-referencing aliases": self_referencing_aliases(),
    "std with a 900-factor product": huge_std_expressions(900),
    "std with a 10,000-term sum": sum_of_terms(10_000),
    "std in 90 nested parentheses": nested_parentheses(90),
    "std in 500 nested parentheses": nested_parentheses(500),
    "exec-built classes": exec_built_classes(),
    "decorators everywhere": decorators_everywhere(30),
    "99 nested functions": nested_functions(99),
    "100 nested functions": nested_functions(100),
    "300-class inheritance chain": long_inheritance_chain(300),
    "endless loops": endless_loops(),
}
