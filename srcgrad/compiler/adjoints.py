"""Decide, in execution order, how each adjoint contribution is written.

Before (collected by reverse.py):      After:
    x_bar += out_bar * sin_x               x_bar = out_bar * sin_x
    x_bar += sin_x_bar * np.cos(x)         x_bar = x_bar + sin_x_bar * np.cos(x)

The first contribution assigns and later ones add (never in place: an adjoint may be
the same array as another); adjoints that may be containers add with `add_grad`. The backward group of an assignment is dropped when its
target's adjoint has no value there (a zero contribution), and ends that adjoint's
life (the assignment overwrote the value it belongs to). Where `if` branches or loop
iterations disagree on which adjoints exist, the missing ones start at zero
(`zeros_like_grad(primal)`; assembly.assemble sets a primal that some path leaves
unassigned to None first, whose zero is 0.0).
"""

import gast

from . import markers, syntax


class _Adjoints:
    def __init__(self, namer, zeros, structured=(), add=None):
        self.namer = namer
        self.zeros = zeros  # name of the runtime zeros_like_grad helper
        self.structured = structured  # adjoints that may be containers: added by `add`
        self.add = add  # name of the runtime add_grad helper

    def zero(self, adjoint):
        primal = self.namer.primal_of(adjoint)
        return syntax.assign(adjoint, syntax.call(syntax.name(self.zeros), [syntax.name(primal)]))

    def block(self, stmts, defined):
        """The lowered `stmts`; `defined` (the adjoints existing at their start) is updated
        in place to those existing at their end."""
        out = []
        for s in stmts:
            kind = type(s).__name__
            if kind == "_Group":
                if s.adjoint not in defined:
                    continue  # its adjoint is zero: so are all its contributions
                inner = self.block(s.stmts, defined)
                if s.note:
                    out.append(syntax.comment(s.note))
                out += inner
                if s.ends:
                    defined.discard(s.adjoint)
            elif kind == "_Accumulate":
                if s.adjoint in defined and s.adjoint in self.structured:
                    value = syntax.call(syntax.name(self.add), [syntax.name(s.adjoint), s.value])
                elif s.adjoint in defined:
                    value = syntax.add(syntax.name(s.adjoint), s.value)
                else:
                    value = s.value
                    defined.add(s.adjoint)
                out.append(syntax.assign(s.adjoint, value))
            elif isinstance(s, gast.If):
                out.append(s)
                self.branch(s, defined)
            elif isinstance(s, gast.For):
                out += self.loop(s, defined)
            else:
                out.append(s)
        return out

    def branch(self, s, defined):
        then_defined, else_defined = set(defined), set(defined)
        body = self.block(s.body, then_defined)
        orelse = self.block(s.orelse, else_defined)
        body += [self.zero(a) for a in sorted(else_defined - then_defined)]
        orelse += [self.zero(a) for a in sorted(then_defined - else_defined)]
        s.body = body or [syntax.pass_()]
        s.orelse = orelse
        defined.clear()
        defined.update(then_defined, else_defined)

    def loop(self, s, defined):
        original = s.body
        before = []
        for _ in range(len(original) + 2):  # grows monotonically; a few rounds suffice
            end = set(defined)
            body = self.block(markers.copy_pseudo(original), end)
            new = end - defined
            if not new:
                break
            before += [self.zero(a) for a in sorted(new)]
            defined |= new
        body += [self.zero(a) for a in sorted(defined - end)]
        s.body = body or [syntax.pass_()]
        return before + [s]


def run(stmts, defined, namer, zeros, structured=(), add=None):
    """Lower the backward statements `stmts`; `defined` are the adjoints existing at their start.

    Contributions to the adjoints in `structured` (which may hold list, tuple or dict
    gradients) are added with the runtime helper named `add`, never with `+`.
    Returns (statements, adjoints defined at the end).
    """
    defined = set(defined)
    return _Adjoints(namer, zeros, structured, add).block(stmts, defined), defined
