"""The child's report, checked against its schema before the parent believes it: a model that
replaces `json.dump` (or writes the result file itself) cannot crash the parent."""

from __future__ import annotations

import re
import types
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _Malformed(Exception):
    pass


def validated_payload(payload: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(report, error) from the child's JSON, checked against the report's schema; text with
    lone surrogates (from a model's exception message) made printable."""
    try:
        if not isinstance(payload, dict) or not isinstance(payload.get("error"), (str, type(None))):
            raise _Malformed("not a {report, error} object")
        report = payload.get("report")
        if report is not None:
            _check_report(report)
        return _printable(report), _printable(payload.get("error"))
    except (_Malformed, RecursionError) as error:
        return None, f"the runtime check's report is malformed ({error}); did the model code replace json.dump?"


def _check_report(report: Any) -> None:
    from dataclasses import fields
    from typing import get_type_hints

    from initlint.runtime.report import ModelReport, Row, RuntimeFinding

    if (
        not isinstance(report, dict)
        or not _conforms(report.get("models", []), list[dict])
        or not _conforms(report.get("errors", []), list[str])
    ):
        raise _Malformed("its models or errors are not lists")
    sites = report.get("error_sites", {})
    if not isinstance(sites, dict) or not all(_conforms(site, Any, "source") for site in sites.values()):
        raise _Malformed("its error sites are not [file, line]")
    nested = {"rows": Row, "findings": RuntimeFinding}
    for model in report.get("models", []):
        for kind, items in [(ModelReport, [model])] + [(nested[key], model.get(key, [])) for key in nested]:
            hints = get_type_hints(kind)
            for item in items:
                if not isinstance(item, dict) or set(item) - {f.name for f in fields(kind)}:
                    raise _Malformed(f"unexpected fields in a {kind.__name__}")
                for name, value in item.items():
                    if name not in nested and not _conforms(value, hints[name], name):
                        raise _Malformed(f"{kind.__name__}.{name} is {type(value).__name__}")
        try:
            ModelReport.from_dict(model)
        except (TypeError, KeyError, ValueError) as error:
            raise _Malformed(str(error)) from None


def _conforms(value: Any, hint: Any, name: str = "") -> bool:
    """`value` (from JSON) matches the annotation `hint`; `source` is [file, line, caller lines...]."""
    import typing

    if name == "source" and value is not None:
        return (
            isinstance(value, list)
            and len(value) >= 2
            and isinstance(value[0], str)
            and all(isinstance(line, int) and not isinstance(line, bool) for line in value[1:])
        )
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return True
    if origin in (typing.Union, getattr(types, "UnionType", typing.Union)):
        return any(_conforms(value, argument) for argument in arguments)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is list or hint is list:
        return (
            isinstance(value, list) and all(_conforms(item, arguments[0]) for item in value)
            if arguments
            else isinstance(value, list)
        )
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    return isinstance(hint, type) and isinstance(value, hint) and (hint is bool or not isinstance(value, bool))


def _printable(value: Any) -> Any:
    """Lone surrogates (JSON can carry them, no output stream can) become U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {_printable(key): _printable(item) for key, item in value.items()}
    return value
