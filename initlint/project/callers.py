"""Who calls a model's init entry point, from anywhere in the project, with which arguments.

`model.init_weights()` in `train.py`, `model.apply(model._init_weights)` or
`model.apply(partial(model._init_weights, n_layer=cfg.n_layer))`: the constructor never calls
these, so the interpreter needs the call and its arguments from another file. Cheap by
construction: a byte search for the method name over the project's files, then (for the usual
entry points) the file's summary, which says whether the name is used as an attribute at all,
and only then a syntax tree, of the files left.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import libcst as cst

from initlint.analysis.cst_walk import walk
from initlint.analysis.index import build_index, dotted_name
from initlint.analysis.positions import LazyPositions
from initlint.files import DEFAULT_EXCLUDE
from initlint.project.cache import FOLDER_NAME
from initlint.project.layout import Location, is_regular_file
from initlint.project.symbols import CLASS, Symbol
from initlint.project.store import ENTRY_POINTS, Parsed

#: A project with more Python files than this is searched in its first files only (sorted walk).
MAX_FILES = 5000
#: Calls that keep the object they are called on: `GPT(cfg).to(device)` is still a GPT.
_KEEPS_RECEIVER = frozenset(
    {"to", "cuda", "cpu", "float", "half", "bfloat16", "double", "train", "eval", "requires_grad_", "to_empty"}
)
#: Class methods that build an instance: `GPT.from_pretrained(...)` is a GPT.
_BUILDERS = frozenset({"from_pretrained", "from_config", "from_name", "from_args", "build"})


@dataclass(frozen=True)
class CallSite:
    path: Path
    module: str | None
    method: str
    #: "call" for `x.method(...)`, "apply" for `m.apply(x.method)` or `m.apply(partial(x.method, ...))`
    via: str
    #: the source text of the object the method is taken from (`model`, `self.gpt`)
    receiver: str
    #: what that object was built from, where the file says (`model = GPT(cfg)`, `self` in a class)
    receiver_class: Symbol | None
    #: the call's own arguments; for `partial`, those it binds after the method
    arguments: tuple[cst.Arg, ...]
    call: cst.Call
    #: the caller file's tree and index: evaluate `arguments` in it
    parsed: Parsed
    #: what the receiver was last bound to before the call (`GPT(cfg).to(device)`), if the file says
    receiver_value: cst.BaseExpression | None = None
    #: the caller file's positions, computed only for the sites whose line someone reads
    positions: LazyPositions | None = field(default=None, compare=False, repr=False)

    @property
    def line(self) -> int:
        return self._start()[0]

    @property
    def column(self) -> int:
        """1-based, as findings are."""
        return self._start()[1]

    def _start(self) -> tuple[int, int]:
        found = self.positions.get(self.call) if self.positions is not None else None
        return (found.start.line, found.start.column + 1) if found is not None else (1, 1)


def project_files(root: Path, max_files: int = MAX_FILES) -> list[Path]:
    """Regular Python files under `root`, skipping virtual environments, builds, caches and hidden
    folders; links are not followed (no loops, nothing outside the root)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        for name in sorted(files):
            path = Path(folder) / name
            if name.endswith(".py") and not path.is_symlink() and is_regular_file(path):
                found.append(path)
                if len(found) >= max_files:
                    return found
    return found


def _skipped(folder: str) -> bool:
    """Virtual environments, builds, caches (the run's default excludes), hidden folders, ours."""
    return (
        folder == FOLDER_NAME
        or folder.startswith(".")
        or any(fnmatch.fnmatch(folder, pattern) for pattern in DEFAULT_EXCLUDE)
    )


