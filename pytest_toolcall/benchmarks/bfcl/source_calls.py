"""Reading a Java or JavaScript call such as ``Foo.bar(a="x", b=new int[]{1, 2})`` (prompting mode).

The official decoder parses these answers with tree-sitter (tree_sitter 0.21.3, tree-sitter-java 0.21.0,
tree-sitter-javascript 0.21.4) and takes the first call it finds: a name and its ``name=value``
arguments, each value as source text (Java string literals lose their quotes; other Java values are
re-assembled from their parts without spaces; JavaScript values are kept as written, quotes dropped).
An answer whose parse tree contains an error node is rejected. Tree-sitter's error recovery decides,
by its own cost model, whether e.g. a Java call without a final ``;`` is an error (short calls often
are, longer ones often are not) — that decision cannot be reproduced without tree-sitter itself.

So: when the ``tree_sitter`` package and the two grammars are importable, they are used and the
result is the official one (exactly so with the versions above). Otherwise a small hand-written reader
gives the same result for well-formed calls and treats a missing final ``;`` as acceptable;
:data:`EXACT` tells which of the two is in use.
"""

from __future__ import annotations

import re
from typing import Any

# Typed as Any: which calls exist depends on the installed bindings' version (see _make_parser).
_ts: Any
try:  # optional: the official parser library
    import tree_sitter as _ts
    import tree_sitter_java as _ts_java
    import tree_sitter_javascript as _ts_js
except ImportError:  # pragma: no cover - depends on the environment
    _ts = None


def _make_parser(module: Any, name: str) -> Any:
    try:
        language = _ts.Language(module.language(), name)  # tree_sitter < 0.22
        parser = _ts.Parser()
        parser.set_language(language)
    except TypeError:
        language = _ts.Language(module.language())  # newer bindings
        parser = _ts.Parser(language)
    return parser


_JAVA_PARSER: Any = None
_JS_PARSER: Any = None
if _ts is not None:
    try:
        _JAVA_PARSER = _make_parser(_ts_java, "java")
        _JS_PARSER = _make_parser(_ts_js, "javascript")
    except Exception:  # pragma: no cover - incompatible bindings: fall back
        _JAVA_PARSER = _JS_PARSER = None

EXACT = _JAVA_PARSER is not None and _JS_PARSER is not None


def _has_error(node: Any) -> bool:
    if node.type == "ERROR":
        return True
    return any(_has_error(child) for child in node.children)


def _store(arguments: dict[Any, Any], name: Any, value: Any) -> None:
    if name in arguments:
        raise ValueError("the same argument is given twice")
    arguments[name] = value


# --------------------------------------------------------------------------------------------------
# With tree-sitter


def _java_with_tree_sitter(source: str) -> Any:
    tree = _JAVA_PARSER.parse(source.encode("utf-8"))
    if _has_error(tree.root_node):
        raise SyntaxError("the Java call does not parse")

    def text(node: Any) -> str:
        # Byte offsets applied to the text, like the official reader (differs only for non-ASCII text).
        return source[node.start_byte : node.end_byte]

    def value_text(node: Any, nested: bool = False) -> str:
        if node.type in ("string_literal", "character_literal"):
            return text(node) if nested else text(node)[1:-1]
        if node.type in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return text(node)
        if node.type == "array_creation_expression":
            kind = value_text(node.child_by_field_name("type"), True)
            return f"new {kind}[]{value_text(node.child_by_field_name('value'), True)}"
        if node.type == "object_creation_expression":
            kind = value_text(node.child_by_field_name("type"), True)
            args = node.child_by_field_name("arguments")
            if args is None:
                return f"new {kind}()"
            parts = [value_text(child, True) for child in args.children if child.type not in (",", "(", ")")]
            return f"new {kind}({', '.join(parts)})"
        if node.child_count > 0:
            return "".join(value_text(child, True) for child in node.children)
        return text(node)

    def first_call(node: Any) -> Any:
        if node.type == "method_invocation":
            name = text(node.child_by_field_name("name"))
            owner = node.child_by_field_name("object")
            if owner is not None:
                name = f"{text(owner)}.{name}"
            arguments: dict[Any, Any] = {}
            for child in node.child_by_field_name("arguments").children:
                if child.type == "assignment_expression":
                    _store(arguments, text(child.children[0]), value_text(child.children[2]))
                elif child.type in ("identifier", "class_literal"):
                    _store(arguments, None, value_text(child))
            return [{name: arguments}]
        for child in node.children:
            found = first_call(child)
            if found:
                return found
        return None

    return first_call(tree.root_node) or {}


