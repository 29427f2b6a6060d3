"""Stage 4: put it together — roots, their residual stacks, writers and depth."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from initlint.analysis.flow import is_norm
from initlint.analysis.construction import classes_built_declined, init_like
from initlint.analysis.block_stacks import stacks_of
from initlint.analysis.index import ClassInfo, ModuleIndex, build_index
from initlint.analysis import linking, presets
from initlint.analysis.interp import Interpreter
from initlint.errors import StepBudgetExceeded
from initlint.analysis.knowledge.conventions import DEPTH_NAMES
from initlint.analysis.model import (
    Analysis,
    InitOp,
    ModuleNode,
    Stack,
)
from initlint.analysis.residual import ForwardReader
from initlint.analysis.block_loops import repeat_runs, runs_side_by_side
from initlint.analysis.streams import join_streams
from initlint.analysis.uncalled_inits import may_write_weights, unchanged_by_uncalled, uncalled_init_functions
from initlint.analysis.usage import NameUses
from initlint.config import AnalysisOptions


def _start_root(interp: Interpreter) -> None:
    interp.executed = set()
    interp.declined_names = {}
    interp.decided_choices = {}
    interp.incomplete = False


#: Module-level functions tried as model builders per file, in file order. A model zoo file
#: (timm's vision_transformer.py has 164 `@register_model` variants of one class) would otherwise
#: spend its whole budget rebuilding the same class with other numbers; the class is a root anyway.
MAX_FUNCTION_ROOTS = 16


def _function_roots(
    interp: Interpreter, index: ModuleIndex, uses: NameUses
) -> tuple[list[ModuleNode], list[ModuleNode]]:
    """Models built by a module-level function nothing in the file calls. Run after the classes; a
    function that builds no model leaves no trace, not even the steps it spent. Also the models
    of builders that return a class of the file, kept aside: that class is a root already, but
    its presets may build it with flags of the builder's (`_preset_roots`)."""
    roots: list[ModuleNode] = []
    aside: list[ModuleNode] = []
    candidates = [
        func
        for name, func in index.functions.items()
        # A function the file calls builds a part of something, not a model (a call in the
        # file's demo under `__main__` builds one); one handing back the model it was given
        # (sharding, compiling it) builds none.
        if not (
            init_like(name)
            or uses.is_read_on_import(name)
            or not uses.returns_value(name)
            or uses.hands_back_its_input(name)
        )
    ]
    for func in candidates[:MAX_FUNCTION_ROOTS]:
        if uses.returns_only_literals(func.name.value):
            continue  # (`return mesh, None`): run, it could only spend steps and leave no root
        saved = (
            set(interp.instantiated),
            dict(interp.branch_taken),
            dict(interp.skipped_inits),
            interp.deliberate_scheme,
            interp.steps,
        )
        root = _build_function_root(interp, index, uses, func)
        if root is None or root.cls is not None and interp.defined_here(root.cls):
            interp.instantiated, interp.branch_taken, interp.skipped_inits, interp.deliberate_scheme, interp.steps = (
                saved
            )
            aside.extend([root] if root is not None else [])
            continue
        roots.append(root)
    return roots, aside


def _build_function_root(
    interp: Interpreter, index: ModuleIndex, uses: NameUses, func: cst.FunctionDef
) -> ModuleNode | None:
    _start_root(interp)
    try:
        root = interp.build_function_root(func, own_class=True)
    except (StepBudgetExceeded, RecursionError):
        return None
    if root is not None:
        root.builder = func
        root.uncalled_init = uncalled_init_functions(index, root, interp, uses)
        root.unchanged_by_uncalled = unchanged_by_uncalled(interp, root)
        root.incomplete = interp.incomplete
    return root


