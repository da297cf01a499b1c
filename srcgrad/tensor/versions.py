"""Version counters: refusing a backward through values written in place since saved.

As in PyTorch, a tensor's `_counter` is None until something needs it, then a list
shared with its views and `detach()`ed aliases (not with `.data`): `[0]` the count of
in-place writes into the storage, `[1]` (when present) the ViewFamily of the views that
share it (views.py; False for none), `[2]` (when present) the node of the last recorded
in-place write. Every in-place write adds 1 (`bump`, which makes the counter if there is none yet), and
gives the views new nodes (`ViewFamily.refresh`). A node that keeps a tensor's array
records `counter, count, which` in its `versions` when it is made (`saved_version`; a
flat tuple, three items per saved tensor, which is the cheapest to build); backward
runs `check_versions` and refuses the node once a count has moved.
"""

import re

from .graph import which_output

__all__ = ["counter_of", "rebased", "saved_version", "saved_versions", "bump", "check_versions"]


def counter_of(tensor):
    """The version counter of `tensor`, made on first need (see the module docstring)."""
    counter = tensor._counter
    if counter is None:
        counter = tensor._counter = [0]
    return counter


def rebased(tensor, producer):
    """Note on `tensor`'s counter that a recorded in-place write made `producer` its node:
    PyTorch names that node, not the one that made the saved values, in its version error."""
    counter = counter_of(tensor)
    if len(counter) < 3:
        counter.extend([False] * (2 - len(counter)) + [producer])
    else:
        counter[2] = producer


def saved_version(tensor, which):
    """The record a node keeps of saving `tensor` (three items of its `versions`):
    `which` tells `check_versions` how to describe it (`node.describe_saved(which)`)."""
    counter = counter_of(tensor)
    return (counter, counter[0], which)


def saved_versions(tensors):
    """The records of saving `tensors`, each described by its array and the node that
    made it (what `Node.describe_saved` reads)."""
    versions = ()
    for t in tensors:
        versions += saved_version(t, (t._data, t._grad_fn))
    return versions


def bump(tensor):
    """Count an in-place write into `tensor`: every write counts, as PyTorch's `_version`
    reads (a tensor with no counter yet, so no views and nothing saved, gets one)."""
    counter = tensor._counter
    if counter is None:
        tensor._counter = [1]
        return
    counter[0] += 1
    if len(counter) > 1 and counter[1]:
        counter[1].refresh()


def _as_regenerated(text, counter):
    """`text` naming a saved view's node (`..., which is output 0 of Select,`) as PyTorch
    names it after a write into the view's elements: AsStrided, the node the view then has
    (views.py)."""
    if len(counter) < 2 or not counter[1]:
        return text
    found = _OUTPUT_OF.search(text)
    if found is None or found.group(1) + "Backward0" not in _VIEW_NODES:
        return text
    return text[: found.start(1)] + "AsStrided,"


_OUTPUT_OF = re.compile(r"which is output \d+ of (\w+),$")
_VIEW_NODES = {"SelectBackward0", "SliceBackward0", "AliasBackward0", "ViewBackward0", "UnsqueezeBackward0",
               "TBackward0", "TransposeBackward0", "PermuteBackward0", "DiagonalBackward0", "ExpandBackward0",
               "ReshapeAliasBackward0"}


def check_versions(node):
    """Raise PyTorch's error when a value `node` saved was changed in place since."""
    versions = node.versions
    i = 0
    while i < len(versions):
        counter, count = versions[i], versions[i + 1]
        if counter[0] != count:
            which = versions[i + 2]
            text = node.describe_saved(which)
            regenerated = _as_regenerated(text, counter)
            if regenerated is not text:
                text = regenerated
            elif len(counter) > 2 and not (type(which) is int and which == -1):
                # a saved input is now the output of its in-place write's node (a saved
                # output is still named after the node that made it, as in PyTorch)
                text = text[: text.index("]]") + 2] + which_output(counter[2])
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{text} is at version {counter[0]}; "
                f"expected version {count} instead. Hint: enable anomaly detection to find the "
                "operation that failed to compute its gradient, with "
                "srcgrad.autograd.set_detect_anomaly(True, check_nan=False)."
            )
        i += 3

