"""The runtime pipeline for one model, cheapest first:

1. build on the meta device under the init trace (no parameter memory): what each parameter
   is asked to hold (`trace.py`);
2. one forward on meta on a tiny input: who writes into the residual stream (`writers.py`),
   falling back to a real CPU build when meta cannot run the forward;
3. requested vs the policy (`judge.py`);
4. with `materialize`: a real build, measured stats vs the request (`stats.py`), effective
   writer stds and stream variance (`effective.py`), idempotency, meta parity, clones
   (`checks.py`) and the step-zero loss (`stepzero.py`).

Last, every finding gets its place in the code (`locate.py`).

Runs wherever it is called: in the CLI's child process, or in-process under `verify`.
"""

from __future__ import annotations

import inspect
import time
from typing import Any, Callable, NamedTuple

import torch
from torch import nn

from initlint.codes import RUNTIME_CHECK_FAILED
from initlint.runtime import build, judge as judging, sites, trace
from initlint.runtime.locate import class_location, locate, mark_creation
from initlint.runtime.lost_intent import lost_intent_findings
from initlint.runtime.options import Options
from initlint.runtime.policy import DEFAULT_BASE_STD
from initlint.runtime.report import ModelReport, RuntimeFinding, block_pattern
from initlint.runtime.writers import ForwardMap, map_forward

#: Above this many parameters a failed meta forward is not retried on a real CPU build.
EAGER_FALLBACK_LIMIT = 300_000_000
PROBE_LENGTH = 8


def verify_factory(label: str, factory: Callable[[], nn.Module], options: Options) -> ModelReport:
    report = ModelReport(model=label, policy=options.policy.spec())
    clock = _Clock(report)
    options.progress(f"{label}: tracing the init on the meta device")
    model, tracer, created, copies = _traced_build(factory, options, report)
    clock.lap("trace")
    if type(model).__name__ != label:  # a factory: the report names the model it built
        report.model, report.built_by = type(model).__name__, label
    requested = trace.requested_per_parameter(model, tracer)
    params = [
        judging.ParamFacts(name, list(p.shape), *requested[name], group=block_pattern(name, copies))
        for name, p in model.named_parameters(remove_duplicate=False)
    ]
    report.source_file, report.class_line = class_location(type(model))
    options.progress(f"{label}: finding residual writers")
    fmap = _forward_map(model, factory, options, report)
    clock.lap("writers")
    _judge(report, params, fmap, model, options)
    report.findings.extend(lost_intent_findings(params, report.rows))
    _meta_checks(report, model, tracer, options)
    mark_creation(report, created, options.focus_files)
    clock.lap("judge")
    if options.materialize:
        options.progress(f"{label}: building real tensors and measuring")
        try:
            real = _eager(factory, options)
        except Exception as error:  # noqa: BLE001 -- the meta results stand without real tensors
            report.notes.append(
                f"--materialize skipped: the real build on {options.device} failed ({_one_line(error)})"
            )
        else:
            _measure(report, real, factory, {p.name: p.requested for p in params}, fmap, options)
        clock.lap("measure")
    locate(report, model)
    return report


def verify_module(model: nn.Module, options: Options, label: str | None = None) -> ModelReport:
    """An already built model: roles from a forward, requests read off its measured values."""
    from initlint.runtime.stats import parameter_stats

    report = ModelReport(model=label or type(model).__name__, policy=options.policy.spec())
    report.notes.append("judged from the measured values (pass a factory to trace the init itself)")
    stats = parameter_stats(model)
    params = []
    copies = sites.copies(model, None)
    # Tied parameters are measured once, under their first name.
    by_tensor = {id(tensor): stats[name] for name, tensor in model.named_parameters() if name in stats}
    for name, tensor in model.named_parameters(remove_duplicate=False):
        measured = by_tensor.get(id(tensor))
        requested = (
            trace.UNKNOWN
            if measured is None
            else (
                trace.constant(measured.constant, "measured")
                if measured.constant is not None
                else trace.Requested("measured", measured.mean, measured.std, measured.std, op="measured")
            )
        )
        params.append(
            judging.ParamFacts(name, list(tensor.shape), requested, [requested], group=block_pattern(name, copies))
        )
    fmap = _forward_map(model, None, options, report)
    _judge(report, params, fmap, model, options)
    _measure(report, model, None, {}, fmap, options)
    locate(report, model)
    return report