def _class_roots(interp: Interpreter, index: ModuleIndex, uses: NameUses, foreign: bool = False) -> list[ModuleNode]:
    """A model per class of the file, last class first, skipping the classes an earlier model
    already built; a class whose construction runs out of steps (or recursion) has none.
    `foreign`: the file is another one of the project, whose models stack the checked file's blocks."""
    trees: list[ModuleNode] = []
    # Parts a root builds only in an arm its defaults turn off would miss, built alone, the root's
    # init code (HF's `post_init`): one with blocks of its own is judged in the root built with the
    # arm taken (a part still marks the classes it builds as parts).
    declined_by_initialising: dict[str, tuple[ClassInfo, cst.If]] = {}
    arms_taken: set[int] = set()
    # Outer classes usually come last: building them first marks the classes they contain,
    # which then need no tree of their own (they are not roots).
    for cls in reversed(index.module_classes()):
        if cls.name in interp.instantiated:
            continue
        root = _keeping_parts(interp, index, uses, cls, foreign)
        if root is not None and not _holds_blocks(root):
            root = _assembled_by_factory(interp, index, uses, cls, foreign) or root
        declining = declined_by_initialising.get(cls.name)
        if root is None or declining is not None:
            if declining is not None and _holds_blocks(root) and id(declining[1]) not in arms_taken:
                arms_taken.add(id(declining[1]))
                trees.extend(_variants(interp, index, uses, declining[0], [declining[1]], foreign))
            continue
        trees.append(root)
        if root.runs_init_code and root.holds_parameters():
            for name, choice in interp.declined_names.items():
                declined_by_initialising.setdefault(name, (cls, choice))
        trees.extend(_choice_variants(interp, index, uses, cls, foreign))
    return trees


def _keeping_parts(
    interp: Interpreter, index: ModuleIndex, uses: NameUses, cls: ClassInfo, foreign: bool
) -> ModuleNode | None:
    """`cls` built as a model; one that kept none of the parts it built (a trainer's `self.G,
    self.D = accelerator.prepare(self.G, self.D)`) contains none of them: they stay roots."""
    built_before = set(interp.instantiated)
    root = _build_class_root(interp, index, uses, cls, foreign)
    if root is not None and not root.holds_parameters():
        interp.instantiated = built_before
    return root


def _assembled_by_factory(
    interp: Interpreter, index: ModuleIndex, uses: NameUses, cls: ClassInfo, foreign: bool
) -> ModuleNode | None:
    """A class that holds no blocks built alone, handed them by a factory of its own that builds
    them and passes them to its `__init__` (`LM.from_config(config)`): the model that factory
    builds, where it holds blocks. One that holds none leaves no trace."""
    if not interp.has_factory(cls):
        return None
    saved = (set(interp.instantiated), dict(interp.branch_taken), dict(interp.skipped_inits), interp.steps)
    started = (interp.executed, interp.declined_names, interp.decided_choices, interp.incomplete)
    root = _build_class_root(interp, index, uses, cls, foreign, factory=True)
    if _holds_blocks(root):
        return root
    interp.instantiated, interp.branch_taken, interp.skipped_inits, interp.steps = saved
    interp.executed, interp.declined_names, interp.decided_choices, interp.incomplete = started
    return None


def _holds_blocks(root: ModuleNode | None) -> bool:
    return root is not None and any(node.repeat is not None for _, node in root.named_modules())


#: How many child-choosing `if`s of one model are each taken the other way (a model apiece).
MAX_CHOICE_VARIANTS = 3


def _choice_variants(
    interp: Interpreter, index: ModuleIndex, uses: NameUses, cls: ClassInfo, foreign: bool
) -> list[ModuleNode]:
    """The model just built, once more per `if` that chose one of two children as its defaults
    decide (`if config.stable_norm: self.encoder = StableEncoder(config) else: ...`), with that
    `if` taken the other way: a model a user builds by setting the flag, its init code reaching
    the other child as it would. An `if` its construction took both ways has both children."""
    choices = [
        choice
        for choice, decisions in interp.decided_choices.values()
        if len(decisions) == 1 and _builds_unseen_class(interp, choice, *decisions)
    ]
    return _variants(interp, index, uses, cls, choices[:MAX_CHOICE_VARIANTS], foreign)


def _variants(
    interp: Interpreter, index: ModuleIndex, uses: NameUses, cls: ClassInfo, choices: list[cst.If], foreign: bool
) -> list[ModuleNode]:
    """The model `cls` built once more per `if` of `choices`, taken the other way than its defaults take it."""
    taken = dict(interp.branch_taken)  # a dead init stays dead: the default model never runs it
    variants = []
    for choice in choices:
        interp.flipped_choice = id(choice)
        try:
            variant = _keeping_parts(interp, index, uses, cls, foreign)
        finally:
            interp.flipped_choice = None
        if variant is not None and variant.holds_parameters():
            variant.flipped_choice = choice.test
            variants.append(variant)
    _restore_branches_taken(interp, taken)
    return variants


