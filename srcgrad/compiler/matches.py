"""`match` statements as the `if`/`elif` chains they mean. Afterwards the tree has no Match.

Before:                                   After:
    match mode:                               if mode == 'square':
        case "square":                            y = x * x
            y = x * x                         elif mode == Mode.CUBE or mode == 'cube':
        case Mode.CUBE | "cube":                  y = x * x * x
            y = x * x * x                     elif matches_sequence(mode, 2):
        case (a, b):                              a = mode[0]
            y = a * x + b                         b = mode[1]
        case k if k > 0:                          y = a * x + b
            y = k * x                         else:
        case _:                                   k = mode
            y = x                                 if k > 0:
                                                      y = k * x
                                                  else:
                                                      y = x

Python's semantics, kept exactly: the subject is evaluated once (into a fresh name unless
it is a name no pattern nor guard binds), the cases are tried in order and the first that matches
runs (none: nothing runs); a literal is compared with `==` (None, True and False with
`is`), a value pattern (`Mode.FAST`) with `==`; a sequence, mapping or class pattern
first tests the subject's kind with the helpers of rules/patterns.py (a
`collections.abc.Sequence` but str/bytes of the pattern's length, a `Mapping` with the
keys, an instance with the attributes), then its entries in order (`mode[0]`,
`mode[-1]` after a `*rest`, `mode['k']`, `mode.x`). Captures are bound when the
pattern matches, before the guard, so a failed guard leaves them bound as Python does:
that case's test is taken once to bind, then again with the guard (the tests read no
name a capture binds; the test has no side effects but the subject's own `==`).

Refused at the case's line (anything not desugared exactly): `|` alternatives that bind
names, a class pattern with positional sub-patterns (but `int(v)`, `float(v)`, ... of the
builtin classes that match themselves), a mapping pattern's `**rest`, and a capture
that a test of its own case reads. Returns a new tree; the parse stays as it was.
"""

import gast

from ..errors import SrcGradError
from ..rules import patterns as pattern_tests
from . import syntax, traversal
from .naming import Namer

_SELF_MATCHING = {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}


def run(program, transform):
    """`program.tree` with every `match` statement desugared (the same tree where it has
    none); the helpers the tests call bound in `program.bound` and `program.held`."""
    if not any("match" in line for line in program.source_lines) or not any(
            type(n) is gast.Match for n in traversal.statements(program.tree)):
        return program.tree
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    return _Desugar(program, transform, namer).visit(tree)


class _Refused(Exception):
    """A pattern not desugared exactly: the message's construct and advice."""