# -- stages ------------------------------------------------------------------------------------


class _Clock:
    def __init__(self, report: ModelReport) -> None:
        self.report, self.start = report, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.report.timings[name] = round(now - self.start, 4)
        self.start = now


def _traced_build(factory, options: Options, report: ModelReport):
    build.seeded(options.seed)
    try:
        with torch.device("meta"), trace.tracing(options.focus_files) as tracer, sites.recording() as created:
            model = factory()
            _check_model(model)
            if build.finish_hf_init(model):
                report.notes.append("transformers skips init on meta: ran initialize_weights() explicitly")
        return model, tracer, sites.module_sites(model, created), sites.copies(model, created)
    except build.BuildError:
        raise
    except Exception as error:  # noqa: BLE001 -- some constructors compute with real values
        report.notes.append(f"built on CPU, not meta (meta construction failed: {_one_line(error)})")
    build.seeded(options.seed)
    with trace.tracing(options.focus_files) as tracer, sites.recording() as created:
        model = factory()
        _check_model(model)
    return model, tracer, sites.module_sites(model, created), sites.copies(model, created)


def _check_model(model: Any) -> None:
    if not isinstance(model, nn.Module):
        raise build.BuildError(f"the factory returned {type(model).__name__}, not an nn.Module")


def _eager(factory, options: Options) -> nn.Module:
    build.seeded(options.seed)
    with torch.device(options.device):
        model = factory()
    _check_model(model)
    return model


def probe_inputs(model: nn.Module, options: Options) -> dict[str, Any] | tuple | None:
    from initlint.runtime.probe import model_device, token_probe, vocab_size

    device = model_device(model)
    if options.input_shape:
        generator = torch.Generator().manual_seed(options.seed)
        return (torch.randn(options.input_shape, generator=generator).to(device),)
    if not any(isinstance(m, nn.Embedding) for m in model.modules()) or vocab_size(model) is None:
        return None
    tokens = token_probe(model, batch=1, length=PROBE_LENGTH, seed=options.seed)
    return {"input_ids": tokens} if build.is_hf_model(model) else (tokens,)


def _forward_map(model: nn.Module, factory, options: Options, report: ModelReport) -> ForwardMap:
    inputs = probe_inputs(model, options)
    if inputs is None:
        report.notes.append("no token embedding and no --input-shape: residual writers not observed")
        return ForwardMap(observed=False)
    try:
        return map_forward(model, inputs)
    except Exception as error:  # noqa: BLE001 -- e.g. fused MoE kernels that reject meta tensors
        reason = _one_line(error)
    size = sum(p.numel() for p in model.parameters())
    if factory is None or size > EAGER_FALLBACK_LIMIT:
        _forward_failed(
            report, model, f"the forward failed on {_device_of(model)} ({reason})", "pass a smaller --config"
        )
        return ForwardMap(observed=False)
    try:
        real = _eager(factory, Options(device="cpu", seed=options.seed))
        real_inputs = probe_inputs(real, options)
        if real_inputs is None:  # the meta model had inputs, so the same model on CPU has them too
            raise ValueError("no probe input for the model on CPU")
        fmap = map_forward(real, real_inputs)
    except Exception as error:  # noqa: BLE001 -- a forward that needs more than token ids
        failure = f"the forward failed on meta ({reason}) and on CPU ({_one_line(error)})"
        _forward_failed(report, model, failure, _probe_advice(model))
        return ForwardMap(observed=False)
    fmap.materialised = True
    report.notes.append(f"writers found on a real CPU build: the meta forward failed ({reason})")
    return fmap


