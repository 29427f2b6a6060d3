"""Cross-entropy at step zero: the output scale of a language model against ln(vocab).

With targets drawn independently of the inputs, no model can beat ln V; Gaussian logits of
std s add about s^2/2 on top (E[logsumexp] ~ ln V + s^2/2 for small s), so a correct init
(logit std ~0.6) sits near ln V + 0.2, while a tied embedding or head left at std 1 makes
the logits' std ~sqrt(width) and the loss tens of nats higher. Depth scaling is invisible
here (the final norm hides it): the effective writer stds and the stream variance see it.
Targets equal to the inputs would be wrong with tied embeddings: each token's own logit is
then large, and the loss drops below ln V.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from initlint.runtime.probe import evaluating, first_tensor, measurement_finding, random_tokens, token_probe

if TYPE_CHECKING:  # pragma: no cover
    from torch import nn

#: Excess loss (nats) above which the output scale is reported: a logit std of ~1.4.
EXCESS_LIMIT = 1.0


@dataclass(frozen=True)
class StepZeroResult:
    vocab_size: int
    loss: float
    ln_vocab: float
    logit_std: float
    targets: int
    output_parameters: tuple[str, ...]  # parameters with a vocabulary-sized dimension: embedding, head

    @property
    def excess(self) -> float:
        return self.loss - self.ln_vocab

    @property
    def flagged(self) -> bool:
        return self.excess > EXCESS_LIMIT


def step_zero_loss(model: "nn.Module", batch: int = 2, length: int = 16, seed: int = 0) -> StepZeroResult:
    """Mean cross-entropy of the model's logits on random tokens against independent targets.

    32 targets are plenty: a per-token loss varies by about the logit std (~0.6 when correct),
    so the mean is known to ~0.1 nats against a 1-nat limit; the forward costs in tokens.
    """
    import torch.nn.functional as F

    tokens = token_probe(model, batch, length, seed)
    with evaluating(model):
        logits = first_tensor(model(tokens), preferred=("logits",))
    if logits is None or not logits.is_floating_point() or logits.dim() < 2:
        raise ValueError("the model's output holds no logits tensor (expected a tensor, `.logits` or a tuple)")
    vocab = logits.shape[-1]
    flat = logits.detach().double().reshape(-1, vocab)
    # Models that return only the last position (nanoGPT without targets) get fewer targets.
    targets = random_tokens(vocab, 1, flat.shape[0], seed + 1, device=flat.device).reshape(-1)
    loss = float(F.cross_entropy(flat, targets))
    output_parameters = _vocabulary_tables(model, vocab)
    return StepZeroResult(vocab, loss, math.log(vocab), float(flat.std()), flat.shape[0], output_parameters)


def _vocabulary_tables(model: "nn.Module", vocab: int) -> tuple[str, ...]:
    """Token embeddings and the output head (the last vocabulary-wide linear; a hidden layer
    may be as wide): the weights that set the logits' scale, each tied tensor once."""
    from torch import nn

    embeddings = [
        (name, module)
        for name, module in model.named_modules()
        if isinstance(module, nn.Embedding) and module.num_embeddings == vocab
    ]
    heads = [
        (name, module)
        for name, module in model.named_modules()
        if isinstance(module, nn.Linear) and module.out_features == vocab
    ]
    names: dict[int, str] = {}
    for name, module in embeddings + heads[-1:]:
        names.setdefault(id(module.weight), f"{name}.weight" if name else "weight")
    return tuple(names.values())


def step_zero_findings(result: StepZeroResult) -> list[dict[str, Any]]:
    if not result.flagged:
        return []
    message = (
        f"step-zero cross-entropy {result.loss:.3g} on random tokens vs ln({result.vocab_size})"
        f" = {result.ln_vocab:.3g} (+{result.excess:.3g} nats; logit std {result.logit_std:.3g}):"
        " an embedding or output head is initialised too large"
    )
    return [
        measurement_finding(
            "INI107",
            message,
            list(result.output_parameters),
            loss=result.loss,
            ln_vocab=result.ln_vocab,
            excess=result.excess,
            logit_std=result.logit_std,
        )
    ]