def _builds_unseen_class(interp: Interpreter, choice: cst.If, decided: bool) -> bool:
    """The arm left out builds a class of the file that no model built so far contains: a
    library layer (`nn.Identity()` instead of a head) holds no stack of its own, and a class an
    earlier model (or its variant) built was analysed there."""
    declined = classes_built_declined(choice, decided)
    return any(name in interp.index.classes and name not in interp.instantiated for name in declined)


def _restore_branches_taken(interp: Interpreter, taken: dict[int, bool]) -> None:
    """Whether each `if` ran, as the models built with their defaults have it: an init in an arm
    only a variant takes is still dead code for them, and one only a variant meets is none of theirs."""
    for key in list(interp.branch_taken):
        if key in taken:
            interp.branch_taken[key] = taken[key]
        else:
            del interp.branch_taken[key]
            interp.skipped_inits.pop(key, None)


def _build_class_root(
    interp: Interpreter,
    index: ModuleIndex,
    uses: NameUses,
    cls: ClassInfo,
    foreign: bool = False,
    factory: bool = False,
) -> ModuleNode | None:
    """One class built as a model (by a factory of its own, with `factory`), its arguments
    symbols, with the inits its users would run; None where that runs out of steps (or recursion)."""
    _start_root(interp)
    try:
        root = interp.build_factory_root(cls) if factory else interp.build_root(cls)
        if root is None:
            return None
        root.foreign = foreign
        # A caller found in the project wins; with none, the single-file fallback runs it.
        linking.after_construction(interp, root)
        interp.run_entry_point(root, uses, interp.executed)
        interp.run_lazy_inits(root)
    except (StepBudgetExceeded, RecursionError):
        return None
    root.uncalled_init = uncalled_init_functions(index, root, interp, uses)
    root.unchanged_by_uncalled = unchanged_by_uncalled(interp, root, uses)
    root.incomplete = interp.incomplete
    root.runs_init_code = _runs_init_code(interp, root)
    return root


def _runs_init_code(interp: Interpreter, root: ModuleNode) -> bool:
    """Whether the root's construction ran init code: an init op from code, or an init function
    that may write weights (one applied to modules it could not see included)."""
    if any(op.node is not None for op in _init_ops(root)):
        return True
    index = interp.index
    methods = [(name, func) for cls in index.classes.values() for name, func in cls.methods.items()]
    return any(
        id(func) in interp.executed and init_like(name) and may_write_weights(func)
        for name, func in [*index.functions.items(), *methods]
    )


def _imported_deliberate_scheme(interp: Interpreter, index: ModuleIndex) -> str | None:
    """The init scheme that a library the file imports applies on purpose (the registry's
    `deliberate_imports`); where several do, the last import wins."""
    found = None
    for imported in index.imports.values():
        scheme = interp.knowledge.deliberate_scheme_of_import(imported)
        if scheme:
            found = scheme
    return found


def _depth_atoms(options: AnalysisOptions, stacks: list[Stack]) -> frozenset[str]:
    """The names that stand for the model's depth, the configured ones among them."""
    # The container's repeat count decides what the depth is called; the common names stay
    # synonyms (HF configs alias `n_layer` to `num_hidden_layers` through `attribute_map`).
    depth_atoms = set(options.depth_names) | DEPTH_NAMES
    for stack in stacks:
        depth_atoms.update(name for name in stack.depth.atom_names() if not name.startswith("("))
    return frozenset(depth_atoms)


