"""`with` blocks over context managers that change no values (`np.errstate`, ...).

Before (user code):                        Through the passes:
    with np.errstate(divide="ignore"):         __srcgrad_with__("np.errstate(divide='ignore')")
        y = np.log(x) / x                      y = np.log(x) / x
    return y                                   __srcgrad_with_end__("np.errstate(divide='ignore')")
                                               return y

`lower` (right after fence.py) replaces each `with` statement by its body between two
marker statements: calls, made for their effect, of names that resolve to nothing, with
the header as text (and the `warnings.simplefilter(...)` calls that open a
`catch_warnings` block: its setup). Every pass keeps such a call where it is, as it keeps
`print(...)`; reverse mode mirrors each marker into the backward pass (`mirror`), so the
adjoint statements of a block run under the same context, in reverse: a division there
warns as the primal's does. `fold` (just before emit.py) turns the markers of each
statement list back into `with` blocks (empty ones dropped), so derivatives print, run and
are differentiated again (hessian) as `with` blocks.

Allowed: the `ALLOWED` context managers, named through a global, an import or a closure
variable (resolved now, as calls are), with constant arguments (or names of classes, as
`category=RuntimeWarning`), and nothing bound by `as`. Inside the block a `return` may only
be its last statement (the value is computed under the context, returned after it), and
a `break` or `continue` only one of a loop inside the block; anything else is refused.
"""

import contextlib
import warnings

import gast
import numpy as np

from . import printing, syntax, traversal
from .naming import Namer
from .scope import MISSING, dotted_parts, lookup_path

BEGIN, END = "__srcgrad_with__", "__srcgrad_with_end__"

# context managers whose block computes the same values as without them
ALLOWED = {
    np.errstate: "np.errstate", np.printoptions: "np.printoptions",
    warnings.catch_warnings: "warnings.catch_warnings", contextlib.nullcontext: "contextlib.nullcontext",
}
# calls that open a `catch_warnings` block: replayed at the start of its backward block
_SETUP = (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings)
_WHY_NOT = {
    contextlib.suppress: "it swallows exceptions, so which statements run depends on them; ",
}


def lower(program, transform="srcgrad.grad"):
    """`program.tree` with each `with` block between markers (a new tree; the parse stays
    as it was, and `program.contexts` is set), or a `SrcGradError` at the first `with`
    that cannot be differentiated."""
    tree = program.tree
    if not any(type(s) is gast.With for s in traversal.statements(tree)):
        return tree
    tree = syntax.copy(tree)
    _Lowering(program, f"{transform} (in `{tree.name}`)", Namer.for_tree(tree)).block(tree.body)
    program.contexts = True
    return tree


