"""Which line of the user's source each line of a generated derivative came from.

A derivative is ordinary Python, so it can be differentiated again (hessian,
grad of grad); an error found then is located in the generated text. `table` maps
the generated lines back: a forward-pass statement keeps the location of the user
statement it came from; a backward-pass statement has none, and takes the line of
the user statement its block's comment quotes (`# y = clip(x) * x`).

Post-condition: every line number in the table is a line of the user's file (the
program's `line`), and every key a line of `text` holding a statement.
"""

import gast

from . import printing, syntax


def outline(tree, program):
    """What `table` needs of the FunctionDef `tree`, kept instead of the tree itself: per
    statement in the order emit prints them, (its type, its comment's text or None, its
    user line or None)."""
    return tuple(
        (type(s), syntax.comment_text(s), program.line(s))
        for s in _statements(tree.body, keep_comments=True)
    )


def located(outlined, text, program):
    """(the user's file name, function name, `table(...)`) for an `outline`."""
    return program.filename, program.name, table(outlined, text, program)


def described(outlined, text, program):
    """(the user's file name, function name, {line of `text`: (line of the user's file,
    whether the line differentiates that user line rather than computing it)})."""
    return program.filename, program.name, _mapped(outlined, text, program)


def through(origin, behind):
    """`origin` of a derivative of generated code (its lines -> the generated code's
    lines) carried on to the user's lines by `behind`, the generated code's `located`;
    in `origin`'s form (a line or a (line, differentiates) pair per line)."""
    _, _, lines = origin()
    filename, name, table_ = behind()
    carried = {}
    for line, at in lines.items():
        paired = type(at) is tuple
        step = table_.get(at[0] if paired else at)
        if step is not None:
            carried[line] = (step, at[1]) if paired else step
    return filename, name, carried


def matched(text, source, origin):
    """`origin` of the generated code `source`, for `text` made of its
    statements (a linearization): a line of `text` takes the line of `source` that holds
    the same statement first."""
    first = {}
    for k, line in enumerate(source.splitlines(), 1):
        first.setdefault(line.strip(), k)
    filename, name, lines = origin()
    found = {k: lines.get(first.get(line.strip())) for k, line in enumerate(text.splitlines(), 1)}
    return filename, name, {k: v for k, v in found.items() if v is not None}


def table(outlined, text, program):
    """{line of `text`: line of the user's file} for the FunctionDef with the `outline`
    `outlined`, emitted as `text`."""
    return {line: user_line for line, (user_line, _) in _mapped(outlined, text, program).items()}


def _mapped(outlined, text, program):
    """{line of `text`: (user line, whether it came from a backward block's comment)}."""
    quoted = {}
    for node in gast.walk(program.tree):
        if isinstance(node, gast.stmt) and not isinstance(node, gast.FunctionDef) and hasattr(node, "lineno"):
            quoted.setdefault(printing.unparse(node).splitlines()[0].strip(), program.line(node))
            lines = getattr(program, "source_lines", None)  # a comment quotes the line as written (`x = 1  # note`)
            if lines and 0 < node.lineno <= len(lines):
                quoted.setdefault(lines[node.lineno - 1].strip(), program.line(node))
    emitted = _statements(syntax.parse(text).body[0].body, keep_comments=False)
    lines, current, k = {}, (None, False), 0
    for stmt in emitted:
        while k < len(outlined) and _skipped(outlined[k], stmt):
            current = _origin(outlined[k], quoted, current)
            k += 1
        if k == len(outlined):
            break
        current = _origin(outlined[k], quoted, current)
        if current[0] is not None:
            lines[stmt.lineno] = current
        k += 1
    return lines


def _statements(stmts, keep_comments):
    """The statements in the order emit prints them (a header before its blocks)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Pass) or (not keep_comments and syntax.comment_text(s) is not None):
            continue  # emit adds and drops `pass` as blocks need it
        out.append(s)
        if type(s) in _BLOCKS:  # gast's classes have no subclasses: a set lookup, not isinstance
            for field in ("body", "orelse", "finalbody"):  # finalbody: a pullback's `try` (split.py)
                out += _statements(getattr(s, field, []), keep_comments)
    return out


_BLOCKS = frozenset({gast.If, gast.For, gast.While, gast.With, gast.FunctionDef, gast.Try})  # statements holding blocks


def _skipped(made, emitted):
    """Whether the outlined statement `made` has no line of its own in the text."""
    kind, comment, _ = made
    return comment is not None or kind is not type(emitted)


def _origin(made, quoted, current):
    """(the user line of the outlined statement `made`, whether a comment gave it): its
    own location, the line its comment quotes, or `current`'s."""
    _, comment, line = made
    if comment is not None:
        found = quoted.get(comment.strip())
        return current if found is None else (found, True)
    return current if line is None else (line, False)