def analyze(
    module: cst.Module,
    options: AnalysisOptions | None = None,
    source: str | None = None,
    project: linking.ProjectContext | None = None,
) -> Analysis:
    """The analysis of one file; with `project`, names imported from its project are followed."""
    options = options or AnalysisOptions()
    shared = project.shared(module) if project is not None else None
    interp = linking.interpreter(module, shared.index if shared is not None else build_index(module), options, project)
    index = interp.index
    analysis = Analysis(module=module, options=options, index=index, source=source)
    analysis.deliberate_scheme = _imported_deliberate_scheme(interp, index)
    uses = shared.uses if shared is not None else NameUses(module, source)
    trees = _class_roots(interp, index, uses)
    built, aside = _function_roots(interp, index, uses)
    trees.extend(built)
    analysis.dead_inits = interp.dead_inits()
    analysis.deliberate_scheme = analysis.deliberate_scheme or interp.deliberate_scheme
    analysis.enum_defaults = dict(interp.enum_defaults)
    used = interp.instantiated | {
        node.cls.name for tree in trees for _, node in tree.named_modules() if node is not tree and node.cls is not None
    }
    # A builder's model of another file's class (`return Decoder(...)`) is a root whatever else built that class.
    analysis.roots = [
        tree
        for tree in reversed(trees)
        if tree.cls is None or not interp.defined_here(tree.cls) or tree.cls.name not in used
    ]
    reader = linking.forward_reader(interp)
    for root in analysis.roots:
        try:
            stacks = _set_aside_side_by_side(analysis, reader, stacks_of(root, reader))
            repeat_runs(stacks, reader)
            analysis.stacks.extend(stacks)  # (kept should the root's own forward run out of steps)
            join_streams(root, stacks, reader.stream_runs(root))
            analysis.heads.extend(reader.output_layers(root))
        except (StepBudgetExceeded, RecursionError):
            continue
    for root, stacks in _foreign_roots(interp, reader, analysis) or _wrapping_roots(interp, reader, analysis):
        analysis.roots.append(root)
        analysis.stacks.extend(_set_aside_side_by_side(analysis, reader, stacks))
    for root, stacks in _stacks_built_blind(interp, reader, analysis, uses):
        analysis.roots.append(root)
        analysis.stacks.extend(_set_aside_side_by_side(analysis, reader, stacks))
    for root, stacks in _preset_roots(interp, reader, analysis, uses, aside):
        analysis.roots.append(root)
        analysis.stacks.extend(_set_aside_side_by_side(analysis, reader, stacks))
    analysis.deliberate_scheme = analysis.deliberate_scheme or interp.deliberate_scheme
    analysis.depth_atoms = _depth_atoms(options, analysis.stacks)
    return analysis


def _handed_in(node: ModuleNode, outer: ModuleNode) -> bool:
    """Whether `node` is, or sits inside, a part `outer` is handed typed with its class."""
    current: ModuleNode | None = node
    while current is not None and current is not outer:
        if current.handed_in:
            return True
        current = current.parent
    return False


def _preset_roots(
    interp: Interpreter, reader: ForwardReader, analysis: Analysis, uses: NameUses, aside: list[ModuleNode]
) -> list[tuple[ModuleNode, list[Stack]]]:
    """A root whose blocks a flag without a default leaves neither pre-norm nor post-norm, built
    again with the flags of each preset of the project that sets it (`presets.py`); a model
    whose blocks a preset makes pre-norm is one the project builds. The builders kept aside (they
    return a class of the file) are asked too: they may hold the stack the class alone lacks."""
    found: list[tuple[ModuleNode, list[Stack]]] = []
    undecided = [(root, presets.undecided_flags(_own_stacks(analysis, root))) for root in analysis.roots]
    for root in aside:
        try:
            undecided.append((root, presets.undecided_flags(stacks_of(root, reader))))
        except (StepBudgetExceeded, RecursionError):
            continue
    for root, names in undecided:
        for flags, build in presets.preset_bindings(interp, root, names) if names else ():
            interp.preset_flags = flags
            try:
                variant = _rebuilt(interp, analysis.index, uses, root)
                stacks = stacks_of(variant, reader) if variant is not None else []
            except (StepBudgetExceeded, RecursionError):
                continue
            finally:
                interp.preset_flags = {}
            if variant is not None and any(add.prenorm for stack in stacks for add in stack.adds):
                variant.preset = build
                found.append((variant, stacks))
    return found


def _own_stacks(analysis: Analysis, root: ModuleNode) -> list[Stack]:
    return [stack for stack in analysis.stacks if stack.root is root]


def _rebuilt(interp: Interpreter, index: ModuleIndex, uses: NameUses, root: ModuleNode) -> ModuleNode | None:
    if root.builder is not None:
        return _build_function_root(interp, index, uses, root.builder)
    return _build_class_root(interp, index, uses, root.cls) if root.cls is not None else None


def _set_aside_side_by_side(analysis: Analysis, reader: ForwardReader, stacks: list[Stack]) -> list[Stack]:
    """The stacks whose blocks one stream runs through in turn; lists of blocks run side by side
    (each handed a value built afresh) are kept apart for `explain`: their count is no depth."""
    apart = {id(stack) for stack in stacks if runs_side_by_side(stack.container, reader)}
    analysis.side_by_side.extend(stack for stack in stacks if id(stack) in apart)
    return [stack for stack in stacks if id(stack) not in apart]


