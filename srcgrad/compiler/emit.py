"""Print a derivative FunctionDef as formatted Python source. Pure text: no side effects.

Comment statements (see `syntax.comment`) print as `# ...` lines; a comment that
repeats the one just above it in the same block is printed once. `elif` chains are
restored. The output is deterministic: the same tree always gives the same text.
"""

import ast

import gast

from . import printing, syntax

_INDENT = "    "


def source(tree):
    """The source text of the gast FunctionDef `tree`, ending in a newline."""
    lines = []
    args = ast.unparse(printing.to_python_ast(tree.args))
    lines.append(f"def {tree.name}({args}):")
    body = tree.body
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) and isinstance(body[0].value.value, str) and syntax.comment_text(body[0]) is None:
        lines.append(f'{_INDENT}"""{body[0].value.value}"""')
        body = body[1:]
    _block(body, 1, lines)
    return "\n".join(lines) + "\n"


def _block(stmts, depth, lines):
    pad = _INDENT * depth
    last_comment = None
    if not stmts:
        lines.append(pad + "pass")
        return
    append, unparse, expr, constant, comment = lines.append, printing.unparse, gast.Expr, gast.Constant, syntax.Comment
    only_comments = True
    for stmt in stmts:
        if isinstance(stmt, expr) and isinstance(stmt.value, constant) and isinstance(stmt.value.value, comment):
            text = str(stmt.value.value)  # `syntax.comment_text`
            if text != last_comment:
                append(f"{pad}# {text}")
            last_comment = text
            continue
        only_comments = False
        if type(stmt) not in _COMPOUND:  # gast's classes have no subclasses: a set lookup, not isinstance
            append(pad + unparse(stmt))
        elif isinstance(stmt, gast.If):
            _if(stmt, depth, lines, "if")
        elif isinstance(stmt, gast.For):
            target = _expr(stmt.target)
            append(f"{pad}for {target} in {_expr(stmt.iter)}:")
            _block(stmt.body, depth + 1, lines)
        elif isinstance(stmt, gast.While):
            append(f"{pad}while {_expr(stmt.test)}:")
            _block(stmt.body, depth + 1, lines)
        elif isinstance(stmt, gast.With):  # contexts.fold
            append(f"{pad}with {', '.join(_expr(item.context_expr) for item in stmt.items)}:")
            _block(stmt.body, depth + 1, lines)
        elif isinstance(stmt, gast.Try):  # attempts.fold; a pullback's `try: ... finally: undone.redo()` (split.py)
            append(f"{pad}try:")
            _block(stmt.body, depth + 1, lines)
            for handler in stmt.handlers:
                caught = f" {_expr(handler.type)}" if handler.type is not None else ""
                named = f" as {handler.name.id}" if handler.name is not None else ""
                append(f"{pad}except{caught}{named}:")
                _block(handler.body, depth + 1, lines)
            if stmt.orelse:  # forward mode: the tangents of the statement tried (attempts.fold)
                append(f"{pad}else:")
                _block(stmt.orelse, depth + 1, lines)
            if stmt.finalbody:
                append(f"{pad}finally:")
                _block(stmt.finalbody, depth + 1, lines)
        else:  # a pullback closure (split.py)
            args = ast.unparse(printing.to_python_ast(stmt.args))
            append(f"{pad}def {stmt.name}({args}):")
            _block(stmt.body, depth + 1, lines)
    if only_comments:  # a block of comments alone still needs a statement
        append(pad + unparse(syntax.pass_()))


_COMPOUND = frozenset({gast.If, gast.For, gast.While, gast.With, gast.Try, gast.FunctionDef})  # printed with their blocks


def _if(stmt, depth, lines, keyword):
    pad = _INDENT * depth
    lines.append(f"{pad}{keyword} {_expr(stmt.test)}:")
    _block(stmt.body, depth + 1, lines)
    orelse = [s for s in stmt.orelse if not isinstance(s, gast.Pass)] if len(stmt.orelse) == 1 else stmt.orelse
    if len(orelse) == 1 and isinstance(orelse[0], gast.If):
        _if(orelse[0], depth, lines, "elif")
    elif orelse:
        lines.append(f"{pad}else:")
        _block(orelse, depth + 1, lines)


def _expr(node):
    return printing.unparse(node)
