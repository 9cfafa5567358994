"""Executing BFCL multi-turn call strings against one dialogue's simulated backends.

The official executor rewrites every `name(` in the call string whose name is a method of an
involved class into `<instance>.name(` and then `eval`s the string. We never `eval` model text: the
same rewritten string is parsed with `ast`, and the tree is evaluated by a small interpreter that
knows literals, unary signs and calls of the backends' dispatch tables. What the official `eval`
would report (syntax errors, unknown names, wrong arguments, exceptions inside a tool) comes back
as the same "Error during execution: ..." string.

Kept on purpose, because they change official results:
* the rewrite also touches text inside string arguments (`echo(content='ls(x)')` stores the
  instance-qualified text), which is why the model name and entry id matter;
* a class-qualified name such as `TwitterAPI.post_tweet(...)` is NOT accepted by the official
  executor (it fails with "name 'TwitterAPI' is not defined"), and neither here.

Not reproduced (the result differs): calls of Python builtins or other module-level names the
official `eval` could reach (`print(...)`, `len(...)`), and operators other than unary signs.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import json
import operator
import re
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends import BACKEND_CLASSES, STATELESS_CLASSES, SharedWorld

ERROR_PREFIX = "Error during execution: "

# Function names the official executor refuses before evaluating anything.
_REFUSED_NAMES = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
# A name directly followed by "(" (the official rewrite pattern).
_CALLED_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


class UnsupportedExpression(Exception):
    """A construct the official `eval` would run but this interpreter deliberately does not."""


def is_long_context(entry_id: str) -> bool:
    """Whether the official code loads the long-context filler for this entry (by its category)."""
    category = entry_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


def instance_name(model_name: str, entry_id: str, class_name: str, *, eval_run: bool) -> str:
    """The global name the official executor gives one backend instance."""
    owner = f"{model_name}_eval" if eval_run else model_name
    return re.sub(r"[-./:]", "_", f"{owner}_{entry_id}_{class_name}_instance")


def result_text(value: Any) -> str:
    """How the official executor turns a tool's return value into the text the model sees."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:  # the official code falls back to str() on any failure
            return str(value)
    return str(value)


