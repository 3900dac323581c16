"""The mutants of core/scoring: where they are, what each changes, and which code holds them.

Used by bench/mutate.py (the runner). Each mutant changes one thing in one file: an arithmetic
operator (+ −, × ÷, ** → ×), a comparison (< ≤, > ≥, == !=, in / not in, is / is not), a boolean
operator (and / or), a unary minus or `not` dropped, a number (n → n + 1 for whole numbers;
x → 2x for others, 0 → 1), True / False, or a reducer swapped (median → mean, max ↔ min,
maximum ↔ minimum). Strings, docstrings, annotations, imports and the arguments of `raise` are
left alone (messages are not formulas).
"""

from __future__ import annotations

import ast
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "core/scoring"

SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
            ast.Pow: ast.Mult, ast.FloorDiv: ast.Div}
SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
            ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
            ast.Is: ast.IsNot, ast.IsNot: ast.Is}
SWAP_BOOL = {ast.And: ast.Or, ast.Or: ast.And}
SWAP_NAME = {"median": "mean", "max": "min", "min": "max", "maximum": "minimum",
             "minimum": "maximum"}


@dataclass
class Mutant:
    file: str          # relative to the project
    line: int
    kind: str
    before: str
    after: str
    index: int         # which mutable site of the file (in walk order)
    status: str = "pending"
    seconds: float = 0.0
    tests: int = 0     # how many tests the mutant's statement is executed by
    ran: int = 0       # how many of them ran before one failed (all of them for a survivor)
    killer: str = ""   # the test that failed, "timeout" (it outlived its budget: a hang) or
                       # "error" (the mutated module could not even load)
    how: str = ""      # "code": the function's code swapped in place; "import": re-imported
    site: str = ""     # where it is, independent of line numbers (site_of); "" in old runs


# -- generating ------------------------------------------------------------------------------------

def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, raise arguments, f-strings."""
    skip: set[int] = set()

    def all_of(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            all_of(node.exc)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            all_of(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    all_of(arg.annotation)
        elif isinstance(node, ast.AnnAssign):
            all_of(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            all_of(node)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            all_of(node)
    return skip


def _sites(tree: ast.AST) -> list[tuple[ast.AST, str, str, str]]:
    """(node, kind, before, after) for every mutable site, in a deterministic order."""
    skip = _skipped_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in SWAP_BIN:
            out.append((node, "binop", type(node.op).__name__, SWAP_BIN[type(node.op)].__name__))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in SWAP_CMP:
                    out.append((node, f"compare:{i}", type(op).__name__,
                                SWAP_CMP[type(op)].__name__))
        elif isinstance(node, ast.BoolOp) and type(node.op) in SWAP_BOOL:
            out.append((node, "boolop", type(node.op).__name__, SWAP_BOOL[type(node.op)].__name__))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            out.append((node, "unary", type(node.op).__name__, "dropped"))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            if isinstance(node.value, bool):
                out.append((node, "const", repr(node.value), repr(not node.value)))
            elif isinstance(node.value, int):
                out.append((node, "const", repr(node.value), repr(node.value + 1)))
            else:
                after = 1.0 if node.value == 0 else node.value * 2
                out.append((node, "const", repr(node.value), repr(after)))
        elif isinstance(node, ast.Attribute) and node.attr in SWAP_NAME \
                and isinstance(node.value, ast.Name) and node.value.id == "np":
            out.append((node, "reducer", f"np.{node.attr}", f"np.{SWAP_NAME[node.attr]}"))
        elif isinstance(node, ast.Name) and node.id in ("max", "min") \
                and isinstance(getattr(node, "ctx", None), ast.Load):
            out.append((node, "reducer", node.id, SWAP_NAME[node.id]))
    return out


def _apply(node: ast.AST, kind: str) -> None:
    if kind == "binop":
        node.op = SWAP_BIN[type(node.op)]()
    elif kind.startswith("compare:"):
        i = int(kind.split(":")[1])
        node.ops[i] = SWAP_CMP[type(node.ops[i])]()
    elif kind == "boolop":
        node.op = SWAP_BOOL[type(node.op)]()
    elif kind == "const":
        value = node.value
        if isinstance(value, bool):
            node.value = not value
        elif isinstance(value, int):
            node.value = value + 1
        else:
            node.value = 1.0 if value == 0 else value * 2
    elif kind == "reducer":
        if isinstance(node, ast.Attribute):
            node.attr = SWAP_NAME[node.attr]
        else:
            node.id = SWAP_NAME[node.id]


class _DropUnary(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if node is self.target else node


def mutants_of(path: Path) -> list[Mutant]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return [Mutant(rel, getattr(node, "lineno", 0), kind, before, after, i)
            for i, (node, kind, before, after) in enumerate(_sites(tree))]


def mutated_tree(path: Path, mutant: Mutant) -> ast.Module:
    """The file's tree with the one change; compiled as is, it keeps the file's line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node, kind, _, _ = _sites(tree)[mutant.index]
    if kind == "unary":
        tree = _DropUnary(node).visit(tree)
    else:
        _apply(node, kind)
    return ast.fix_missing_locations(tree)


