"""Lines of a printed derivative longer than `WIDTH` broken at their brackets, as black
breaks them; docstrings wrapped at spaces.

For the text shown (`srcgrad.source`, `verbose`) only: the code compiled keeps one
statement per line, which its line tables (origins.py) and tracebacks read.

Invariants: the text returned parses to the same statements as the text given (a
statement whose broken form would not is left whole); only docstrings and the simple
statements that `ast.unparse` prints as they are written are broken; lines that hold
neither (comments, block headers, an operand too long on its own) stay as they are.
"""

import ast
import textwrap

from . import printing

WIDTH = 100
_STEP = "    "


def wrapped(text):
    """`text` with its lines over `WIDTH` characters broken where they can be."""
    if all(len(line) <= WIDTH for line in text.splitlines()):
        return text
    lines = []
    for line in text.splitlines():
        lines += _broken(line) if len(line) > WIDTH else [line]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _broken(line):
    stripped = line.lstrip(" ")
    indent = line[: len(line) - len(stripped)]
    if stripped.startswith('"""') and stripped.endswith('"""') and stripped.count('"""') == 2 and "\\" not in stripped:
        return _docstring(stripped[3:-3], indent)
    if stripped.startswith("#"):
        return [line]
    if stripped.startswith("def ") and stripped.endswith(":"):
        return _header(stripped, indent) or [line]
    try:
        module = ast.parse(stripped)
    except SyntaxError:  # a block header (`if ...:`), or a line of a statement already broken
        return [line]
    if len(module.body) != 1 or _unparse(module) != stripped:
        return [line]
    stmt = module.body[0]
    lines = _statement(stmt, indent)
    if lines is None or ast.dump(ast.parse("\n".join(s[len(indent):] for s in lines))) != ast.dump(module):
        return [line]
    return lines


def _docstring(body, indent):
    """A one-line docstring as lines of at most `WIDTH` characters (where its words allow)."""
    words = textwrap.wrap(f'"""{body}"""', WIDTH - len(indent), break_long_words=False, break_on_hyphens=False)
    return [indent + w for w in words]


def _header(stripped, indent):
    """A `def` line with its parameters on lines of their own; None where it has more
    than plain parameters with defaults."""
    try:
        node = ast.parse(stripped + " pass").body[0]
    except SyntaxError:
        return None
    args = node.args
    if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or not args.args:
        return None
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    items = [a.arg if d is None else f"{a.arg}={_unparse(d)}" for a, d in zip(args.args, defaults)]
    if f"def {node.name}({', '.join(items)}):" != stripped:
        return None
    inner = indent + _STEP
    joined = ", ".join(items)
    body = [inner + joined] if len(inner + joined) <= WIDTH else [inner + item + "," for item in items]
    return [f"{indent}def {node.name}(", *body, f"{indent}):"]