def _models_a_stream(stack: Stack) -> bool:
    """A stack of layers around a stream: it adds into one, or its blocks hold norms (BERT's
    post-norm layers add inside submodules handed the residual). A list of attention heads,
    neither, is no model of the stream."""
    return bool(stack.adds) or any(is_norm(node) for _, node in stack.block.named_modules())


def _foreign_roots(
    interp: Interpreter, reader: ForwardReader, analysis: Analysis
) -> list[tuple[ModuleNode, list[Stack]]]:
    """A file whose own models stack none of its writers (it defines blocks) is analysed with the
    models of the project files that stack them: those whose stacks hold a writer built here."""
    if any(_models_a_stream(stack) for stack in analysis.stacks):
        return []  # its own models stack its blocks (pre-norm or not): they are the file's answer
    found: list[tuple[ModuleNode, list[Stack]]] = []
    for root in _outermost_foreign_roots(interp):
        try:
            stacks = stacks_of(root, reader)
        except (StepBudgetExceeded, RecursionError):
            continue
        if _stacks_writers_built_here(analysis, stacks):
            found.append((root, stacks))
    return found


def _outermost_foreign_roots(interp: Interpreter, naming: frozenset[str] = frozenset()) -> list[ModuleNode]:
    """The models of the project files that use the checked file's definitions (those that read
    one of `naming`, when given); a model another one of them contains (`VisionEncoder` inside
    `Transformer`) is not a root."""
    roots = [
        root
        for linked, uses in linking.stacking_files(interp)
        if not naming or any(uses.is_read(name) for name in naming)
        for root in _class_roots(interp, linked, uses, foreign=True)
    ]
    inner = {id(node.cls.node) for root in roots for _, node in root.named_modules() if node is not root and node.cls}
    return [root for root in roots if root.cls is None or id(root.cls.node) not in inner]


def _wrapping_roots(
    interp: Interpreter, reader: ForwardReader, analysis: Analysis
) -> list[tuple[ModuleNode, list[Stack]]]:
    """A model of the checked file that models of other project files build (`LM` holding a
    `Backbone`) is initialised as they build it: their constructors run after its own and may
    redraw its writers. Its stacks are those models' copies of it, in place of its own. Only a
    model that leaves its writers at PyTorch's default init leaves their init to them (one that
    initialises them, a `post_init` model, is answered by its own)."""
    stacked = frozenset(
        stack.root.cls.name
        for stack in analysis.stacks
        if stack.adds and stack.root.cls is not None and _writers_left_at_default(stack)
    )
    if not stacked:
        return []
    found: list[tuple[ModuleNode, list[Stack]]] = []
    wrapped: set[str] = set()
    for outer in _outermost_foreign_roots(interp, stacked):
        # A model the outer one is handed typed with its class (a trainer's `model: LM`) is a
        # reading of the default, weaker than the file's own models: those keep their answer.
        inside = stacked & {
            node.cls.name
            for _, node in outer.named_modules()
            if node is not outer
            and node.cls is not None
            and linking.in_checked_file(analysis.index, node.cls.node)
            and not _handed_in(node, outer)
        }
        if not inside:
            continue
        try:
            stacks = stacks_of(outer, reader)
        except (StepBudgetExceeded, RecursionError):
            return []  # an outer model that cannot be read leaves the file's own answer standing
        redrawn = _redrawn_writers_built_here(analysis, stacks)
        # Only a model of the file whose writers the outer init redraws is answered by it
        # (open_clip's CLIP redraws its text tower's writers, never its vision tower's).
        answered = {
            node.cls.name
            for _, node in outer.named_modules()
            if node.cls is not None
            and node.cls.name in inside
            and any(path.startswith(node.path + ".") for path in redrawn)
        }
        if not answered:
            continue
        found.append((outer, stacks))
        wrapped |= answered
    analysis.roots = [root for root in analysis.roots if root.cls is None or root.cls.name not in wrapped]
    kept = {id(root) for root in analysis.roots}
    analysis.stacks = [stack for stack in analysis.stacks if id(stack.root) in kept]
    return found


def _writers_left_at_default(stack: Stack) -> bool:
    weights = [writer.weight for writer in stack.writers]
    return bool(weights) and all(
        weight is not None and all(op.kind == "default" for op in weight.ops) for weight in weights
    )


