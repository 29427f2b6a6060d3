"""Residual writers by observation: block shapes where names or hooks mislead."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from initlint.runtime import verify  # noqa: E402
from initlint.runtime.writers import map_forward  # noqa: E402

WIDTH, VOCAB, DEPTH = 16, 32, 2


class Conv1D(nn.Module):
    """The HF GPT-2 layout: weight [in, out], applied with addmm."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(*x.shape[:-1], -1)


class LM(nn.Module):
    """Embedding -> blocks -> norm -> head; `block` builds each block."""

    def __init__(self, block, depth: int = DEPTH) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.ModuleList(block() for _ in range(depth))
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def writers_of(block, depth: int = DEPTH):
    with torch.device("meta"):
        model = LM(block, depth)
    fmap = map_forward(model, (torch.zeros(1, 4, dtype=torch.long, device="meta"),))
    return sorted({name.split(".", 2)[2] for name in fmap.writer_names}), fmap


class MHABlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(WIDTH)
        self.attn = nn.MultiheadAttention(WIDTH, 2, batch_first=True)

    def forward(self, x):
        h = self.ln(x)
        return x + self.attn(h, h, h, need_weights=False)[0]


class ConvBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(WIDTH)
        self.c_fc, self.c_proj = Conv1D(WIDTH, 4 * WIDTH), Conv1D(4 * WIDTH, WIDTH)

    def forward(self, x):
        h = self.c_fc(self.ln(x))
        h = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * torch.pow(h, 3))))  # GELU by hand
        return x + self.c_proj(h)


class ParallelBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(WIDTH)
        self.attn_out, self.fc, self.mlp_out = nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        h = self.ln(x)
        return x + self.attn_out(h) + self.mlp_out(F.gelu(self.fc(h)))


class PostNormBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc, self.out, self.ln = nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH), nn.LayerNorm(WIDTH)

    def forward(self, x):
        return self.ln(x + self.out(F.relu(self.fc(x))))


class SwiGLU(nn.Module):
    """`output` names the projection that writes: w2 Meta-style, w3 xformers-style."""

    def __init__(self, output: str) -> None:
        super().__init__()
        self.output = output
        self.norm = nn.LayerNorm(WIDTH)
        self.w1, self.w2, self.w3 = (nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(3))

    def forward(self, x):
        h = self.norm(x)
        if self.output == "w2":
            return x + self.w2(F.silu(self.w1(h)) * self.w3(h))
        return x + self.w3(F.silu(self.w1(h)) * self.w2(h))


def test_multihead_attention_out_proj_is_seen_without_hooks():
    names, fmap = writers_of(MHABlock)
    assert names == ["attn.out_proj.weight"]
    assert len(fmap.writes) == DEPTH


def test_hf_conv1d_and_hand_written_gelu():
    names, fmap = writers_of(ConvBlock)
    assert names == ["c_proj.weight"]  # not c_fc: GELU's h + 0.044715 h**3 is no residual add
    assert fmap.roles["blocks.0.c_fc.weight"] == "linear" and fmap.roles["blocks.0.c_fc.bias"] == "bias"


def test_parallel_block_has_two_writers_per_block():
    names, fmap = writers_of(ParallelBlock)
    assert names == ["attn_out.weight", "mlp_out.weight"] and len(fmap.writes) == 2 * DEPTH
    assert not fmap.post_norm


class ParallelBranches(nn.Module):
    """PaLM's parallel block without its residual: both outputs summed in one expression; the
    parent adds the sum into the stream (`x + block(x)`)."""

    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(WIDTH)
        self.attn_out, self.ff_in, self.ff_out = (nn.Linear(WIDTH, WIDTH) for _ in range(3))

    def forward(self, x):
        h = self.ln(x)
        return self.attn_out(h) + self.ff_out(F.gelu(self.ff_in(h))) * 0.5


