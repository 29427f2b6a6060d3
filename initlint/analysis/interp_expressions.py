"""The interpreter's expressions: what each kind of expression evaluates to.

A mixin of the interpreter (`interp.Interpreter`) and the table `Interpreter.eval` dispatches
through: names, literals, attributes, operators, conditional expressions, displays and calls
(the arguments evaluated and spread; the call itself is the interpreter's `call_value`). Any
expression the table does not name evaluates to UNKNOWN.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, cast

import libcst as cst

from initlint.analysis import python_operators, python_semantics, torch_semantics
from initlint.analysis.abstract import (
    UNKNOWN,
    Choice,
    ClassPartial,
    ClassRef,
    Const,
    ExtRef,
    Env,
    Lambda,
    Mapping,
    ModRef,
    NewTensor,
    Opaque,
    Seq,
    as_number,
    default_number,
    truth,
)
from initlint.analysis.index import ModuleIndex
from initlint.analysis.layers import layer_type

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


_NOT_LITERAL = object()


@lru_cache(maxsize=4096)
def _literal_value(code: str) -> Any:
    """The value of a literal's text, kept per text: `ast.literal_eval` compiles it each time, and
    a model built in many variants (timm's HRNet: 11 of them) reads the same literals 36,000
    times. What depends on the stack (RecursionError, MemoryError) is raised, never kept."""
    try:
        return ast.literal_eval(code)
    except (ValueError, SyntaxError):
        return _NOT_LITERAL


class InterpExpressions:
    """Runs on an `Interpreter` (it says so with `cast` where a semantics module asks for one)."""

    index: ModuleIndex

    if TYPE_CHECKING:  # declared only: a stub here would hide the interpreter's own method

        def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any: ...

        def code(self, node: cst.CSTNode) -> str: ...

        def global_value(self, name: str) -> Any: ...

        def assign(self, target: cst.BaseExpression, value: Any, env: Env, ctx: Ctx, stmt: cst.CSTNode) -> None: ...

        def call_value(self, callee: Any, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.Call) -> Any: ...

    def _name(self, node: cst.Name, env: Env, ctx: Ctx) -> Any:
        if node.value in env.names:
            return env.names[node.value]
        return self.global_value(node.value)

    def _literal(self, node: cst.BaseExpression, env: Env, ctx: Ctx) -> Any:
        try:
            value = _literal_value(self.code(node))
        except (MemoryError, RecursionError):
            return UNKNOWN
        return UNKNOWN if value is _NOT_LITERAL else Const(value)

    def _attribute(self, node: cst.Attribute, env: Env, ctx: Ctx) -> Any:
        return torch_semantics.get_attr(
            cast("Interpreter", self), self.eval(node.value, env, ctx), node.attr.value, ctx
        )

    def _binary(self, node: cst.BinaryOperation, env: Env, ctx: Ctx) -> Any:
        return python_semantics.binary(
            cast("Interpreter", self),
            node.operator,
            self.eval(node.left, env, ctx),
            self.eval(node.right, env, ctx),
            node,
        )

    def _unary(self, node: cst.UnaryOperation, env: Env, ctx: Ctx) -> Any:
        return python_semantics.unary(node.operator, self.eval(node.expression, env, ctx), node)

    def _if_expression(self, node: cst.IfExp, env: Env, ctx: Ctx) -> Any:
        test = self.eval(node.test, env, ctx)
        decided = truth(test)
        if decided is None and isinstance(test, Opaque) and _has_none_arm(node):
            # `nn.Parameter(torch.zeros(n)) if bias else None`: as the config's default builds it.
            decided = self.index.config_flag(test.name)
        if decided is None and _has_none_arm(node):
            # `nn.Parameter(ls_init_value * torch.ones(d)) if ls_init_value > 0 else None`
            # (LayerScale): as the model built with the setting's number default has it.
            decided = _compared_by_default(node.test, lambda part: self.eval(part, env, ctx))
        if decided is True:
            return self.eval(node.body, env, ctx)
        if decided is False:
            return self.eval(node.orelse, env, ctx)
        body = self.eval(node.body, env, ctx.uncertain())
        if isinstance(body, ModRef) and (ctx.repeat is not None or ctx.in_repeat):
            # `Attn(cfg) if i in attn_layers else Mixer(cfg) for i in range(n)`: built per layer,
            # each layer is one of the two, as a module bound in either arm of an `if` is.
            orelse = self.eval(node.orelse, env, ctx.uncertain())
            return body.either(orelse) if isinstance(orelse, ModRef) and orelse.node is not body.node else body
        if isinstance(body, ModRef):
            return body
        if self.is_layer_class(body):
            # `Residual if n_streams == 1 else HyperConnections`: one of two layer classes,
            # each built where the value is called (`interp.call_value`).
            orelse = self.eval(node.orelse, env, ctx.uncertain())
            return Choice((body, orelse)) if self.is_layer_class(orelse) and orelse != body else UNKNOWN
        if as_number(body) is not None and isinstance(node.orelse, _PLAIN_NUMBER_NODES):
            # `n_experts if is_moe_layer else 1`: a count either way, one of the two.
            orelse = self.eval(node.orelse, env, ctx.uncertain())
            if as_number(orelse) is not None:
                return body if orelse == body else Choice((body, orelse))
        return UNKNOWN

    def is_layer_class(self, value: Any) -> bool:
        """A module class of the file (or one with arguments bound), or a library layer class."""
        interp = cast("Interpreter", self)
        if isinstance(value, (ClassRef, ClassPartial)):
            return interp.index.is_module_class(value.cls)
        return isinstance(value, ExtRef) and layer_type(interp.knowledge, value.name) is not None

    def _sequence(self, node: cst.Tuple | cst.List | cst.Set, env: Env, ctx: Ctx) -> Any:
        items: list[Any] = []
        for element in node.elements:
            value = self.eval(element.value, env, ctx)
            if not isinstance(element, cst.StarredElement):
                items.append(value)
            elif isinstance(value, Seq) and value.repeat is None:
                items.extend(value.items)
            else:
                return UNKNOWN
        return Seq(items, written_as=_WRITTEN_AS.get(type(node)))

    def _dict(self, node: cst.Dict, env: Env, ctx: Ctx) -> Any:
        mapping: dict[Any, Any] = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = self.eval(element.key, env, ctx)
                if isinstance(key, Const):
                    mapping[key.value] = self.eval(element.value, env, ctx)
            else:
                spread = self.eval(element.value, env, ctx)  # `{"width": w, **options}`
                if isinstance(spread, Mapping):
                    mapping.update(spread.items)
        return Mapping(mapping)

    def _named_expression(self, node: cst.NamedExpr, env: Env, ctx: Ctx) -> Any:
        value = self.eval(node.value, env, ctx)
        self.assign(node.target, value, env, ctx, node)
        return value

    def eval_call(self, node: cst.Call, env: Env, ctx: Ctx) -> Any:
        callee = self.eval(node.func, env, ctx)
        args: list[Any] = []
        kwargs: dict[Any, Any] = {}
        for arg in node.args:
            value = self.eval(arg.value, env, ctx)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            elif arg.star == "*":
                if isinstance(value, Seq) and value.repeat is None:
                    args.extend(value.items)
                else:
                    args.append(value)
            elif arg.star == "**":
                if isinstance(value, Mapping):
                    kwargs.update({str(k): v for k, v in value.items.items()})
            else:
                args.append(value)
        result = self.call_value(callee, args, kwargs, ctx, node)
        if isinstance(result, NewTensor) and result.op.kind != "scale":
            _rebind_initialised_in_place(node, result, env)
        return result


def _rebind_initialised_in_place(call: cst.Call, result: NewTensor, env: Env) -> None:
    """`nn.init.normal_(w, std=0.02)` or `w.normal_(std=0.02)` on a fresh tensor held by a local
    (`w = torch.empty(nx, nf)`), later wrapped as `nn.Parameter(w)`: PyTorch's in-place ops (the
    trailing underscore) change the tensor the name holds, so the name now holds the init."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value.endswith("_"):
        target = func.value if _is_tensor_name(func.value, env) else call.args[0].value if call.args else None
    elif isinstance(func, cst.Name) and func.value.endswith("_") and call.args:
        target = call.args[0].value
    else:
        return
    if isinstance(target, cst.Attribute) and target.attr.value == "data":
        target = target.value  # `w.data.normal_()`: the same storage
    if isinstance(target, cst.Name) and isinstance(env.names.get(target.value), NewTensor):
        env.names[target.value] = result


