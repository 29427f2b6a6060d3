"""Shared tools for measuring a built model: its block stack, its vocabulary, a probe input.

The measurements (`effective`, `checks`, `stepzero`) work on any `nn.Module`; they need to
find the same few things in it, always the same way.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch import nn

_VOCAB_ATTRIBUTES = ("vocab_size", "n_vocab", "num_tokens")
_POSITION_ATTRIBUTES = ("n_positions", "max_position_embeddings", "block_size", "max_seq_len", "context_length")


def measurement_finding(code: str, message: str, params: list[str], **details: Any) -> dict[str, Any]:
    """A result in the shape the runtime report turns into a `Finding` (see docs/architecture.md)."""
    return {"code": code, "message": message, "params": params, "details": details}


def block_container(model: "nn.Module") -> tuple[str, "nn.ModuleList"] | None:
    """The model's block stack: the longest `nn.ModuleList` whose children all share one class."""
    from torch import nn

    best: tuple[str, nn.ModuleList] | None = None
    for name, module in model.named_modules():
        if not isinstance(module, nn.ModuleList) or len(module) == 0:
            continue
        if len({type(child) for child in module}) != 1:
            continue
        if best is None or len(module) > len(best[1]):
            best = (name, module)
    return best


def _config_value(model: "nn.Module", names: tuple[str, ...]) -> int | None:
    for holder in (getattr(model, "config", None), model):
        for attribute in names:
            value = getattr(holder, attribute, None)
            if isinstance(value, int) and value > 0:
                return value
    return None


def vocab_size(model: "nn.Module") -> int | None:
    """From the config, else the largest embedding table; None when the model has neither."""
    from torch import nn

    found = _config_value(model, _VOCAB_ATTRIBUTES)
    if found is not None:
        return found
    tables = [module.num_embeddings for module in model.modules() if isinstance(module, nn.Embedding)]
    return max(tables) if tables else None


def max_positions(model: "nn.Module") -> int | None:
    return _config_value(model, _POSITION_ATTRIBUTES)


def random_tokens(vocab: int, batch: int, length: int, seed: int, device: Any = "cpu") -> "torch.Tensor":
    import torch

    generator = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randint(0, vocab, (batch, length), generator=generator).to(device)


def token_probe(model: "nn.Module", batch: int = 2, length: int = 16, seed: int = 0) -> "torch.Tensor":
    """A seeded batch of token ids the model accepts (length capped by its context)."""
    vocab = vocab_size(model)
    if vocab is None:
        raise ValueError("cannot tell the model's vocabulary size: pass the probe input explicitly")
    length = min(length, max_positions(model) or length)
    return random_tokens(vocab, batch, length, seed, device=model_device(model))


def model_device(model: "nn.Module") -> "torch.device":
    import torch

    for tensor in model.parameters():
        return tensor.device
    return torch.device("cpu")


@contextmanager
def evaluating(model: "nn.Module") -> Iterator[None]:
    """Eval mode without gradients, every module's training flag restored afterwards."""
    import torch

    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        for module, training in modes:
            module.training = training


def first_tensor(output: Any, preferred: tuple[str, ...] = ("logits", "last_hidden_state")) -> "torch.Tensor | None":
    """The main tensor of a forward's output: the tensor itself, `.logits`, a dict entry, a tuple's first."""
    import torch

    if isinstance(output, torch.Tensor):
        return output
    for attribute in preferred:
        value = output.get(attribute) if isinstance(output, dict) else getattr(output, attribute, None)
        if isinstance(value, torch.Tensor):
            return value
    items = output.values() if isinstance(output, dict) else output if isinstance(output, (tuple, list)) else ()
    for item in items:
        found = first_tensor(item, preferred)
        if found is not None:
            return found
    return None
