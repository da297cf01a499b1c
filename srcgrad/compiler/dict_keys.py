"""Which local names hold dicts the function makes, and which loops bind their keys.

A dict's keys are hashable, so never arrays (nor lists) whose memory another value
shares: `for k in params:` and `for k, v in params.items()` bind k to a value that
nothing changes in place. sharing.py reads these facts when it binds loop and
comprehension targets.
"""

import gast

from . import traversal


def local_dicts(tree, params, is_dict_call):
    """Local names of `tree` every binding of which makes a dict (a display, a
    comprehension, a call `is_dict_call` accepts, as `dict(...)`), or merges into one
    (`d |= e`); parameters (`params`) are not among them."""
    bound = {}  # name -> [number of bindings, of dict makers]
    merged = {id(n.target) for n in traversal.walk(tree) if isinstance(n, gast.AugAssign) and isinstance(n.op, gast.BitOr)}
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and id(node) not in merged:
            bound.setdefault(node.id, [0, 0])[0] += 1
        elif (isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
              and (isinstance(node.value, (gast.Dict, gast.DictComp)) or is_dict_call(node.value))):
            bound.setdefault(node.targets[0].id, [0, 0])[1] += 1
    return {name for name, (stores, made) in bound.items() if stores == made and name not in params}


def iterates_keys(dicts, it):
    """Whether the loop header `it` is a dict of `dicts` or its `.keys()`: the items are keys."""
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and it.func.attr == "keys" and not it.args:
        it = it.func.value
    return isinstance(it, gast.Name) and it.id in dicts


def items_of_dict(dicts, it, target):
    """Whether `for k, v in it` reads `it` = `d.items()` of a dict of `dicts`, binding k to a key."""
    return (isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and it.func.attr == "items"
            and not it.args and isinstance(it.func.value, gast.Name) and it.func.value.id in dicts
            and isinstance(target, gast.Tuple) and len(target.elts) == 2
            and not any(isinstance(t, gast.Starred) for t in target.elts))