def _redrawn_writers_built_here(analysis: Analysis, stacks: list[Stack]) -> list[str]:
    """Paths of the writers the checked file builds whose init the outer model's code changes
    from PyTorch's default."""
    return [
        writer.node.path
        for stack in stacks
        for writer in stack.writers
        if writer.node.created_at is not None
        and linking.in_checked_file(analysis.index, writer.node.created_at)
        and writer.weight is not None
        and any(op.kind != "default" for op in writer.weight.ops)
    ]


def _stacks_writers_built_here(analysis: Analysis, stacks: list[Stack]) -> bool:
    # (A matrix parameter's own construction: a block of the user's file may hold a module of this one.)
    created = [writer.created_at for stack in stacks for writer in stack.writers]
    return any(node is not None and linking.in_checked_file(analysis.index, node) for node in created)


def _stacks_built_blind(
    interp: Interpreter, reader: ForwardReader, analysis: Analysis, uses: NameUses
) -> list[tuple[ModuleNode, list[Stack]]]:
    """A stack class a root builds where its depth is lost (`Stage(layers=n)` in a loop over
    tuples the root is given): the root's copy keeps one block and no stack. The class is
    analysed on its own, its depth argument a symbol, when nothing but its own construction
    initialises the copies the root builds (no init code of the root reaches them)."""
    found: list[tuple[ModuleNode, list[Stack]]] = []
    done = {root.cls.name for root in analysis.roots if root.cls is not None}
    for outer in list(analysis.roots):
        if outer.cls is None or outer.foreign or outer.uncalled_init:
            continue
        for copies in _unstacked_copies(interp, analysis, outer).values():
            cls = copies[0].cls
            assert cls is not None
            if cls.name in done or not _left_to_own_init(outer, copies):
                continue
            done.add(cls.name)
            built = _built_alone(interp, uses, cls)
            if built is None:
                continue
            try:
                stacks = [stack for stack in stacks_of(built, reader) if stack.writers]
            except (StepBudgetExceeded, RecursionError):
                continue
            if stacks and all(not stack.depth.is_constant for stack in stacks):
                built.stands_in_for, built.created_at = outer.type_name, copies[0].created_at
                found.append((built, stacks))
    return found


def _unstacked_copies(interp: Interpreter, analysis: Analysis, outer: ModuleNode) -> dict[str, list[ModuleNode]]:
    """The modules of the file's classes in a root that neither hold nor sit in one of its stacks."""
    stacked = [stack.container.path for stack in analysis.stacks if stack.root is outer]
    copies: dict[str, list[ModuleNode]] = {}
    for _, node in outer.named_modules():
        if node is outer or node.cls is None or not interp.defined_here(node.cls):
            continue
        path = node.path
        if any(_nested(path, other) or _nested(other, path) for other in stacked):
            continue
        copies.setdefault(node.cls.name, []).append(node)
    return copies


def _nested(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer + ".")


def _left_to_own_init(outer: ModuleNode, copies: list[ModuleNode]) -> bool:
    """Whether the copies' parameters get nothing but their own construction's init. Copies left
    without a parameter by the lost depth show nothing: then only a root that runs no init code
    at all (HF's `post_init`, `self.apply(...)` would reach the real layers) leaves them so."""
    if any(node.params for copy in copies for _, node in copy.named_modules()):
        return all(_only_own_init(outer, copy) for copy in copies)
    return not outer.runs_init_code


def _only_own_init(outer: ModuleNode, copy: ModuleNode) -> bool:
    """Whether every init op on the copy's parameters is a constructor default or runs inside
    the copy's own construction, called straight from the root's `__init__`."""
    assert outer.cls is not None and copy.cls is not None
    own = (f"{outer.cls.name}.__init__", f"{copy.cls.name}.__init__")
    return all(op.node is None and op.kind != "unknown" or op.via[:2] == own for op in _init_ops(copy))


def _init_ops(tree: ModuleNode) -> Iterator[InitOp]:
    """Every init op on every parameter of the tree, in module order."""
    for _, node in tree.named_modules():
        for param in node.params.values():
            yield from param.ops


def _built_alone(interp: Interpreter, uses: NameUses, cls: ClassInfo) -> ModuleNode | None:
    """The class built as a root, its arguments symbols; None where that runs out of steps or
    where an init is left to someone else."""
    root = _build_class_root(interp, interp.index, uses, cls)
    return None if root is None or root.uncalled_init else root