class _Finder(cst.CSTVisitor):
    """One walk: the call sites, the enclosing class of each, what each name was last bound to,
    and every import statement (train scripts import inside `main()`)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.hits: list[
            tuple[cst.Call, str, cst.BaseExpression, tuple[cst.Arg, ...], str | None, cst.BaseExpression | None]
        ] = []
        self.classes: list[str] = []
        self.bound: dict[str, cst.BaseExpression] = {}
        self.import_lines: list[cst.SimpleStatementLine] = []
        self._module = cst.Module(body=[])

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def leave_ClassDef(self, _original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in node.body):
            self.import_lines.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bound[self.text(target.target)] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bound[self.text(node.target)] = node.value if node.value is not None else node.annotation.annotation

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        if func.attr.value == self.method:
            self._hit(node, "call", func.value, tuple(node.args))
        elif func.attr.value == "apply" and node.args:
            self._apply(node, node.args[0].value)

    def _apply(self, node: cst.Call, function: cst.BaseExpression) -> None:
        if isinstance(function, cst.Attribute) and function.attr.value == self.method:
            self._hit(node, "apply", function.value, ())
        elif (
            isinstance(function, cst.Call)
            and (dotted_name(function.func) or "").split(".")[-1] == "partial"
            and function.args
        ):
            first = function.args[0].value
            if isinstance(first, cst.Attribute) and first.attr.value == self.method:
                self._hit(node, "apply", first.value, tuple(function.args[1:]))

    def _hit(self, node: cst.Call, via: str, receiver: cst.BaseExpression, arguments: tuple[cst.Arg, ...]) -> None:
        text = self.text(receiver)
        enclosing = self.classes[-1] if self.classes else None
        self.hits.append((node, via, receiver, arguments, enclosing, self.bound.get(text)))

    def text(self, node: cst.CSTNode) -> str:
        # Every assignment target is written out: LibCST's code generation for a bare name
        # (nearly all of them) is its value, at a fraction of the cost.
        if isinstance(node, cst.Name) and not node.lpar and not node.rpar:
            return node.value
        return self._module.code_for_node(node)


def _built_from(value: cst.BaseExpression | None) -> str | None:
    """`GPT` for `GPT(cfg)`, `GPT(cfg).to(dev)`, `GPT.from_pretrained(...)`, `m: GPT = ...`."""
    while isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in _KEEPS_RECEIVER and isinstance(func.value, cst.Call):
            value = func.value
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in _BUILDERS:
            return dotted_name(func.value)
        return dotted_name(func)
    return dotted_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None


def _receiver_class(project, module: Location | None, imports: dict[str, str], enclosing: str | None, text: str, value):
    if text == "self" and enclosing is not None and module is not None:
        return project.resolve_symbol(module, enclosing)
    name = _built_from(value)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head in imports:
        return project.with_definition(project.resolve(module, imports[head] + (f".{rest}" if rest else "")))
    return project.resolve_symbol(module, name) if module is not None else None


def _statements_to_walk(parsed: Parsed, method: str) -> list[cst.CSTNode]:
    """The top-level statements that use `method` as an attribute (found with `ast`, a tenth of
    LibCST's walk, read once per file for every method asked), plus every top-level line
    (module-level bindings and imports): the LibCST walk then skips the rest of a large file. The
    whole module where `ast` disagrees."""
    body: list[cst.CSTNode] = list(parsed.module.body)
    found = parsed.uses.statements_using(method)
    if found is None:
        return body
    count, using = found
    chosen: list[cst.CSTNode] = []
    position = 0
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            chosen.append(statement)
            position += len(statement.body)  # `ast` reads `a; b` as two statements
            continue
        if position in using:
            chosen.append(statement)
        position += 1
    return chosen if position == count else body


def sites_in(project, path: Path, parsed: Parsed, method: str) -> list[CallSite]:
    finder = _Finder(method)
    for statement in _statements_to_walk(parsed, method):
        walk(statement, finder)
    if not finder.hits:
        return []
    module = project.layout.location_of(path)
    imports = {**build_index(cst.Module(body=finder.import_lines)).imports, **parsed.index.imports}
    positions = LazyPositions(parsed.module, parsed.source)
    sites = []
    for call, via, receiver, arguments, enclosing, value in finder.hits:
        text = finder.text(receiver)
        owner = _receiver_class(project, module, imports, enclosing, text, value)
        sites.append(
            CallSite(
                path,
                module.name if module is not None else None,
                method,
                via,
                text,
                owner,
                arguments,
                call,
                parsed,
                value,
                positions,
            )
        )
    return sites


def _candidates(project, method: str, mentioning: str | None) -> list[Path]:
    text = project.text
    paths = text.containing(method.encode())
    if mentioning:
        naming = set(text.containing(mentioning.encode()))
        paths = [path for path in paths if path in naming]
    found = []
    for path in paths:
        if method in ENTRY_POINTS and method not in project.store.summary(path).entry_refs:
            continue  # the name is only defined there, or sits in a comment or a string
        if mentioning and not _may_build(project, path, mentioning):
            continue  # named in a comment (`# Copied from ...BertModel`): no receiver built from it
        found.append(path)
    return found


def _may_build(project, path: Path, class_name: str) -> bool:
    """Whether a file can build the class: it defines or imports it by name, or calls it as a
    module's attribute (`models.GPT(...)`)."""
    summary = project.store.summary(path)
    if class_name in summary.classes or any(q.rpartition(".")[2] == class_name for q in summary.imports.values()):
        return True
    return f".{class_name}(".encode() in (project.text.data(path) or b"")


def find_calls(project, method: str, cls=None, mentioning: str | None = None) -> list[CallSite]:
    """Every call of `method` in the project (direct, or handed to `.apply`), with its arguments.

    With `cls` (a class Symbol), sites whose receiver was built from another class are left out;
    sites whose receiver's class the file does not say (`receiver_class` None, or not a class)
    are kept: the caller decides what an unknown receiver means. With `mentioning`, only files
    whose text contains that name are searched: a caller that wants receivers built from a class
    needs only the files that name it (in a large repository, far fewer parses).
    """
    key = method if mentioning is None else (method, mentioning)
    sites = project.call_sites.get(key)
    if sites is None:  # once per method and run: every checked file of a project asks the same
        sites = project.call_sites[key] = []
        for path in _candidates(project, method, mentioning):
            found = project.file_sites.get((path, method))
            if found is None:  # a file's sites do not depend on the class asked about: read once
                parsed = project.store.parsed(path)
                found = project.file_sites[path, method] = (
                    sites_in(project, path, parsed, method) if isinstance(parsed, Parsed) else []
                )
            sites.extend(found)
    if cls is None:
        return list(sites)
    return [site for site in sites if of_class(site, cls)]


def of_class(site: CallSite, cls: Symbol) -> bool:
    """Whether the site's receiver may be built from `cls`: built from it, or the file does not say."""
    return not _other_class(site.receiver_class, cls)


def _other_class(owner: Symbol | None, cls: Symbol) -> bool:
    return owner is not None and owner.kind == CLASS and owner.qualified != cls.qualified


#: The module methods whose values a loop inits one by one: `for p in model.parameters()`.
PARAMETER_VIEWS = ("parameters", "named_parameters")


@dataclass(frozen=True)
class ParameterInit:
    """`for p in model.parameters(): uniform_(p, -a, a)` outside the model's class (a builder, a
    training script): an init applied to every parameter of a built model."""

    #: the `model.parameters()` call the loop walks
    site: CallSite
    loop: cst.For
    #: the function the loop stands in, whose parameters are its inputs; None at module level
    function: cst.FunctionDef | None


class _Loops(cst.CSTVisitor):
    """The loop whose iterable is one call, with the innermost function around it."""

    def __init__(self, call: cst.Call) -> None:
        self.call = call
        self.functions: list[cst.FunctionDef] = []
        self.found: tuple[cst.For, cst.FunctionDef | None] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, _original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_For(self, node: cst.For) -> None:
        if node.iter is self.call and self.found is None:
            self.found = (node, self.functions[-1] if self.functions else None)


class _InitsOf(cst.CSTVisitor):
    """Whether a loop's body calls an in-place op on its parameter: `uniform_(p, ...)`,
    `nn.init.normal_(p)`, `p.data.uniform_(...)`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.inits = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        called = (
            func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        )
        if not called.endswith("_") or called.startswith("_"):
            return
        on = func.value if isinstance(func, cst.Attribute) else node.args[0].value if node.args else None
        while isinstance(on, cst.Attribute) and on.attr.value == "data":
            on = on.value
        if isinstance(on, cst.Name) and on.value == self.name or node.args and _names(node.args[0].value, self.name):
            self.inits = True


def _names(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _loop_parameter(loop: cst.For) -> str | None:
    """`p` in `for p in ...` and in `for name, p in ...`."""
    target: cst.BaseExpression = loop.target
    if isinstance(target, cst.Tuple) and target.elements:
        target = target.elements[-1].value
    return target.value if isinstance(target, cst.Name) else None


def find_parameter_inits(project) -> list[ParameterInit]:
    """Every loop of the project that inits each parameter a module's `parameters()` or
    `named_parameters()` hands it, on a module other than `self` (a model's own method is its
    own init code). Searched once per run: a byte search, then the caller search's sites."""
    cached: list[ParameterInit] | None = project.call_sites.get(("for", "parameters"))
    if cached is not None:
        return cached
    found: list[ParameterInit] = []
    project.call_sites["for", "parameters"] = found
    for method in PARAMETER_VIEWS:
        for site in find_calls(project, method):
            if site.receiver == "self" or site.via != "call":
                continue
            statement = site.parsed.top_statement(site.call)
            loops = _Loops(site.call)
            if statement is not None:
                walk(statement, loops)
            if loops.found is None:
                continue
            loop, function = loops.found
            parameter = _loop_parameter(loop)
            inits = _InitsOf(parameter or "")
            if parameter is not None:
                walk(loop.body, inits)
            if inits.inits:
                found.append(ParameterInit(site, loop, function))
    return found


class _LoopsIn(cst.CSTVisitor):
    def __init__(self, wanted: set[int]) -> None:
        self.wanted = wanted
        self.found: set[int] = set()

    def visit_For(self, node: cst.For) -> None:
        if id(node) in self.wanted:
            self.found.add(id(node))


def _holds(statement: cst.CSTNode, loops: set[int]) -> bool:
    finder = _LoopsIn(loops)
    walk(statement, finder)
    return finder.found == loops


def init_statement(inits: list[ParameterInit]) -> cst.BaseStatement | None:
    """The innermost statement that holds every loop of `inits`, all of one function (`if
    opt.param_init: for p in model.parameters(): ... elif opt.glorot: ...`): the init of a built
    model as that function chooses it; None where the loops stand in different functions."""
    function = inits[0].function
    if function is None or any(found.function is not function for found in inits):
        return None
    loops = {id(found.loop) for found in inits}
    body: Sequence[cst.BaseStatement] = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    chosen: cst.BaseStatement | None = None
    while True:
        holding = [statement for statement in body if _holds(statement, loops)]
        if len(holding) != 1:
            return chosen
        chosen = holding[0]
        if (
            id(chosen) in loops
            or not isinstance(chosen, (cst.If, cst.With))
            or isinstance(chosen, cst.If)
            and chosen.orelse
        ):
            return chosen
        inner = chosen.body
        body = inner.body if isinstance(inner, cst.IndentedBlock) else ()