def mutated_source(path: Path, mutant: Mutant) -> str:
    return ast.unparse(mutated_tree(path, mutant))


def outer_function(path: Path, mutant: Mutant) -> tuple[str, int] | None:
    """(name, first line with its decorators) of the outermost function whose body holds the
    mutant, or None when the mutant runs at import time (module level, class bodies, default
    values, decorators): a function's body can be swapped in place, import-time code cannot."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = _sites(tree)[mutant.index][0]

    def holds(parent: ast.AST) -> bool:
        return any(n is node for n in ast.walk(parent))

    scope: ast.AST = tree
    while True:
        for child in ast.iter_child_nodes(scope):
            if isinstance(child, ast.ClassDef) and holds(child):
                scope = child
                break
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and holds(child):
                if not any(holds(stmt) for stmt in child.body):
                    return None     # a default value, decorator or annotation
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                return child.name, first
        else:
            return None             # a module-level or class-level statement



SCORING_PREFIX = TARGET.replace("/", ".") + "."


def site_of(path: Path, mutant: Mutant) -> str:
    """The mutant's place in words that survive edits elsewhere in the file: its outer function,
    a digest of the smallest statement holding it, its position among that statement's
    mutable sites, and the change. The same site in a later version of the code is the same
    mutant, so an earlier run's killer of it can be tried first."""
    return _file_sites(path, path.stat().st_mtime_ns)[mutant.index]


@functools.lru_cache(maxsize=64)
def _file_sites(path: Path, mtime_ns: int) -> list[str]:
    """site_of for every mutable site of a file, from one parse."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    sites = _sites(tree)
    place: dict[int, tuple[ast.AST, str]] = {}    # node id -> (smallest statement, function)

    def visit(parent: ast.AST, holder: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(parent):
            inner = child if isinstance(child, ast.stmt) else holder
            if function == "<import>" and isinstance(child, ast.ClassDef):
                visit(child, inner, function)
            elif function == "<import>" and isinstance(child, (ast.FunctionDef,
                                                                ast.AsyncFunctionDef)):
                body = {id(stmt) for stmt in child.body}
                for part in ast.iter_child_nodes(child):   # decorators, defaults: import time
                    name = child.name if id(part) in body else function
                    # a default or decorator is its own holder: the body's edits leave it be
                    place[id(part)] = (part, name)
                    visit(part, place[id(part)][0], name)
            else:
                place[id(child)] = (inner, function)
                visit(child, inner, function)

    visit(tree, tree, "<import>")
    inside: dict[int, list[int]] = {}
    out = []
    for i, (node, kind, before, after) in enumerate(sites):
        holder, function = place[id(node)]
        if id(holder) not in inside:
            ids = {id(n) for n in ast.walk(holder)}
            inside[id(holder)] = [j for j, site in enumerate(sites) if id(site[0]) in ids]
        digest = hashlib.sha256(ast.unparse(holder).encode()).hexdigest()[:16]
        out.append(f"{function}|{digest}|{inside[id(holder)].index(i)}|{kind}|{before}|{after}")
    return out


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _import_time_imports(tree: ast.Module) -> set[str]:
    """Modules a module imports when it is imported (not inside functions)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out = set(found)
    for name in found:   # importing a.b.c runs a and a.b first
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return out


def tainted_modules() -> set[str]:
    """Project modules whose import reaches core/scoring (they must be re-imported per mutant)."""
    graph: dict[str, set[str]] = {}
    for folder in ("core", "pulse_desktop"):
        for path in (ROOT / folder).rglob("*.py"):
            graph[module_name(path)] = _import_time_imports(
                ast.parse(path.read_text(encoding="utf-8")))
    tainted = {m for m in graph if m.startswith(SCORING_PREFIX) or m == TARGET.replace("/", ".")}
    changed = True
    while changed:
        changed = False
        for mod, deps in graph.items():
            if mod not in tainted and deps & tainted:
                tainted.add(mod)
                changed = True
    return tainted


def statement_span(path: Path, mutant: Mutant) -> tuple[int, int, bool]:
    """(first line, last line, runs at import time) of the smallest statement holding the
    mutant's node."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = _sites(tree)[mutant.index][0]
    best: tuple[int, int, bool] | None = None

    def visit(parent: ast.AST, in_function: bool) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(parent):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if child is node or any(n is node for n in ast.walk(child)):
                if isinstance(child, ast.stmt):
                    # a def's decorators, defaults and annotations run at import time
                    body_only = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        any(n is node for stmt in child.body for n in ast.walk(stmt))
                    best = (child.lineno, child.end_lineno or child.lineno,
                            not (in_function or body_only))
                visit(child, inner)
                return

    visit(tree, False)
    return best if best is not None else (mutant.line, mutant.line, True)