class MultiTurnExecutor:
    """The backend instances of one dialogue, for either the model's or the ground truth's calls.

    `model_name` and `entry_id` only shape instance names (see the module docstring). Executors that
    take part in one scoring run should share a `SharedWorld`.
    """

    def __init__(
        self,
        entry_id: str,
        initial_config: dict[str, Any],
        involved_classes: list[str],
        *,
        model_name: str = "model",
        eval_run: bool = True,
        world: SharedWorld | None = None,
    ) -> None:
        self.entry_id = entry_id
        self.initial_config = initial_config
        self.involved_classes = list(involved_classes)
        self.model_name = model_name
        self.eval_run = eval_run
        self.long_context = is_long_context(entry_id)
        self.world = world or SharedWorld()
        self.instances: dict[str, Any] = {}
        self._by_instance_name: dict[str, Any] = {}
        self._method_owner: dict[str, str] = {}

    def ensure_instances(self) -> dict[str, Any]:
        """Create and load the instances on first use, as the official executor does on each call."""
        for class_name in self.involved_classes:
            name = instance_name(self.model_name, self.entry_id, class_name, eval_run=self.eval_run)
            if class_name not in self.instances:
                backend = BACKEND_CLASSES[class_name](self.world)
                if class_name not in STATELESS_CLASSES:
                    scenario = copy.deepcopy(self.initial_config.get(class_name, {}))
                    backend._load_scenario(scenario, long_context=self.long_context)
                self.instances[class_name] = backend
                self._by_instance_name[name] = backend
            # Later classes win a shared method name, and getmembers lists names alphabetically.
            for method_name in sorted(self.instances[class_name].dispatch_table()):
                self._method_owner[method_name] = name
        return self.instances

    def execute(self, calls: list[str]) -> list[str]:
        """Run the call strings in order; one result text per call."""
        self.ensure_instances()
        return [self.execute_one(call) for call in calls]

    def execute_one(self, call: str) -> str:
        def qualify(match: re.Match[str]) -> str:
            name = match.group(1)
            owner = self._method_owner.get(name)
            return f"{owner}.{name}" if owner else name

        try:
            rewritten = _CALLED_NAME.sub(qualify, call)
            head = rewritten.split("(")[0] if "(" in rewritten else rewritten
            if "." in head:
                head = head.split(".")[1]
            if head in _REFUSED_NAMES:
                raise Exception(f"Function call {head} is not allowed.")
            tree = _parse_like_eval(rewritten)
            return result_text(self._evaluate(tree.body))
        except Exception as exc:
            return f"{ERROR_PREFIX}{exc}"

    # -- the interpreter ---------------------------------------------------------------------

    def _evaluate(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.List):
            return [self._evaluate(item) for item in self._plain(node.elts)]
        if isinstance(node, ast.Tuple):
            return tuple(self._evaluate(item) for item in self._plain(node.elts))
        if isinstance(node, ast.Set):
            return set([self._evaluate(item) for item in self._plain(node.elts)])
        if isinstance(node, ast.Dict):
            keys = [key for key in node.keys if key is not None]  # None: a ``**mapping``
            if len(keys) < len(node.keys):
                raise UnsupportedExpression(f"unsupported expression: {ast.unparse(node)}")
            # Key, then value, pair after pair: Python's evaluation order.
            pairs = [(self._evaluate(key), self._evaluate(value)) for key, value in zip(keys, node.values, strict=True)]
            return dict(pairs)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self._evaluate(node.operand))
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        return self._unsupported(node)

    def _unsupported(self, node: ast.expr) -> Any:
        # Python would evaluate the operands first, so an unknown name or a failing call inside
        # still reports its own error; only then do we refuse the construct itself.
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._evaluate(child)
        raise UnsupportedExpression(f"unsupported expression: {ast.unparse(node)}")

    @staticmethod
    def _plain(items: list[ast.expr]) -> list[ast.expr]:
        for item in items:
            if isinstance(item, ast.Starred):
                raise UnsupportedExpression(f"unsupported expression: {ast.unparse(item)}")
        return items

    def _name(self, name: str) -> Any:
        if name in self._by_instance_name:
            return self._by_instance_name[name]
        if hasattr(builtins, name):
            raise UnsupportedExpression(f"Python builtin '{name}' is not evaluated")
        raise NameError(f"name '{name}' is not defined")

    def _attribute(self, node: ast.Attribute) -> Callable[..., Any]:
        owner = self._evaluate(node.value)
        table = owner.dispatch_table() if hasattr(owner, "dispatch_table") else None
        if table is None:
            raise UnsupportedExpression(f"unsupported expression: {ast.unparse(node)}")
        if node.attr not in table:
            raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{node.attr}'")
        return table[node.attr]

    def _call(self, node: ast.Call) -> Any:
        target = self._evaluate(node.func)
        if not inspect.ismethod(target):
            raise TypeError(f"'{type(target).__name__}' object is not callable")
        args = [self._evaluate(arg) for arg in self._plain(node.args)]
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise UnsupportedExpression(f"unsupported expression: **{ast.unparse(keyword.value)}")
            kwargs[keyword.arg] = self._evaluate(keyword.value)
        return target(*args, **kwargs)


def _parse_like_eval(source: str) -> ast.Expression:
    """Parse the way the official executor's evaluation of a string compiles it (expression mode),
    with the same SyntaxError texts; nothing is ever run."""
    # `eval` drops leading spaces and tabs of a string source.
    tree = ast.parse(source.lstrip(" \t"), filename="<string>", mode="eval")
    # The compiler (not the parser) rejects a repeated keyword; `ast.parse` alone would accept it.
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            seen: set[str] = set()
            for keyword in node.keywords:
                if keyword.arg is not None and keyword.arg in seen:
                    raise SyntaxError(
                        f"keyword argument repeated: {keyword.arg}",
                        ("<string>", keyword.lineno, keyword.col_offset + 1, source),
                    )
                if keyword.arg is not None:
                    seen.add(keyword.arg)
    return tree


def execute_calls(
    calls: list[str],
    entry: dict[str, Any],
    *,
    model_name: str = "model",
    world: SharedWorld | None = None,
) -> tuple[list[str], dict[str, Any]]:
    """One-shot helper: a fresh dialogue for `entry` (a BFCL multi-turn sample), the calls run in it."""
    executor = MultiTurnExecutor(
        entry["id"], entry.get("initial_config", {}), entry["involved_classes"], model_name=model_name, world=world
    )
    return executor.execute(calls), executor.instances