class Residual(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return x + self.inner(x)


def test_a_sum_of_branches_added_by_the_parent_writes_with_both_weights():
    names, fmap = writers_of(lambda: Residual(ParallelBranches()))
    assert names == ["inner.attn_out.weight", "inner.ff_out.weight"] and len(fmap.writes) == 2 * DEPTH
    assert fmap.roles["blocks.0.inner.ff_in.weight"] == "linear"
    factors = fmap.factors()
    assert factors["blocks.1.inner.attn_out.weight"] == 1.0 and factors["blocks.1.inner.ff_out.weight"] == 0.5
    assert fmap.layers == DEPTH  # both branches read the same stream state


def test_post_norm_is_recognised():
    names, fmap = writers_of(PostNormBlock)
    assert names == ["out.weight"] and fmap.post_norm


@pytest.mark.parametrize("output", ["w2", "w3"])
def test_swiglu_writer_follows_the_data_flow(output):
    names, _ = writers_of(lambda: SwiGLU(output))
    assert names == [f"{output}.weight"]


def test_roles_and_head():
    _, fmap = writers_of(MHABlock)
    assert fmap.roles["emb.weight"] == "embedding"
    assert fmap.roles["head.weight"] == "head"
    assert fmap.roles["norm.weight"] == "norm-gain" and fmap.roles["norm.bias"] == "norm-bias"


class ScaledBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln, self.proj = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        return torch.add(x, self.proj(self.ln(x)) / 4, alpha=0.5)


def test_runtime_factors_between_writer_and_add_are_recorded():
    _, fmap = writers_of(ScaledBlock)
    assert set(fmap.factors().values()) == {0.125}


class OffsetNorm(nn.Module):
    """Gemma-style: the gain is (1 + w), so w = 0 means unit gain."""

    def __init__(self, start: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.full((WIDTH,), start))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * (1 + self.weight)


def offset_norm_model(start: float):
    model = LM(ConvBlock)
    model.norm = OffsetNorm(start)
    with torch.no_grad():
        for block in model.blocks:
            block.c_proj.weight.normal_(0, 0.02 / math.sqrt(2 * DEPTH) * math.sqrt(2))  # 1 write per block
        model.emb.weight.normal_(0, 0.02)
        model.head.weight.normal_(0, 0.02)
    return model


def test_norm_gains_are_judged_by_their_effect():
    assert verify(lambda: offset_norm_model(0.0), policy="gpt2", materialize=False).ok
    report = verify(lambda: offset_norm_model(1.0), policy="gpt2", materialize=False)
    assert report.codes() == ["INI102"]
    assert report.findings[0].params == ["norm.weight"] and "gain w+1 = 2" in report.findings[0].message


class NoEmbedding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x


def test_input_shape_seeds_the_stream_for_models_without_tokens():
    report = verify(NoEmbedding, policy="gpt2", materialize=False, input_shape=(2, 8))
    rows = {row.name: row for row in report.models[0].rows}
    assert rows["blocks.0.weight"].role == "writer"
    assert rows["blocks.0.weight"].expected == f"std {0.02 / math.sqrt(3):.4g} (0.02/sqrt(3))"
    silent = verify(NoEmbedding, policy="gpt2", materialize=False)
    assert any("--input-shape" in note for note in silent.models[0].notes)


def post_norm_model(writer_std: float):
    model = LM(PostNormBlock, depth=4)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.dim() == 2:
                param.normal_(0, writer_std if name.endswith("out.weight") else 0.02)
            elif name.endswith("bias"):
                param.zero_()
    return model


def test_post_norm_writers_need_no_depth_factor():
    assert verify(lambda: post_norm_model(0.02), materialize=False).ok
    report = verify(lambda: post_norm_model(0.02 / math.sqrt(8)), materialize=False)
    assert report.codes() == ["INI101"] and "expects std 0.02" in report.findings[0].message


class RoutedExperts(nn.Module):
    """Top-1 routing with data-dependent shapes: cannot run on meta."""

    def __init__(self) -> None:
        super().__init__()
        self.ln, self.router = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, 2, bias=False)
        self.experts = nn.ModuleList(nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(2))

    def forward(self, x):
        h = self.ln(x).reshape(-1, WIDTH)
        choice = self.router(h).argmax(-1)
        out = torch.zeros_like(h)
        for index, expert in enumerate(self.experts):
            rows = torch.nonzero(choice == index).flatten().tolist()  # needs real values
            if rows:
                out[rows] = expert(h[rows])
        return x + out.view_as(x)


