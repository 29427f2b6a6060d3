"""Runtime-verification benchmark: figures, and ratios against references measured in this run.

    python benchmarks/runtime_bench.py            # ~1-2 minutes on a 2-core CPU, ~7 GB RAM
    python benchmarks/runtime_bench.py --quick    # GPT-2 medium instead of XL for the eager part

Sections (issue 3's targets in the last column):
- meta init trace and writer map (the core engineer's `trace.py`/`writers.py`): GPT-2 XL and
  an 80-layer, 8192-wide, 128k-vocabulary Llama shape (70B parameters), time and peak memory
  above `import torch`;
- `--materialize` measurements on GPT-2 XL (1.56B parameters) against the model's own
  construct + init time and memory: chunked stats, effective writer stds, stream variance,
  clones, step-zero loss; idempotency and meta parity (each rebuilds the model) on GPT-2 small;
- accuracy of the chunked reduction against float64, and of a single float32 reduction;
- power and false-alarm rate of the std test, simulated (seeded).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "runtime")]

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


class PeakRss:
    """Samples the resident set every millisecond while the block runs (torch releases the GIL)."""

    def __init__(self) -> None:
        self.start = self.peak = rss_bytes()
        self._running = False

    def _sample(self) -> None:
        while self._running:
            self.peak = max(self.peak, rss_bytes())
            time.sleep(0.001)

    def __enter__(self) -> "PeakRss":
        gc.collect()
        self.start = self.peak = rss_bytes()
        self._running = True
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._running = False
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())

    @property
    def above_start_mb(self) -> float:
        return (self.peak - self.start) / 2**20


ROWS: list[tuple[str, str, str, str]] = []


def row(what: str, figure: str, relative: str = "", target: str = "") -> None:
    ROWS.append((what, figure, relative, target))
    print(f"  {what:<52} {figure:>14}  {relative:<26} {target}", flush=True)


@contextmanager
def timed() -> Iterator[list[float]]:
    box = [0.0]
    start = time.perf_counter()
    yield box
    box[0] = time.perf_counter() - start


def verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISSED"


# --- sections ---------------------------------------------------------------------------------


def meta_section(torch, import_rss: int) -> None:
    from initlint.runtime import trace
    from initlint.runtime.writers import map_forward
    from measurement_models import GPT2_XL, LLAMA_70B, TinyGPT, TinyLlama

    print("meta device (no parameter memory)")
    with timed() as seconds, torch.device("meta"), trace.tracing():
        TinyGPT()
    row("first trace in the process (tiny GPT: one-off costs)", f"{seconds[0]:.2f} s")
    for label, factory in (
        ("GPT-2 XL", lambda: TinyGPT(GPT2_XL)),
        ("Llama 80L/8192/128k (70B)", lambda: TinyLlama(LLAMA_70B)),
    ):
        with PeakRss() as memory, timed() as seconds:
            with torch.device("meta"), trace.tracing() as tracer:
                model = factory()
            requested = trace.requested_per_parameter(model, tracer)
        size = sum(p.numel() for p in model.parameters())
        limit = 0.5 if "XL" in label else 1.0
        row(
            f"init trace, {label}",
            f"{seconds[0]:.2f} s",
            f"{len(requested)} params, {size / 1e9:.2f}B",
            f"< {limit} s: {verdict(seconds[0], limit)}",
        )
        if "Llama" in label:
            above = (memory.peak - import_rss) / 2**20
            row(
                "  peak RSS above import torch",
                f"{above:.0f} MB",
                f"trace itself +{memory.above_start_mb:.0f} MB",
                f"< 150 MB: {verdict(above, 150)}",
            )
            tokens = torch.randint(0, 1000, (1, 8)).to("meta")
            with timed() as seconds:
                forward_map = map_forward(model, (tokens,))
            row(
                f"writer map on meta, {label}",
                f"{seconds[0]:.2f} s",
                f"{len(forward_map.writes)} residual writes",
                f"< 3 s: {verdict(seconds[0], 3.0)}",
            )
        del model, tracer, requested
        gc.collect()


def materialized_section(torch, label: str, config) -> None:
    import measurement_models as models
    from initlint.runtime import checks, effective, stats, stepzero
    from initlint.runtime.pipeline import PROBE_LENGTH
    from initlint.runtime.probe import token_probe

    print(f"--materialize on {label} ({config.n_layer} layers, width {config.n_embd})")
    torch.manual_seed(0)
    with PeakRss() as build_memory, timed() as build_seconds:
        model = models.TinyGPT(config)
    size = sum(p.numel() for p in model.parameters())
    reference = build_seconds[0]
    row(
        "reference: the model's own construct + init",
        f"{reference:.1f} s",
        f"{size / 1e9:.2f}B params, +{build_memory.above_start_mb:.0f} MB",
    )

    with PeakRss() as memory, timed() as seconds:
        measured = stats.parameter_stats(model)
    row(
        "chunked stats, every parameter",
        f"{seconds[0]:.2f} s",
        f"{100 * seconds[0] / reference:.1f}% of reference",
        f"<= 3%: {verdict(seconds[0] / reference, 0.03)}",
    )
    row(
        "  peak RSS during stats",
        f"{memory.above_start_mb:.1f} MB",
        f"{len(measured)} tensors",
        f"< 5 MB: {verdict(memory.above_start_mb, 5)}",
    )
    total = seconds[0]

    largest_name, largest = max(model.named_parameters(), key=lambda item: item[1].numel())
    exact = largest.detach().double()
    exact_std = float(exact.std())
    del exact
    chunked_error = abs(measured[largest_name].std / exact_std - 1)
    single = float(
        torch.linalg.vector_norm(largest.detach() - largest.detach().mean()) / math.sqrt(largest.numel() - 1)
    )
    row(
        f"  std error vs float64, {largest_name} ({largest.numel() / 1e6:.0f}M)",
        f"{chunked_error:.1e}",
        f"one float32 reduction: {abs(single / exact_std - 1):.1e}",
    )

    tokens = token_probe(model, batch=1, length=PROBE_LENGTH)
    writers = models.residual_writers(model)
    with timed() as seconds:
        effects, points = effective.forward_measurements(model, writers, tokens)
    worst = max(abs(effect.effective_std / model.writer_std() - 1) for effect in effects)
    row(
        f"effective writer stds ({len(writers)}) + stream variance",
        f"{seconds[0]:.2f} s",
        f"one forward, {PROBE_LENGTH} tokens",
    )
    row(
        "  worst |effective / expected std - 1|",
        f"{100 * worst:.2f}%",
        f"stream var last/first {points[-1].variance / points[0].variance:.0f}",
        f"within 5%: {verdict(worst, 0.05)}",
    )
    total += seconds[0]
    with timed() as seconds:
        groups = checks.find_clones(model, measured)
    row("clones (reusing the stats)", f"{seconds[0]:.2f} s", f"{len(groups)} groups")
    total += seconds[0]
    with timed() as seconds:
        loss = stepzero.step_zero_loss(model)
    row(
        f"step-zero loss ({loss.targets} random tokens)",
        f"{seconds[0]:.2f} s",
        f"ln V {loss.ln_vocab:.2f} + {loss.excess:.3f}",
    )
    total += seconds[0]
    row(
        "measurements above, together",
        f"{total:.1f} s",
        f"{100 * total / reference:.0f}% of reference",
        f"< 15 s: {verdict(total, 15)}",
    )
    del model, effects, measured
    gc.collect()


def rebuild_checks_section(torch) -> None:
    import measurement_models as models
    from initlint.runtime import checks

    config = models.TinyConfig(vocab_size=50257, block_size=1024, n_layer=12, n_embd=768, n_head=12)
    print("checks that rebuild or re-init the model (GPT-2 small shape, 124M)")
    torch.manual_seed(0)
    with timed() as seconds:
        model = models.TinyGPT(config)
    reference = seconds[0]
    row("reference: construct + init", f"{reference:.2f} s")
    with timed() as seconds:
        result = checks.check_idempotency(model)
    row(
        "idempotency (deep copy + init again)",
        f"{seconds[0]:.2f} s",
        f"{seconds[0] / reference:.1f}x reference, {len(result.changes)} changes",
    )
    with timed() as seconds:
        parity = checks.check_meta_parity(lambda: models.TinyGPT(config))
    row(
        "meta parity (eager + meta builds, init)",
        f"{seconds[0]:.2f} s",
        f"{seconds[0] / reference:.1f}x reference, ok={parity.ok}",
    )


def statistics_section(torch) -> None:
    from initlint.runtime.stats import FAMILY_FALSE_ALARM, NORMAL, UNIFORM, critical_z, power, std_z

    print("the std test (seeded simulation; 300 tests sharing the std family's 0.07% of a 0.1% model budget)")
    generator = torch.Generator().manual_seed(0)
    limit = critical_z(300, FAMILY_FALSE_ALARM)
    trials = 50_000

    def flagged_share(n: int, ratio: float, uniform: bool) -> float:
        values = torch.empty(trials, n)
        if uniform:
            values.uniform_(-math.sqrt(3), math.sqrt(3), generator=generator)
        else:
            values.normal_(generator=generator)
        stds = (values.double().std(1) * ratio).tolist()
        shape = UNIFORM if uniform else NORMAL
        return sum(abs(std_z(std, 1.0, n, shape)) > limit for std in stds) / trials

    cases = (
        (256, math.sqrt(2), False, ">= 99.9%"),
        (256, 1 / math.sqrt(2), False, "(99.9% from n = 271)"),
        (300, 1 / math.sqrt(2), False, ">= 99.9%"),
        (128, math.sqrt(2), True, ">= 99.9%"),
    )
    for n, ratio, uniform, target in cases:
        simulated = flagged_share(n, ratio, uniform)
        predicted = power(n, ratio, 300, UNIFORM if uniform else NORMAL)
        name = f"power, n={n}, std x{ratio:.3f}, {'uniform' if uniform else 'normal'}"
        row(name, f"{100 * simulated:.2f}%", f"predicted {100 * predicted:.2f}%", target)
    for uniform in (False, True):
        share = flagged_share(256, 1.0, uniform) * 300
        row(
            f"false alarms per 300-test model ({'uniform' if uniform else 'normal'})",
            f"{share:.4f}",
            f"{trials} tensors of 256",
            f"<= {FAMILY_FALSE_ALARM}",
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="GPT-2 medium (350M) instead of XL for the eager part")
    options = parser.parse_args(argv)
    started = time.perf_counter()
    before_torch = rss_bytes()
    with timed() as seconds:
        import torch
    # One thread throughout: reductions are single-threaded anyway, and two OpenMP threads on
    # a busy 2-core machine made every reference figure erratic.
    torch.set_num_threads(1)
    import_rss = rss_bytes()
    print(
        f"torch {torch.__version__}, {os.cpu_count()} CPUs, 1 thread, load {os.getloadavg()[0]:.1f};"
        f" import torch {seconds[0]:.2f} s, +{(import_rss - before_torch) / 2**20:.0f} MB"
    )
    meta_section(torch, import_rss)
    statistics_section(torch)
    rebuild_checks_section(torch)
    from measurement_models import GPT2_XL, TinyConfig

    if options.quick:
        materialized_section(
            torch, "GPT-2 medium", TinyConfig(vocab_size=50257, block_size=1024, n_layer=24, n_embd=1024, n_head=16)
        )
    else:
        materialized_section(torch, "GPT-2 XL", GPT2_XL)
    missed = [entry for entry in ROWS if entry[3].endswith("MISSED")]
    print(
        f"total {time.perf_counter() - started:.0f} s; {len(missed)} target(s) missed"
        + "".join(f"\n  missed: {entry[0]}" for entry in missed)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