def _forward_failed(report: ModelReport, model: nn.Module, failure: str, advice: str) -> None:
    """A forward that did not run leaves the residual writers unverified: a finding (INI110),
    not a note, so that every output format shows it and the exit status says so."""
    report.findings.append(
        RuntimeFinding(
            RUNTIME_CHECK_FAILED,
            f"{failure}: residual writers not observed; {advice}",
            [],
            details={"error": failure, "advice": advice},
            headline=f"runtime check incomplete: {type(model).__name__}.forward failed, residual writers not verified",
        )
    )


def _probe_advice(model: nn.Module) -> str:
    """What to pass when the probe's one input was not enough: a forward with more required
    inputs (token ids and segment ids, a mask) needs a wrapper, which --input-shape is not."""
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    required = [
        p.name for p in parameters if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(required) > 1:
        return (
            f"{type(model).__name__}.forward needs {', '.join(required[1:])} besides the one input the probe "
            "passes: pass a --factory FILE.py:CALLABLE returning a wrapper module whose forward takes "
            "the token ids alone and supplies the rest"
        )
    return "pass --input-shape, or a --factory whose model takes token ids"


def _base_std(model: nn.Module, options: Options) -> float:
    if options.policy.base_std is not None:
        return options.policy.base_std
    configured = getattr(getattr(model, "config", None), "initializer_range", None)
    if isinstance(configured, (int, float)) and configured > 0:
        return float(configured)
    return options.base_std or DEFAULT_BASE_STD


def _judge(report: ModelReport, params, fmap: ForwardMap, model: nn.Module, options: Options) -> None:
    label, rows, findings = judging.judge(params, fmap, options.policy, _base_std(model, options))
    report.policy, report.rows = label, rows
    report.findings.extend(findings)
    if fmap.post_norm:
        report.notes.append("post-norm residuals (norm(x + f(x))): depth scaling is not the GPT-2 setting here")


def _meta_checks(report: ModelReport, model: nn.Module, tracer, options: Options) -> None:
    """What the trace answers without real tensors: blocks copied from one initialised
    prototype, and whether running the public init entry point again changes any request."""
    from initlint.runtime import checks

    for item in checks.clone_findings([tuple(group) for group in trace.copied_groups(model, tracer)]):
        _add_measurement(report, item)
    entry = checks.init_entry_point(model)
    if entry is None or not entry.complete:
        return  # a per-module hook alone is not the whole init (nanoGPT scales after apply)
    # Once more, then again: a factory may re-initialise the built model its own way, so the
    # built state is not the entry point's; two runs of the entry point must agree.
    states = []
    try:
        for _ in range(2):
            with torch.no_grad(), trace.tracing(options.focus_files, tracer):
                if not build.finish_hf_init(model):
                    entry.run()
            states.append(trace.requested_per_parameter(model, tracer))
    except Exception as error:  # noqa: BLE001 -- an init that cannot run twice on meta is a note
        report.notes.append(f"init run twice on meta skipped: {_one_line(error)}")
        return
    before, after = states
    changes = [
        _RequestChange(name, f"{before[name][0].describe()} -> {after[name][0].describe()}")
        for name in before
        if _request_changed(before[name][0], after[name][0])
    ]
    for item in checks.idempotency_findings(checks.IdempotencyResult(entry.description, changes)):
        _add_measurement(report, item)


class _RequestChange(NamedTuple):
    """A request that a second init run changed (what `checks.idempotency_findings` lists)."""

    name: str
    description: str


def _request_changed(first: trace.Requested, second: trace.Requested) -> bool:
    judged = ("normal", "uniform", "trunc_normal", "orthogonal", "constant")
    if first.kind not in judged or second.kind not in judged:
        return False
    if first.kind != second.kind:
        return True
    scale = max(first.std, second.std, abs(first.mean), abs(second.mean), 1e-12)
    return abs(first.std - second.std) > 0.01 * scale or abs(first.mean - second.mean) > 0.01 * scale


def _measure(
    report: ModelReport, model: nn.Module, factory, requested: dict, fmap: ForwardMap, options: Options
) -> None:
    """The measurement engineer's checks; one failing check is a note, never the whole report.

    One stats pass serves the std test, the clones and the idempotency baseline; one forward
    serves the writer effects and the stream variance.
    """
    from initlint.runtime import checks, stats, stepzero

    inputs = probe_inputs(model, options)
    measured: dict = {}

    def attempt(name: str, run: Callable[[], list[dict]]) -> None:
        try:
            for item in run():
                _add_measurement(report, item)
        except Exception as error:  # noqa: BLE001
            report.notes.append(f"{name} skipped: {_one_line(error)}")

    def stds() -> list[dict]:
        measured.update(stats.parameter_stats(model))
        return _std_findings(report, measured, requested)

    attempt("measured stds", stds)
    attempt("effective writer stds", lambda: _forward_findings(report, model, inputs))
    attempt(
        "idempotency",
        lambda: checks.idempotency_findings(checks.check_idempotency(model, options.seed, measured or None)),
    )
    if factory is not None:
        attempt(
            "meta parity",
            lambda: checks.meta_parity_findings(checks.check_meta_parity(factory, options.seed, options.device)),
        )
    attempt("clones", lambda: checks.clone_findings(checks.find_clones(model, measured or None)))
    if inputs is not None and not options.input_shape:
        attempt(
            "step-zero loss", lambda: stepzero.step_zero_findings(stepzero.step_zero_loss(model, seed=options.seed))
        )


def _std_findings(report: ModelReport, measured: dict, requested: dict) -> list[dict]:
    """Measured stds against the traced requests; the table's measured column."""
    from initlint.runtime import stats

    rows = {row.name: row for row in report.rows}
    wanted = [
        (n, measured[n], request)
        for n in measured
        if n in requested and (request := _to_stats_request(requested[n])) is not None
    ]
    verdicts = stats.judge_stds(wanted)
    for verdict in verdicts:
        if verdict.name in rows:
            if verdict.requested.kind != "constant":
                rows[verdict.name].measured_std = verdict.measured_std
            rows[verdict.name].measured_verdict = "flagged" if verdict.flagged else "ok"
    if not requested:  # an instance: still show what was measured
        for name, value in measured.items():
            if name in rows:
                rows[name].measured_std = value.std
    return stats.std_findings(verdicts)


def _forward_findings(report: ModelReport, model: nn.Module, inputs) -> list[dict]:
    """Effective writer stds and the stream variance by depth, from one forward."""
    from initlint.runtime import effective

    if inputs is None:
        return []
    expected = {
        name: std for name, std in judging.expected_std_per_writer(report.rows).items() if name.endswith("weight")
    }
    effects, points = effective.forward_measurements(model, list(expected), inputs)
    report.stream_variance = [[p.depth, p.variance] for p in points]
    if expected:
        report.expected_stream_variance = [
            [p.depth, p.variance] for p in effective.stream_variance_as_expected(model, inputs, expected)
        ]
    return effective.effect_findings(effective.judge_effects(effects, expected)) if expected else []


def _to_stats_request(requested: trace.Requested) -> trace.Requested | None:
    """The request the std test can judge: fully written, of a kind with exact moments."""
    if requested.unwritten_fraction or requested.partial_fraction:
        return None
    if requested.kind == "normal" and requested.std <= 0:
        return trace.Requested.constant(requested.mean)
    return requested if requested.kind in ("normal", "uniform", "trunc_normal", "constant") else None


def _add_measurement(report: ModelReport, item: dict) -> None:
    """A measurement result, unless the trace already reported the same code for those params."""
    params = list(item.get("params", []))
    for existing in report.findings:
        if existing.code == item["code"] and (set(existing.params) & set(params) or not params):
            return
    report.findings.append(RuntimeFinding(item["code"], item["message"], params, None, dict(item.get("details", {}))))


def _device_of(model: nn.Module) -> str:
    return next((p.device.type for p in model.parameters()), "cpu")


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(error).__name__}: {first}"[:300] if first else type(error).__name__