def test_meta_forward_failure_falls_back_to_a_real_cpu_build_and_says_so():
    def build():
        torch.manual_seed(0)
        return LM(RoutedExperts)

    report = verify(build, policy="gpt2", materialize=False)
    notes = report.models[0].notes
    assert any(note.startswith("writers found on a real CPU build: the meta forward failed") for note in notes), notes
    roles = {row.name: row.role for row in report.models[0].rows}
    assert roles["blocks.0.router.weight"] == "linear"
    assert {roles[f"blocks.0.experts.{i}.weight"] for i in range(2)} <= {"writer", "unused"}
    assert "writer" in {roles[f"blocks.{b}.experts.{i}.weight"] for b in range(DEPTH) for i in range(2)}


class LearnedPositions(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.pos = nn.Parameter(torch.zeros(1, 4, WIDTH))
        self.block = ScaledBlock()

    def forward(self, ids):
        return self.block(self.emb(ids) + self.pos)


def test_a_parameter_table_added_to_the_stream_is_a_position_embedding():
    with torch.device("meta"):
        model = LearnedPositions()
    fmap = map_forward(model, (torch.zeros(1, 4, dtype=torch.long, device="meta"),))
    assert fmap.roles["pos"] == "position" and fmap.roles["block.proj.bias"] == "bias"


class NeedsTwoInputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.proj = nn.Parameter(torch.empty(WIDTH, WIDTH))

    def forward(self, ids, decoder_ids):
        return self.emb(ids) + self.emb(decoder_ids) @ self.proj


def test_a_forward_that_cannot_run_is_a_finding_next_to_the_trace_findings():
    report = verify(NeedsTwoInputs, policy="gpt2", materialize=False)
    # The trace still sees the never-written `proj`; the writers went unverified (INI110).
    assert sorted(report.codes()) == ["INI103", "INI110"]
    [failed] = [item for item in report.models[0].findings if item.code == "INI110"]
    assert "residual writers not observed" in failed.message and "needs decoder_ids" in failed.message


def _example(name: str):
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "example, root, config, per_block",
    [
        ("parallel_block", "ParallelGPT", "ParallelConfig", 1),
        ("gpt2_nanogpt", "GPT", "GPTConfig", 2),
    ],
)
def test_residual_layers_count_branches_that_read_one_stream_state_once(example, root, config, per_block):
    module = _example(example)
    with torch.device("meta"):
        model = getattr(module, root)(getattr(module, config)(n_layer=3, vocab_size=64))
    fmap = map_forward(model, (torch.zeros(1, 8, dtype=torch.long, device="meta"),))
    # Both blocks write twice (attention and MLP); a parallel block's branches read the same x.
    assert len(fmap.writes) == 2 * 3 and fmap.layers == per_block * 3


def test_pytorch_s_transformer_layers_show_their_writers_on_cpu():
    """In eval mode without grad, PyTorch runs its transformer layers as one fused op on CPU and
    CUDA; the forward is observed through the unfused path, whose matmuls and adds are visible."""
    layer = nn.TransformerEncoderLayer(WIDTH, 2, 2 * WIDTH, batch_first=True, norm_first=True)
    model = nn.TransformerEncoder(layer, DEPTH, enable_nested_tensor=False)
    fmap = map_forward(model, (torch.zeros(1, 4, WIDTH),))
    written = sorted({name.split(".", 2)[2] for name in fmap.writer_names})
    assert written == ["linear2.weight", "self_attn.out_proj.weight"]
    assert torch.backends.mha.get_fastpath_enabled()


