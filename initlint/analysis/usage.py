"""Which names a module's code reads, computed once per file with Python's own `ast`.

Two questions are asked of the whole module: which module-level functions nothing in the file
calls (a builder run as a model of its own) and whether an init entry point is used anywhere
(`model.apply(model._init_weights)`); the project's caller search asks a third, which top-level
statements use a method as an attribute. A LibCST visitor walks a module at about a third of the
cost of parsing it, once per question and name; `ast` answers all of them from one cheap parse,
made once per file content and run (`Parsed.uses` holds it for the project's files). The same
read also lists the file's imports, for the project's search of the files that use another
(`Store.import_texts`): a file both searched and checked is read with `ast` once.
"""

from __future__ import annotations

import ast
import warnings
from collections import defaultdict

import libcst as cst


#: Return values that are no module whatever their parts: what the interpreter makes of them
#: (`interp_expressions._EXPRESSIONS`) is a sequence, a mapping, a constant or unknown.
_LITERALS = (
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Constant,
    ast.JoinedStr,
)


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        #: identifier -> for each use, the names of the functions it stands in
        self.uses: dict[str, list[frozenset[str]]] = defaultdict(list)
        self.read: set[str] = set()
        #: the names read where importing the module runs or defines code: outside the body of
        #: a top-level `if __name__ == "__main__":` (a demo or quick test of the file's models)
        self.read_on_import: set[str] = set()
        self._in_main = False
        #: functions (by name) with a `return <value>` of their own, outside nested functions
        self.returning: set[str] = set()
        #: those of them with a `return` of anything but a literal (`return mesh, None`): the
        #: interpreter makes a sequence, mapping or constant of a literal, never a module
        self.returning_other: set[str] = set()
        #: functions (by name) whose every `return <value>` hands back parameters, alone or in a
        #: tuple, and then those never rebound in them; the opposite (`handing_other`) wins
        self.handing_parameters: dict[str, set[str]] = defaultdict(set)
        self.handing_other: set[str] = set()
        self._parameters: list[set[str]] = []
        #: function name -> the names it assigns (targets of `=`, `for`, `with ... as`, ...)
        self.rebound: dict[str, set[str]] = defaultdict(set)
        #: attribute name -> the positions of the top-level statements that use it
        self.attribute_statements: dict[str, set[int]] = defaultdict(set)
        self.statement_count = 0
        #: every import, in any block, as the index writes them (`.blocks.Block`, `..x`, `pkg`)
        self.imports: list[str] = []
        #: attribute name -> how many of its uses are a constructor's on its own module
        #: (`self.reset_parameters()` in `__init__`): run as that module is built
        self.constructing: dict[str, int] = defaultdict(int)
        #: those made in a class's `__init__` (a block that imports the layers it builds)
        self.constructor_imports: list[str] = []
        #: per enclosing class or function: whether it is a class, or a class's `__init__`
        self._scopes: list[str] = []
        #: functions called by name on a part of `self` (`zero_init_(self.to_out)`)
        self.on_parts: set[str] = set()
        self._enclosing: list[str] = []
        self._statement = 0

    def visit_Module(self, node: ast.Module) -> None:
        self.statement_count = len(node.body)
        for position, statement in enumerate(node.body):
            self._statement = position
            if isinstance(statement, ast.If) and _is_main_guard(statement.test):
                self._in_main = True
                for inner in statement.body:
                    self.visit(inner)
                self._in_main = False
                self.visit(statement.test)
                for inner in statement.orelse:
                    self.visit(inner)
            else:
                self.visit(statement)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = node.args
        every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        self._enclosing.append(node.name)
        constructor = node.name == "__init__" and bool(self._scopes) and self._scopes[-1] == "class"
        self._scopes.append("constructor" if constructor else "function")
        self._parameters.append({a.arg for a in every} | {a.arg for a in (arguments.vararg, arguments.kwarg) if a})
        self.generic_visit(node)
        self._parameters.pop()
        self._scopes.pop()
        self._enclosing.pop()

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and self._enclosing:
            function = self._enclosing[-1]
            self.returning.add(function)
            if not isinstance(node.value, _LITERALS):
                self.returning_other.add(function)
            items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            names = {item.id for item in items if isinstance(item, ast.Name)}
            if len(names) == len(items) and names <= self._parameters[-1]:
                self.handing_parameters[function] |= names
            else:
                self.handing_other.add(function)
        self.generic_visit(node)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scopes.append("class")
        self.generic_visit(node)
        self._scopes.pop()

    def visit_Import(self, node: ast.Import) -> None:
        # as `_record_import` writes them: `import a.b` binds `a`
        self._imported([alias.name if alias.asname else alias.name.partition(".")[0] for alias in node.names])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        self._imported([f"{module}.{alias.name}" if module else alias.name for alias in node.names])

    def _imported(self, texts: list[str]) -> None:
        self.imports.extend(texts)
        if self._scopes and self._scopes[-1] == "constructor":
            self.constructor_imports.extend(texts)

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load) and self._enclosing:
            self.rebound[self._enclosing[-1]].add(node.id)
        self.read.add(node.id)
        if not self._in_main:
            self.read_on_import.add(node.id)
        self.uses[node.id].append(frozenset(self._enclosing))

    def visit_Call(self, node: ast.Call) -> None:
        first = node.args[0] if node.args else None
        if isinstance(node.func, ast.Name) and isinstance(first, ast.Attribute) and _on_self(first):
            self.on_parts.add(node.func.id)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.uses[node.attr].append(frozenset(self._enclosing))
        if self._scopes[-1:] == ["constructor"] and isinstance(node.value, ast.Name) and node.value.id == "self":
            self.constructing[node.attr] += 1
        self.attribute_statements[node.attr].add(self._statement)
        self.generic_visit(node)


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either side of the `==`."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
    )