class _Desugar(gast.NodeTransformer):
    def __init__(self, program, transform, namer):
        self.program, self.transform, self.namer = program, transform, namer
        self.helpers = {}

    def helper(self, fn):
        """The name the desugared tests call `fn` of rules/patterns.py by."""
        if fn not in self.helpers:
            name = self.namer.fresh(fn.__name__)
            self.program.bound[name] = self.program.held[name] = fn
            self.helpers[fn] = name
        return syntax.name(self.helpers[fn])

    def visit_Match(self, node):
        self.generic_visit(node)  # a `match` in a case body first
        captured = set()  # names the patterns bind, or a guard's `:=`: the subject is then held apart
        for case in node.cases:
            captured |= _captures(case.pattern)
            if case.guard is not None:
                captured |= {n.target.id for n in traversal.nodes(case.guard) if isinstance(n, gast.NamedExpr)}
        prologue = []
        if isinstance(node.subject, gast.Name) and node.subject.id not in captured:
            subject = node.subject.id
        else:
            subject = self.namer.fresh("subject")
            prologue.append(syntax.located(syntax.assign(syntax.name(subject, store=True), node.subject), node))
        return prologue + self.chain(node.cases, subject)

    def chain(self, cases, subject):
        """The statements trying `cases` in order on the name `subject`."""
        if not cases:
            return []
        case, rest = cases[0], cases[1:]
        try:
            tests, binds = self.pattern(case.pattern, syntax.name(subject))
        except _Refused as refused:
            raise self.program.error(
                case.pattern, f"{refused.args[0]} in a `match` is not supported by {self.transform} (in "
                f"`{self.program.name}`); {refused.args[1]}", SrcGradError,
            ) from None
        at = case.pattern
        binds = [syntax.located(syntax.assign(syntax.name(n, store=True), value), at) for n, value in binds]
        read = {n.id for t in tests for n in traversal.nodes(t) if isinstance(n, gast.Name)}
        bound_names = {s.targets[0].id for s in binds}
        if bound_names & read:
            raise self.program.error(
                at, f"a capture of a `match` pattern that its own tests read (`{sorted(bound_names & read)[0]}`) is not "
                f"supported by {self.transform} (in `{self.program.name}`); rename the capture", SrcGradError,
            )
        test = syntax.bool_op(gast.And(), tests) if tests else None
        if case.guard is None:
            if test is None:  # irrefutable: Python allows it last only
                return binds + case.body
            return [syntax.located(syntax.if_(test, binds + case.body, self.chain(rest, subject)), at)]
        if not binds:
            test = case.guard if test is None else syntax.bool_op(gast.And(), tests + [case.guard])
            return [syntax.located(syntax.if_(test, case.body, self.chain(rest, subject)), at)]
        # captures are bound when the pattern matches, before the guard (kept after a failed one)
        first = binds if test is None else [syntax.located(syntax.if_(test, binds), at)]
        guarded = case.guard if test is None else syntax.bool_op(gast.And(), [syntax.copy(t) for t in tests] + [case.guard])
        return first + [syntax.located(syntax.if_(guarded, case.body, self.chain(rest, subject)), at)]

    def pattern(self, pattern, subject):
        """(tests, bindings) of `pattern` on the expression `subject`: the expressions
        that must all be true, in order, and the (name, expression) pairs bound then."""
        if isinstance(pattern, gast.MatchValue):
            return [syntax.compare(subject, gast.Eq(), pattern.value)], []
        if isinstance(pattern, gast.MatchSingleton):
            return [syntax.compare(subject, gast.Is(), syntax.const(pattern.value))], []
        if isinstance(pattern, gast.MatchAs):
            tests, binds = ([], []) if pattern.pattern is None else self.pattern(pattern.pattern, subject)
            return tests, binds + ([(pattern.name, syntax.copy(subject))] if pattern.name else [])
        if isinstance(pattern, gast.MatchOr):
            alternatives = [self.pattern(p, syntax.copy(subject)) for p in pattern.patterns]
            if any(binds for _, binds in alternatives):
                raise _Refused("an `|` alternative that binds a name", "write a case for each alternative")
            if any(not tests for tests, _ in alternatives):
                return [], []  # an irrefutable alternative
            return [syntax.bool_op(gast.Or(), [syntax.bool_op(gast.And(), tests) for tests, _ in alternatives])], []
        if isinstance(pattern, gast.MatchSequence):
            return self.sequence(pattern, subject)
        if isinstance(pattern, gast.MatchMapping):
            if pattern.rest is not None:
                raise _Refused(f"a mapping pattern's `**{pattern.rest}`", "read the keys you need by name")
            tests = [syntax.call(self.helper(pattern_tests.matches_mapping),
                                 [syntax.copy(subject), syntax.tuple_([syntax.copy(k) for k in pattern.keys])])]
            binds = []
            for key, sub in zip(pattern.keys, pattern.patterns):
                more, named = self.pattern(sub, syntax.subscript(syntax.copy(subject), syntax.copy(key)))
                tests, binds = tests + more, binds + named
            return tests, binds
        if isinstance(pattern, gast.MatchClass):
            return self.instance(pattern, subject)
        raise _Refused(f"the pattern `{type(pattern).__name__}`", "use `if`/`elif`")

    def sequence(self, pattern, subject):
        stars = [k for k, p in enumerate(pattern.patterns) if isinstance(p, gast.MatchStar)]
        fixed = len(pattern.patterns) - len(stars)
        arguments = [syntax.copy(subject), syntax.const(fixed)] + ([syntax.const(True)] if stars else [])
        tests, binds = [syntax.call(self.helper(pattern_tests.matches_sequence), arguments)], []
        star = stars[0] if stars else None
        for k, sub in enumerate(pattern.patterns):
            if k == star:
                if sub.name is not None:
                    after = len(pattern.patterns) - k - 1
                    part = syntax.subscript(syntax.copy(subject), syntax.slice_(
                        syntax.const(k) if k else None, syntax.const(-after) if after else None, None))
                    binds.append((sub.name, syntax.call(syntax.name("list"), [part])))
                continue
            index = k if star is None or k < star else k - len(pattern.patterns)
            more, named = self.pattern(sub, syntax.subscript(syntax.copy(subject), syntax.const(index)))
            tests, binds = tests + more, binds + named
        return tests, binds

    def instance(self, pattern, subject):
        cls = pattern.cls
        if pattern.patterns:
            if not (isinstance(cls, gast.Name) and cls.id in _SELF_MATCHING and len(pattern.patterns) == 1
                    and cls.id not in self.program.globals):
                raise _Refused("a class pattern with positional sub-patterns",
                               "match the attributes by name (`Point(x=0, y=y)`)")
            tests = [syntax.call(syntax.name("isinstance"), [syntax.copy(subject), syntax.copy(cls)])]
            more, binds = self.pattern(pattern.patterns[0], syntax.copy(subject))
            return tests + more, binds
        attributes = syntax.tuple_([syntax.const(a) for a in pattern.kwd_attrs])
        tests = [syntax.call(self.helper(pattern_tests.matches_class), [syntax.copy(subject), syntax.copy(cls), attributes])]
        binds = []
        for attribute, sub in zip(pattern.kwd_attrs, pattern.kwd_patterns):
            more, named = self.pattern(sub, syntax.attr(syntax.copy(subject), attribute))
            tests, binds = tests + more, binds + named
        return tests, binds


def _captures(pattern):
    """The names `pattern` binds."""
    found = set()
    for n in traversal.nodes(pattern):
        if isinstance(n, (gast.MatchAs, gast.MatchStar)) and n.name:
            found.add(n.name)
        elif isinstance(n, gast.MatchMapping) and n.rest:
            found.add(n.rest)
    return found