class HandRMSNorm(nn.Module):
    """RMSNorm as model files write it by hand: x * rsqrt(mean(x**2) + eps), in float32, then the gain."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        x32 = x.to(torch.float32)
        return (self.weight * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6))).to(x.dtype)


class UnitNorm(nn.Module):
    """`F.normalize`: a division by the norm, broadcast by `expand` to the full shape first."""

    def __init__(self, width: int) -> None:
        super().__init__()

    def forward(self, x):
        return F.normalize(x, dim=-1)


BRANCH_NORMS = {"hand": HandRMSNorm, "rms": nn.RMSNorm, "layer": nn.LayerNorm, "normalize": UnitNorm}


class NormedBranchBlock(nn.Module):
    """Attention with q/k norms and a SwiGLU MLP. `where="post"`: each branch's output is normalised
    before the residual add (`x + norm(o_proj(...))`, OLMo2's layout); `where="pre"`: the usual
    pre-norm block (`x + o_proj(attn(norm(x)))`), whose writers need the depth factor."""

    def __init__(self, norm: str = "hand", where: str = "post", heads: int = 2) -> None:
        super().__init__()
        self.where, self.heads = where, heads
        make = BRANCH_NORMS[norm]
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(4))
        self.q_norm, self.k_norm = HandRMSNorm(WIDTH), HandRMSNorm(WIDTH)
        self.gate_proj, self.up_proj = nn.Linear(WIDTH, 2 * WIDTH, bias=False), nn.Linear(WIDTH, 2 * WIDTH, bias=False)
        self.down_proj = nn.Linear(2 * WIDTH, WIDTH, bias=False)
        self.attn_norm, self.mlp_norm = make(WIDTH), make(WIDTH)

    def attention(self, h):
        batch, tokens, _ = h.shape
        q, k, v = self.q_norm(self.q_proj(h)), self.k_norm(self.k_proj(h)), self.v_proj(h)
        q, k, v = (t.view(batch, tokens, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(batch, tokens, WIDTH))

    def mlp(self, h):
        return self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))

    def forward(self, x):
        if self.where == "post":
            x = x + self.attn_norm(self.attention(x))
            return x + self.mlp_norm(self.mlp(x))
        x = x + self.attention(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


@pytest.mark.parametrize("norm", sorted(BRANCH_NORMS))
def test_a_branch_normalised_before_the_add_writes_no_weight_s_scale(norm):
    names, fmap = writers_of(lambda: NormedBranchBlock(norm, "post"))
    assert names == [] and not fmap.post_norm
    assert fmap.roles["blocks.0.o_proj.weight"] == fmap.roles["blocks.0.down_proj.weight"] == "linear"
    names, _ = writers_of(lambda: NormedBranchBlock(norm, "pre"))
    assert names == ["down_proj.weight", "o_proj.weight"]


def normed_branch_model(norm: str, where: str):
    """Every weight normal(0, 0.02), writers included: right when the branch output is normalised."""
    torch.manual_seed(0)
    model = LM(lambda: NormedBranchBlock(norm, where), depth=4)
    with torch.no_grad():
        for param in model.parameters():
            if param.dim() == 2:
                param.normal_(0, 0.02)
    return model


@pytest.mark.parametrize("norm", ["hand", "rms"])
def test_unscaled_writers_are_right_when_the_branch_output_is_normalised(norm):
    report = verify(lambda: normed_branch_model(norm, "post"), materialize=False)
    assert report.ok, report
    report = verify(lambda: normed_branch_model(norm, "pre"), materialize=False)
    assert report.codes() == ["INI101"], report
    assert {name.split(".", 2)[2] for name in report.findings[0].params} == {"down_proj.weight", "o_proj.weight"}


def test_a_product_with_a_statistic_of_another_tensor_keeps_the_writer():
    """Gating a branch by a statistic of some other tensor rescales it; only its own statistic
    takes the writer's scale away."""

    class GatedBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln, self.fc, self.out = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH)

        def forward(self, x):
            h = self.ln(x)
            return x + self.out(h) * torch.rsqrt(self.fc(h).pow(2).mean(-1, keepdim=True) + 1e-6)

    names, _ = writers_of(GatedBlock)
    assert names == ["out.weight"]