def _on_self(node: ast.Attribute) -> bool:
    """`self.to_out`, `self.blocks[-1].proj`: a part of the module a method is building."""
    value: ast.expr = node
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        value = value.value
    return isinstance(value, ast.Name) and value.id == "self"


class NameUses:
    """The names of one module's code, read lazily on the first question: from `source` (its
    text, or its bytes as read from disk), else from `module`'s code. With neither
    (`NameUses(None)`), nothing is known of the module: every question gets the answer it gets
    for a file `ast` cannot read (everything used, None for a set of places), never the answer
    of an empty module."""

    def __init__(self, module: cst.Module | None, source: str | bytes | None = None) -> None:
        self._module = module
        self._source = source
        self._collector: _Collector | None = None
        #: nothing to read, or what there was `ast` could not read: every answer is "unknown"
        self._unreadable = module is None and source is None

    def _collected(self) -> _Collector | None:
        if self._collector is None and not self._unreadable:
            collector = _Collector()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # SyntaxWarnings of the user's code are not ours
                    tree = ast.parse(self._text())
                collector.visit(tree)
            except Exception:  # SyntaxError, ValueError (NUL bytes, decoding), RecursionError, MemoryError
                # LibCST's grammar is not `ast`'s: answer as if everything were used
                self._unreadable = True
                return None
            finally:
                self._module = self._source = None  # the text is held by the file's parse or read
            self._collector = collector
        return self._collector

    def _text(self) -> str | bytes:
        """The text to read; asked only while there is one (`_unreadable` stands for none)."""
        if self._source is not None:
            return self._source
        return self._module.code if self._module is not None else ""

    def import_texts(self) -> tuple[str, ...] | None:
        """Every import of the module, in any block, written as the index writes imports; None
        where `ast` cannot read it."""
        collected = self._collected()
        return None if collected is None else tuple(collected.imports)

    def constructor_import_texts(self) -> tuple[str, ...] | None:
        """The imports made in the body of a class's `__init__` (a block importing the layers it
        builds), written as `import_texts` writes them; None where `ast` cannot read the module."""
        collected = self._collected()
        return None if collected is None else tuple(collected.constructor_imports)

    def is_read(self, name: str) -> bool:
        """Whether the module reads `name` as a plain name (a call, an argument, an assignment's
        value); names that only define a function, attributes and import paths do not count."""
        collected = self._collected()
        return collected is None or name in collected.read

    def is_read_on_import(self, name: str) -> bool:
        """`is_read`, leaving out the body of `if __name__ == "__main__":`: a demo that builds a
        model with a builder function does not make that function a part of another model."""
        collected = self._collected()
        return collected is None or name in collected.read_on_import

    def returns_value(self, name: str) -> bool:
        """Whether a function of that name returns a value somewhere (a `main()` that builds a
        model to train it returns nothing: it is no model builder)."""
        collected = self._collected()
        return collected is None or name in collected.returning

    def returns_only_literals(self, name: str) -> bool:
        """Whether every `return <value>` of a function of that name returns a literal (`return
        mesh, dims`, `return {...}`): a call of it returns no module, so it builds no model."""
        collected = self._collected()
        return collected is not None and name in collected.returning and name not in collected.returning_other

    def hands_back_its_input(self, name: str) -> bool:
        """Whether a function of that name only hands back what it was given (`def parallelize(
        model, mesh): ...; return model`): it shards, compiles or wraps a model, builds none."""
        collected = self._collected()
        if collected is None or name in collected.handing_other or name not in collected.handing_parameters:
            return False
        return not collected.handing_parameters[name] & collected.rebound[name]

    def is_used(self, name: str) -> bool:
        """Whether `name` is called or passed on as a name or an attribute
        (`model.apply(model._init_weights)`) outside functions of that same name, which delegate
        to the children's entry points rather than call the model's, and outside a constructor
        calling it on its own module (`self.reset_parameters()` in a layer's `__init__`), which
        runs as that module is built and applies no model's entry point."""
        collected = self._collected()
        if collected is None:
            return True
        outside = sum(name not in enclosing for enclosing in collected.uses.get(name, ()))
        return outside > collected.constructing.get(name, 0)

    def applied_to_a_part(self, name: str) -> bool:
        """Whether the module calls a function of that name on a part of the module a method
        builds (`zero_init_(self.to_out)`): a helper for chosen layers, not one for a trainer to
        `apply` to every module. False where `ast` cannot read the file."""
        collected = self._collected()
        return collected is not None and name in collected.on_parts

    def functions_using(self, name: str) -> frozenset[str] | None:
        """The functions (by name, nested ones too) inside which `name` is used as a name or an
        attribute (`build(...)`, `components.build(...)`); None where `ast` cannot read the file."""
        collected = self._collected()
        if collected is None:
            return None
        return frozenset(function for enclosing in collected.uses.get(name, ()) for function in enclosing)

    def statements_using(self, attribute: str) -> tuple[int, frozenset[int]] | None:
        """(the number of top-level statements as `ast` reads them, the positions of those that
        use `attribute` as an attribute: `x.attribute`); None where `ast` cannot read the file."""
        collected = self._collected()
        if collected is None:
            return None
        return collected.statement_count, frozenset(collected.attribute_statements.get(attribute, ()))