def _js_with_tree_sitter(source: str) -> Any:
    tree = _JS_PARSER.parse(source.encode("utf-8"))
    if _has_error(tree.root_node):
        raise SyntaxError("the JavaScript call does not parse")
    for statement in tree.root_node.children:
        if statement.type != "expression_statement":
            continue
        for node in statement.children:
            if node.type != "call_expression":
                continue
            arguments: dict[Any, Any] = {}
            for child in node.children[1].children:
                if child.type == "assignment_expression":
                    value = child.children[2].text.decode("utf-8")
                    if len(value) >= 1 and value[0] == value[-1] and value[0] in "'\"":
                        value = value[1:-1]
                    _store(arguments, child.children[0].text.decode("utf-8"), value)
                elif child.type in ("identifier", "true"):
                    _store(arguments, None, child.text.decode("utf-8"))
            return [{node.children[0].text.decode("utf-8"): arguments}]
    return None


# --------------------------------------------------------------------------------------------------
# Without tree-sitter: a reader for well-formed calls

_NAME = r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*"
_CLOSE = {"(": ")", "[": "]", "{": "}"}


_GENERIC = re.compile(r"<[\w\s,.?<>]*>")


def _split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split at separators outside brackets, generic type arguments (``HashMap<String, Object>``) and
    string literals; unbalanced text is a syntax error."""
    parts, depth, start, quote, index = [], [], 0, "", 0
    while index < len(text):
        char = text[index]
        generic = _GENERIC.match(text, index) if char == "<" and index and text[index - 1].isalnum() else None
        if generic and not quote:
            index = generic.end()
            continue
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        elif char in _CLOSE:
            depth.append(_CLOSE[char])
        elif char in ")]}":
            if not depth or depth.pop() != char:
                raise SyntaxError("unbalanced brackets")
        elif char == separator and not depth:
            parts.append(text[start:index])
            start = index + 1
        index += 1
    if quote or depth:
        raise SyntaxError("unterminated literal or bracket")
    parts.append(text[start:])
    return parts


def _leading_call(source: str) -> tuple[str, str, str] | None:
    """(name, argument text, rest) of a call at the start of ``source``, or None."""
    match = re.match(rf"\s*({_NAME})\s*\(", source)
    if not match:
        return None
    depth, quote, index = 1, "", match.end()
    while index < len(source) and depth:
        char = source[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        index += 1
    name = re.sub(r"\s+", "", match.group(1))
    if depth:
        raise SyntaxError("unclosed call")
    return name, source[match.end() : index - 1], source[index:]


def _java_compact(value: str) -> str:
    """A Java value re-assembled like tree-sitter's reader: spaces outside string literals dropped,
    ``new T(...)`` keeps ", " between arguments and loses an anonymous class body, a method call is
    kept as written."""
    invocation = _leading_call(value) if not re.match(r"\s*new\b", value) else None
    if invocation and not invocation[2].strip():
        return value  # a method call is kept exactly as written
    creation = re.match(r"new\s+([\w.<>,\s?]+?)\s*\((.*)\)\s*(\{.*\})?\s*$", value, re.DOTALL)
    if creation and not value.rstrip().endswith("]"):
        kind = re.sub(r"\s+", "", creation.group(1))
        inner = [_java_compact(part.strip()) for part in _split_top_level(creation.group(2)) if part.strip()]
        return f"new {kind}({', '.join(inner)})"
    out, quote = [], ""
    for char in value:
        if quote:
            out.append(char)
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
            out.append(char)
        elif not char.isspace():
            out.append(char)
        elif re.search(r"(?<![\w$])new$", "".join(out[-4:])) and out[-1] != " ":
            out.append(" ")  # "new int[]{...}" keeps the space after the keyword
    return "".join(out)


_JS_KEYWORDS = {"new", "typeof", "function", "return", "in", "of", "instanceof", "await", "async", "void", "delete"}


def _value_ok(value: str, language: str) -> bool:
    """A rough test that an argument is an expression of the language: no stray characters, no
    operand starting with an operator, no two words in a row (except after a keyword), no letters glued
    to a number beyond a type suffix; in Java ``[`` only after a name or ``]``; in JavaScript no
    ``type[]``."""
    rest = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', "S", value)
    if not rest.strip() or re.search(r"[#@\\'\"]", rest):
        return False
    if re.search(r"(^|[{(,\[])\s*[/*%&|^=<>?.]", rest) or "//" in rest:
        return False  # an operand cannot start with an operator
    suffix = r"[lLfFdD]" if language == "java" else r"n"
    if re.search(rf"(?<![\w$.])\d+(\.\d+)?([eE][+-]?\d+)?(?!{suffix}\b)[A-Za-z_$]", rest):
        return False
    words = re.findall(r"[A-Za-z_$][\w$]*(?=\s+[A-Za-z_$\d])", rest)
    if language == "java":
        if re.search(r"`", rest) or re.search(r"(?<!:):(?!:)", rest):
            return False  # a lone colon (method references "::" are fine)
        if re.search(r"(?<![\w\]])\s*\[", rest) and not re.match(r"\s*new\b", rest):
            return False
        return all(word == "new" for word in words)
    if re.search(r"[\w$]\[\]", rest):
        return False
    return all(word in _JS_KEYWORDS for word in words)


def _fallback(source: str, language: str) -> Any:
    code = re.sub(r'"(?:[^"\\]|\\.)*"', "", source)
    if language == "java" and code.count("(") == code.count(")") + 1:
        # tree-sitter supplies one missing ")" at the end of a Java call (seen with "f((a=1, b=2)").
        source += ")"
    for statement in _split_top_level(source, ";"):
        if not statement.strip():
            continue
        call = _leading_call(statement)
        if call is None:
            raise SyntaxError("not a call")
        name, argument_text, rest = call
        if rest.strip():
            raise SyntaxError("text after the call")
        arguments: dict[Any, Any] = {}
        for part in _split_top_level(argument_text):
            part = part.strip()
            if not part:
                continue
            assignment = re.match(r"([A-Za-z_$][\w$]*)\s*=(?!=)\s*(.*)$", part, re.DOTALL)
            if assignment is None:
                if re.fullmatch(r"[A-Za-z_$][\w$]*", part) and part not in ("false", "null"):
                    _store(arguments, None, part)
                continue
            key, value = assignment.group(1), assignment.group(2).strip()
            if not value:
                raise SyntaxError(f"no value for {key}")
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
            if not _value_ok(value, language):
                raise SyntaxError(f"not a {language} expression: {value}")
            if quoted:
                _store(arguments, key, value[1:-1])
            else:
                _store(arguments, key, value if language == "javascript" else _java_compact(value))
        return [{name: arguments}]
    return {} if language == "java" else None


def parse_java_call(source: str) -> Any:
    """The official Java reading of ``source``: ``[{name: {param: text}}]``, or ``{}`` when no call is
    found; SyntaxError/ValueError when the official reader would fail."""
    if _JAVA_PARSER is not None:
        return _java_with_tree_sitter(source)
    return _fallback(source, "java")


def parse_javascript_call(source: str) -> Any:
    """The official JavaScript reading of ``source``: ``[{name: {param: text}}]``, or None when no
    call is found; SyntaxError/ValueError when the official reader would fail."""
    if _JS_PARSER is not None:
        return _js_with_tree_sitter(source)
    return _fallback(source, "javascript")