class _Lowering:
    def __init__(self, program, where, namer):
        self.program, self.where, self.namer = program, where, namer
        tree = program.tree
        params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
        self.locals = (params | set(traversal.names_stored(tree))) - set(program.bound)

    def block(self, stmts):
        """`stmts` with its `with` blocks, and those under it, lowered (in place)."""
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.With):
                    self.block(inner)
            out += self.with_(s) if isinstance(s, gast.With) else [s]
        stmts[:] = out
        return stmts

    def with_(self, s):
        texts, managers = zip(*(self.item(item, s) for item in s.items))
        header = ", ".join(texts)
        body = self.block(s.body)
        catches = warnings.catch_warnings in managers
        setup = []
        while catches and body and self.is_setup(body[0]):
            setup.append(printing.unparse(body.pop(0)))
        self.refuse_jumps(body, s)
        after = []
        if body and isinstance(body[-1], gast.Return):
            ret = body.pop()
            if ret.value is not None:
                result = self.namer.fresh("result")
                body.append(syntax.located(syntax.assign(result, ret.value), ret))
                ret = syntax.located(syntax.return_(syntax.name(result)), ret)
            after = [ret]
        args = [syntax.const(header)] + [syntax.const(text) for text in setup]
        begin, end = syntax.expr(syntax.call(BEGIN, args)), syntax.expr(syntax.call(END, syntax.copy(args)))
        return [begin] + body + [end] + after

    def item(self, item, s):
        """(header text, context manager) of one `with` item, or a `SrcGradError` where it
        is refused."""
        expr = item.context_expr
        text = printing.unparse(expr)
        if item.optional_vars is not None:
            raise self.program.error(
                s, f"`with {text} as {printing.unparse(item.optional_vars)}` is not supported by {self.where}: srcgrad "
                "differentiates a `with` block only where `as` binds nothing; drop `as ...`, or move the block "
                "outside the differentiated function",
            )
        parts = dotted_parts(expr.func) if isinstance(expr, gast.Call) else None
        local = parts is not None and parts[0] in self.locals
        found = MISSING if parts is None or local else lookup_path(parts, self.program)
        if not any(found is allowed for allowed in ALLOWED):
            names = ", ".join(f"`{name}`" for name in ALLOWED.values())
            why = next((why for cm, why in _WHY_NOT.items() if cm is found), "")
            raise self.program.error(
                s, f"`with {text}` is not supported by {self.where}: {why}srcgrad differentiates a `with` block only "
                f"over context managers that change no values ({names}, made in the `with` line itself); move the "
                "block outside the differentiated function",
            )
        if not all(self.fixed(a) for a in expr.args + [k.value for k in expr.keywords]):
            raise self.program.error(
                s, f"`with {text}` is not supported by {self.where}: the arguments of a context manager must be "
                "constants (`np.errstate(divide='ignore')`); write them out",
            )
        return text, found

    def fixed(self, node):
        """Whether the argument `node` means the same value on every call: a constant (a
        tuple of them) or a name of a class (`RuntimeWarning`), not a local."""
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant):
            return True
        if isinstance(node, gast.Tuple):
            return all(self.fixed(e) for e in node.elts)
        parts = dotted_parts(node)
        if parts is None or parts[0] in self.locals:
            return False
        return isinstance(lookup_path(parts, self.program), type)

    def is_setup(self, s):
        """Whether `s` is a `warnings.simplefilter(...)`-like call with fixed arguments."""
        if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)):
            return False
        parts = dotted_parts(s.value.func)
        return (parts is not None and parts[0] not in self.locals and any(lookup_path(parts, self.program) is f for f in _SETUP)
                and all(self.fixed(a) for a in s.value.args + [k.value for k in s.value.keywords]))

    def refuse_jumps(self, body, s):
        """Refuse a `return` (but a last one), `break` or `continue` that leaves the block."""
        last = body[-1] if body and isinstance(body[-1], gast.Return) else None
        for jump in traversal.jumps_out(body, in_loop=False):
            if jump is last:
                continue
            word = {gast.Return: "return", gast.Break: "break", gast.Continue: "continue"}[type(jump)]
            advice = ("assign the value and `return` it as the block's last statement, or after the block"
                      if word == "return" else f"set a flag in the block and `{word}` after it")
            raise self.program.error(
                jump, f"`{word}` inside a `with` block, leaving it, is not supported by {self.where}; {advice}",
            )


def kind(stmt):
    """BEGIN or END for a marker statement, else None."""
    if type(stmt) is gast.Expr and type(stmt.value) is gast.Call and type(stmt.value.func) is gast.Name:
        name = stmt.value.func.id
        if name == BEGIN or name == END:
            return name
    return None


def mirror(stmt):
    """The marker that stands for `stmt`'s in the backward pass: a block's end starts it."""
    call = stmt.value
    return syntax.expr(syntax.call(BEGIN if call.func.id == END else END, syntax.copy(call.args)))


def without_empty(stmts):
    """`stmts` (a list) without the marker pairs that hold nothing between them."""
    out = []
    for s in stmts:
        if out and kind(s) == END and kind(out[-1]) == BEGIN:
            out.pop()
        else:
            out.append(s)
    return out


def fold(tree):
    """`tree` (changed in place) with the markers of each statement list turned back into
    `with` blocks; a block holding no statement but comments is dropped. Run only where
    `lower` put markers (`program.contexts`)."""
    _fold(tree)
    return tree


def _fold(node):
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        out, open_ = [], []
        for s in stmts:
            if isinstance(s, gast.AST):
                _fold(s)
            found = kind(s)
            if found == BEGIN:
                open_.append((out, s))
                out = []
            elif found == END:
                if not open_:
                    raise NotImplementedError("a `with` block that the derivative's passes split")
                inner, (out, begin) = out, open_.pop()
                if any(syntax.comment_text(i) is None and not isinstance(i, gast.Pass) for i in inner):
                    out.append(_with_block(begin, inner))
            else:
                out.append(s)
        if open_:
            raise NotImplementedError("a `with` block that the derivative's passes split")
        setattr(node, field, out)


def _with_block(begin, body):
    header, *setup = [a.value for a in begin.value.args]
    parsed = syntax.parse(f"with {header}:\n" + "".join(f"    {line}\n" for line in setup or ["pass"])).body[0]
    return syntax.with_(parsed.items, (parsed.body if setup else []) + body)
