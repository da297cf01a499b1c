"""What a graph node keeps for backward, read once per rule from the code of its reverse
rules (`dis`): which of its arguments a vjp reads (the tensors the node saves, whose
versions it records; not those named in the vjp function's `reads_only_the_shape_of`),
and whether one reads its result `ans` (again not when named there). Cached per rule and per
pattern of inputs needing grad; a function whose code cannot be read counts as reading
everything."""

import dis


def rule_reads_ans(rule):
    """Whether a reverse rule of `rule` may read its result `ans` (cached)."""
    found = _READS_ANS.get(id(rule))
    if found is None or found[0] is not rule:
        found = _READS_ANS[id(rule)] = (rule, any(_reads_ans(d) for d in rule.vjps.values()))
    return found[1]


_READS_ANS = {}  # id(rule) -> (rule, whether a vjp of it reads `ans`)


def reads_ans_of(rule, live):
    """Whether a vjp that backward will run (one per input with an edge, `live`) reads
    `ans`: `x ** 2` keeps no record of its output, as PyTorch's PowBackward0 saves none
    (cached)."""
    key = (id(rule), live)
    found = _LIVE_READS.get(key)
    if found is None or found[0] is not rule:
        params = rule.params
        found = _LIVE_READS[key] = (rule, len(live) > len(params) or any(
            _reads_ans(rule.vjps[params[i]]) for i, on in enumerate(live) if on and params[i] in rule.vjps
        ))
    return found[1]


_LIVE_READS = {}  # (id(rule), which inputs have an edge) -> (rule, whether those vjps read `ans`)


def saved_by(rule, live):
    """Which arguments the vjps of the inputs with an edge (`live`) may read (cached)."""
    key = (id(rule), live)
    found = _SAVED_BY.get(key)
    if found is None or found[0] is not rule:
        params = rule.params
        found = _SAVED_BY[key] = (rule, tuple(
            i >= len(params) or len(live) > len(params) or any(
                _reads_argument(rule.vjps.get(params[j]), i, len(live)) for j, on in enumerate(live) if on
            )
            for i in range(len(live))
        ))
    return found[1]


_SAVED_BY = {}  # (id(rule), which inputs have an edge) -> (rule, which arguments their vjps read)


def _reads_argument(derivative, i, count):
    """Whether a derivative function may read its argument `i` of `count` (True when its
    code cannot be read): a "scale" one is called `fn(ans, *args)`, a "vjp" one
    `fn(g, ans, *args)`."""
    code = getattr(getattr(derivative, "fn", None), "__code__", None)
    if derivative is None or derivative.kind not in ("scale", "vjp") or code is None or code.co_flags & 0x0C:
        return True
    at = (1 if derivative.kind == "scale" else 2) + i
    if at >= code.co_argcount:
        return True
    param = code.co_varnames[at]
    if param in getattr(derivative.fn, "reads_only_the_shape_of", ()):  # its values are not needed
        return False
    return any(
        ins.opname.startswith("LOAD_FAST") and param in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        for ins in dis.get_instructions(code)
    )


def _reads_ans(derivative):
    """Whether a rule's derivative function may read its `ans` argument (True when its
    code cannot be read)."""
    code = getattr(derivative.fn, "__code__", None)
    if derivative.kind not in ("scale", "vjp") or code is None:
        return True
    if "ans" in getattr(derivative.fn, "reads_only_the_shape_of", ()):  # its size, not its values
        return False
    return "ans" in code.co_varnames and any(
        ins.opname.startswith("LOAD_FAST") and "ans" in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        for ins in dis.get_instructions(code)
    )