def _is_tensor_name(node: cst.BaseExpression, env: Env) -> bool:
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return isinstance(node, cst.Name) and isinstance(env.names.get(node.value), NewTensor)


Expression = Callable[["Interpreter", Any, Env, "Ctx"], Any]
#: Expression node type -> its meaning; any other expression evaluates to UNKNOWN.
_EXPRESSIONS: dict[type, Expression] = {
    cst.Name: InterpExpressions._name,
    **dict.fromkeys((cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString), InterpExpressions._literal),
    cst.Attribute: InterpExpressions._attribute,
    cst.Call: InterpExpressions.eval_call,
    cst.BinaryOperation: InterpExpressions._binary,
    cst.UnaryOperation: InterpExpressions._unary,
    cst.BooleanOperation: lambda interp, node, env, ctx: python_semantics.boolean(interp, node, env, ctx),
    cst.Comparison: lambda interp, node, env, ctx: python_semantics.compare(interp, node, env, ctx),
    cst.IfExp: InterpExpressions._if_expression,
    **dict.fromkeys((cst.Tuple, cst.List, cst.Set), InterpExpressions._sequence),
    cst.Dict: InterpExpressions._dict,
    **dict.fromkeys(
        (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp),
        lambda interp, node, env, ctx: python_semantics.comprehension(interp, node, env, ctx),
    ),
    cst.Subscript: lambda interp, node, env, ctx: python_semantics.subscript(interp, node, env, ctx),
    cst.Lambda: lambda interp, node, env, ctx: Lambda(node, env, interp.index),
    cst.NamedExpr: InterpExpressions._named_expression,
}


_WRITTEN_AS: dict[type, str] = {cst.Tuple: "tuple", cst.List: "list"}


#: Expressions that name or write a number without calling anything: evaluating one on a path
#: that may not run has no effect.
_PLAIN_NUMBER_NODES = (cst.Integer, cst.Float, cst.Name, cst.Attribute)


def _compared_by_default(test: cst.BaseExpression, evaluate: Callable[[cst.BaseExpression], Any]) -> bool | None:
    """A comparison of a setting with a number (`ls_init_value > 0`) decided by the number
    default the setting has where nothing passes it (`ls_init_value: float = 1e-6`); None for
    any other test, or where a side has no number."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    compare = python_operators.ORDERINGS.get(type(target.operator))
    left, right = evaluate(test.left), evaluate(target.comparator)
    if compare is None or not isinstance(left, Opaque) and not isinstance(right, Opaque):
        return None
    a, b = default_number(left), default_number(right)
    return compare(a, b) if a is not None and b is not None else None


def _has_none_arm(node: cst.IfExp) -> bool:
    return any(isinstance(arm, cst.Name) and arm.value == "None" for arm in (node.body, node.orelse))