class Halves(torch.autograd.Function):
    """Runs reversible blocks without storing activations, as memory-saving stacks do."""

    @staticmethod
    def forward(ctx, x, blocks):
        for block in blocks:
            x = block(x)
        return x

    @staticmethod
    def backward(ctx, dy):
        return dy, None


class Coupling(nn.Module):
    """`y1 = x1 + f(x2)`, `y2 = x2 + g(y1)` on the two halves of the stream, under `no_grad`."""

    def __init__(self, f, g) -> None:
        super().__init__()
        self.f, self.g = f, g

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        with torch.no_grad():
            y1 = x1 + self.f(x2)
            y2 = x2 + self.g(y1)
        return torch.cat([y1, y2], dim=-1)


class ReversibleLM(nn.Module):
    """The branches registered first in a list of pairs, then handed to the coupling blocks."""

    def __init__(self, depth: int, writer_std: float | None = None) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.pairs = nn.ModuleList(
            nn.ModuleList(
                nn.Sequential(nn.LayerNorm(WIDTH), nn.Linear(WIDTH, WIDTH, bias=False), nn.Linear(WIDTH, WIDTH))
                for _ in range(2)
            )
            for _ in range(depth)
        )
        self.blocks = nn.ModuleList(Coupling(f, g) for f, g in self.pairs)
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        if writer_std is not None:
            with torch.no_grad():
                for name, param in self.named_parameters():
                    if param.dim() == 2:
                        param.normal_(0, writer_std if name.endswith("2.weight") else 0.02)
                    elif name.endswith("2.bias"):
                        param.zero_()

    def forward(self, ids):
        x = self.emb(ids)
        x = Halves.apply(torch.cat([x, x], dim=-1), self.blocks)
        x = torch.stack(x.chunk(2, dim=-1)).mean(dim=0)
        return self.head(self.norm(x))


def test_reversible_halves_are_written_once_per_block_each():
    """The adds happen on the halves of a stream joined again after each block, inside a custom
    autograd function under `no_grad`: every branch writes, and each half takes one add per
    block, so N is the depth (as the static analysis counts it), not twice the depth."""
    with torch.device("meta"):
        model = ReversibleLM(depth=3)
    fmap = map_forward(model, (torch.zeros(1, 4, dtype=torch.long, device="meta"),))
    assert {name for name in fmap.writer_names if name.startswith("pairs.")} == {
        f"pairs.{layer}.{branch}.2.weight" for layer in range(3) for branch in range(2)
    }
    assert len(fmap.writes) == 2 * 3 and fmap.layers == 3


def test_a_reversible_stack_scaled_by_its_depth_is_right():
    depth = 4
    report = verify(lambda: ReversibleLM(depth, writer_std=0.02 / math.sqrt(depth)), materialize=False)
    assert report.ok, report
    report = verify(lambda: ReversibleLM(depth, writer_std=0.02), materialize=False)
    assert report.codes() == ["INI101"], report


def pack_tokens(tensors):
    """einops' `pack(tensors, "b * d")` as it runs on torch: each tensor reshaped to (b, -1, d),
    then one `torch.cat` along the packed axis; the lengths stand in for the packed shapes."""
    reshaped = [tensor.reshape(tensor.shape[0], -1, tensor.shape[-1]) for tensor in tensors]
    return torch.cat(reshaped, dim=1), [tensor.shape[1] for tensor in reshaped]


