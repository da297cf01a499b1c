"""`RemovableHandle` as `torch.utils.hooks`: what a Module's `register_*_hook` returns.
`remove()` (or leaving its `with` block) takes the hook out of the tables it was put in."""

import collections
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """The handle of the hook stored under `id` in `hooks_dict` (and in `extra_dict`s, the
    tables of flags such as `with_kwargs`); the tables are OrderedDicts, held weakly."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else ([extra_dict] if extra_dict is not None else [])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            table = ref()
            if table is not None and self.id in table:
                del table[self.id]

    def __getstate__(self):
        """Its tables themselves, so that a copied or pickled module's handle points into the
        copy's tables (PyTorch's state: tables, id, extra tables)."""
        return self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref)

    def __setstate__(self, state):
        table, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(table) if table is not None else _dead_reference()
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _dead_reference():
    return weakref.ref(collections.OrderedDict())
