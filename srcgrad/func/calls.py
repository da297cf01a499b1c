"""`functional_call` of `srcgrad.func`, as `torch.func.functional_call`: a module called
with some of its parameters and buffers replaced by the given tensors, so that a
transform can differentiate the call with respect to them.

Invariant: the module's own parameters and buffers are back in place when the call
returns or raises; a tensor tied to a replaced one (the same Parameter under two
names) is replaced with it where `tie_weights` is on.
"""


__all__ = ["functional_call"]


def _merged(parameter_and_buffer_dicts):
    """One dict from a dict or a sequence of dicts; PyTorch's error for a key in two."""
    if isinstance(parameter_and_buffer_dicts, dict):
        return dict(parameter_and_buffer_dicts)
    merged, repeated = {}, []
    for table in parameter_and_buffer_dicts:
        for key, value in table.items():
            if key in merged:
                repeated.append(key)
            merged[key] = value
    if repeated:
        raise ValueError(f"{sorted(set(repeated))} appeared in multiple dictionaries; behavior of functional call "
                         "is ambiguous")
    return merged


def _named_tensors(module):
    """Every (name, tensor) of the module's parameters and buffers, tied ones under
    each of their names."""
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`module(*args, **kwargs)` with the parameters and buffers named in
    `parameter_and_buffer_dicts` (dotted names, as `named_parameters` gives them)
    replaced for the call. `args` that is not a tuple is the one positional argument."""
    values = _merged(parameter_and_buffer_dicts)
    known = dict(_named_tensors(module))
    if strict:
        unexpected = sorted(k for k in values if k not in known)
        missing = sorted(k for k in known if k not in values)
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    if tie_weights:
        values = _tied(values, known)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    restore = []
    try:
        for name, value in values.items():
            restore.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for undo in reversed(restore):
            undo()


def _tied(values, known):
    """`values` with every name of a tensor tied to a replaced one replaced too;
    PyTorch's error where tied names are given different values."""
    names_of = {}
    for name, tensor in known.items():
        names_of.setdefault(id(tensor), []).append(name)
    out = dict(values)
    for name, value in values.items():
        if name not in known:
            continue
        for other in names_of[id(known[name])]:
            if other in values and values[other] is not value:
                tied = sorted(names_of[id(known[name])])
                raise ValueError(f"functional_call got multiple values for keys {tied}, which are tied. Consider "
                                 "using tie_weights=False")
            out[other] = value
    return out


def _swap(module, name, value):
    """Put `value` in the place of the module's tensor `name`; the function undoing it."""
    *path, attr = name.split(".")
    owner = module.get_submodule(".".join(path)) if path else module
    for table_name in ("_parameters", "_buffers"):
        table = owner.__dict__[table_name]
        if attr in table:
            old = table[attr]
            table[attr] = value

            def undo(table=table, attr=attr, old=old):
                table[attr] = old

            return undo
    had = attr in owner.__dict__
    old = owner.__dict__.get(attr)
    object.__setattr__(owner, attr, value)

    def undo_attribute():
        if had:
            object.__setattr__(owner, attr, old)
        else:
            object.__delattr__(owner, attr)

    return undo_attribute