def unpack_tokens(packed, lengths):
    """einops' `unpack(packed, shapes, "b * d")`: a slice of the packed axis per piece."""
    starts = [sum(lengths[:i]) for i in range(len(lengths))]
    return [packed[:, start : start + length] for start, length in zip(starts, lengths)]


class MemoryBlock(nn.Module):
    """Learned memory tokens packed with the normalised stream for the mixer, and with the stream
    itself around the feed-forward, which then hands back both."""

    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH)
        self.mix = nn.Linear(WIDTH, WIDTH)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.up = nn.Linear(WIDTH, 4 * WIDTH)
        self.down = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x, memory):
        h, lengths = pack_tokens([memory, self.ln1(x)])
        _, out = unpack_tokens(self.mix(h), lengths)
        x = x + out
        h, lengths = pack_tokens([memory, x])
        h = h + self.down(F.gelu(self.up(self.ln2(h))))
        memory, x = unpack_tokens(h, lengths)
        return x, memory


class MemoryLM(nn.Module):
    def __init__(self, depth: int = DEPTH) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.memory = nn.Parameter(torch.zeros(3, WIDTH))
        self.blocks = nn.ModuleList(MemoryBlock() for _ in range(depth))
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        memory = self.memory.expand(ids.shape[0], -1, -1)
        for block in self.blocks:
            x, memory = block(x, memory)
        return self.head(x)


def test_the_stream_packed_with_other_tokens_is_still_the_stream():
    """`torch.cat` of the stream with learned tokens (what einops' `pack` runs) holds the stream:
    the feed-forward adds into it, and the slice `unpack` cuts back out is the stream the next
    block reads. Read as a branch, only the first block's mixer was a writer."""
    with torch.device("meta"):
        model = MemoryLM(depth=3)
    fmap = map_forward(model, (torch.zeros(1, 4, dtype=torch.long, device="meta"),))
    assert fmap.writer_names == {f"blocks.{i}.{layer}.weight" for i in range(3) for layer in ("mix", "down")}
    assert len(fmap.writes) == 2 * 3 and fmap.layers == 2 * 3


class NormalizedParallelBlock(nn.Module):
    """An RMSNorm written with `F.normalize` (a division by the norm expanded to the stream's
    shape) feeding both branches of a parallel block."""

    def __init__(self) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.ones(WIDTH))
        self.attn_out, self.fc, self.mlp_out = nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        h = F.normalize(x, dim=-1) * WIDTH**0.5 * self.gain
        return x + self.attn_out(h) + self.mlp_out(F.gelu(self.fc(h)))


def test_the_stream_divided_by_its_expanded_norm_is_normalised():
    """Read as values derived from the stream, the branches' input had no stream state: each
    write counted as a layer of its own (N = 2 * depth for a parallel block) and the norm's gain
    was a plain gain."""
    names, fmap = writers_of(NormalizedParallelBlock, depth=3)
    assert names == ["attn_out.weight", "mlp_out.weight"]
    assert fmap.layers == 3
    assert fmap.roles["blocks.0.gain"] == "norm-gain"


class ProjectedWithPositions(nn.Module):
    """A ViT's start on an input seeded as the stream: the patches projected, then a table of
    learned positions and a broadcast bias added to the projection's output."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(WIDTH, WIDTH, bias=False)
        self.positions = nn.Parameter(torch.zeros(4, WIDTH))
        self.offset = nn.Parameter(torch.zeros(WIDTH))
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, patches):
        return self.head(self.proj(patches) + self.positions + self.offset)


def test_a_table_of_vectors_added_to_a_branch_is_a_position_table_not_a_bias():
    """Judged as a bias, learned positions (or learned tokens a branch writes into, agent
    attention's `agent_tokens`) were expected to start at zero."""
    with torch.device("meta"):
        model = ProjectedWithPositions()
    fmap = map_forward(model, (torch.zeros(1, 4, WIDTH, device="meta"),))
    assert fmap.roles["positions"] == "position"
    assert fmap.roles["offset"] == "bias"