def _statement(stmt, indent):
    """The lines of `stmt` broken at the brackets of its value; None where it has no value
    to break."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):  # the targets as the statement prints them (`a, b = `)
        head = _unparse(type(stmt)(**{**vars(stmt), "value": ast.Name("_")}))[:-1]
    elif isinstance(stmt, ast.Return) and stmt.value is not None:
        head = "return "
    elif isinstance(stmt, ast.Expr):
        head = ""
    else:
        return None
    return _expression(stmt.value, indent, head, "")


def _expression(node, indent, prefix, suffix):
    """`node` printed after `prefix` and before `suffix` at `indent`: on one line if it
    fits, else its brackets opened with the items inside on one line if they fit, else
    one item per line (each broken in turn) with a trailing comma."""
    one = indent + prefix + _unparse(node) + suffix
    if len(one) <= WIDTH:
        return [one]
    if isinstance(node, (ast.BinOp, ast.BoolOp, ast.IfExp)):
        return _operations(node, indent, prefix, suffix)
    parts = _bracketed(node)
    if parts is None:
        return [one]
    head, opening, items, closing = parts
    inner = indent + _STEP
    texts = [p + _unparse(v) for p, v in items]
    single = isinstance(node, ast.Tuple) and len(items) == 1
    joined = ", ".join(texts) + ("," if single else "")
    lines = [indent + prefix + head + opening]
    if len(inner + joined) <= WIDTH:
        lines.append(inner + joined)
    else:
        for p, v in items:
            lines += _expression(v, inner, p, ",")
    lines.append(indent + closing + suffix)
    return lines


def _operations(node, indent, prefix, suffix):
    """A chain of operations in parentheses: on one line inside them if it fits, else each
    operand on a line of its own, after its operator (`+ b`, `and b`, `if c`, `else d`)."""
    inner = indent + _STEP
    whole = inner + _unparse(node)
    lines = [indent + prefix + "("]
    if len(whole) <= WIDTH:
        lines.append(whole)
    else:
        for operator, operand, grouped in _operands(node):
            before, after = (f"{operator} (" if operator else "(", ")") if grouped else (f"{operator} " if operator else "", "")
            lines += _expression(operand, inner, before, after)
    lines.append(indent + ")" + suffix)
    return lines


def _operands(node):
    """[(operator or "", operand, whether it needs parentheses)] of the chain `node`: the
    left-nested operations of one precedence flattened (`a + b - c`), each operand
    parenthesized where its own operation binds less tightly than the chain's."""
    if isinstance(node, ast.IfExp):
        return [("", node.body, _loose(node.body, _IF)), ("if", node.test, _loose(node.test, _IF + 1)),
                ("else", node.orelse, _loose(node.orelse, _IF, chained=True))]
    if isinstance(node, ast.BoolOp):
        word, level = ("and", _AND) if isinstance(node.op, ast.And) else ("or", _OR)
        return [("" if k == 0 else word, v, _loose(v, level + 1)) for k, v in enumerate(node.values)]
    level = printing.BINARY[type(node.op).__name__][1]
    chain = []
    while isinstance(node, ast.BinOp) and printing.BINARY[type(node.op).__name__][1] == level and level != _POWER:
        chain.append((printing.BINARY[type(node.op).__name__][0], node.right, _loose(node.right, level + 1)))
        node = node.left
    if not chain:  # a power: right-associative, not flattened
        return [("", node.left, _loose(node.left, level + 1)), ("**", node.right, _loose(node.right, level))]
    chain.append(("", node, _loose(node, level)))
    return chain[::-1]


def _loose(node, level, chained=False):
    """Whether `node` binds less tightly than `level` (needs parentheses there)."""
    if isinstance(node, ast.BinOp):
        own = printing.BINARY[type(node.op).__name__][1]
    elif isinstance(node, ast.UnaryOp):
        own = _NOT if isinstance(node.op, ast.Not) else _UNARY
    elif isinstance(node, ast.BoolOp):
        own = _AND if isinstance(node.op, ast.And) else _OR
    elif isinstance(node, ast.Compare):
        own = _COMPARE
    elif isinstance(node, ast.IfExp):
        return not chained
    elif isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Starred, ast.Yield, ast.YieldFrom, ast.Await)):
        return True
    else:
        return False
    return own < level


def _bracketed(node):
    """(what precedes the bracket, the opening bracket, [(prefix, expression)] of the items,
    the closing bracket) of a call or a display; None for anything else."""
    if isinstance(node, ast.Call):
        items = [("", a) for a in node.args] + [(f"{k.arg}=" if k.arg else "**", k.value) for k in node.keywords]
        if not items:
            return None
        return _unparse(node.func), "(", items, ")"
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        opening, closing = {ast.Tuple: "()", ast.List: "[]", ast.Set: "{}"}[type(node)]
        return "", opening, [("", e) for e in node.elts], closing
    if isinstance(node, ast.Dict) and node.keys and all(k is not None for k in node.keys):
        return "", "{", [(_unparse(k) + ": ", v) for k, v in zip(node.keys, node.values)], "}"
    return None


_IF, _OR, _AND, _NOT, _COMPARE, _UNARY = (printing.CONDITIONAL, printing.OR, printing.AND, printing.NOT,
                                          printing.COMPARE, printing.UNARY)
_POWER = printing.BINARY["Pow"][1]
_unparse = printing.python_text  # as Python 3.11 prints, on 3.10 too (`a, b = ...`, not `(a, b) = ...`)
