"""`RemovableHandle` as `torch.utils.hooks`: what a Module's `register_*_hook` returns.
`remove()` (or leaving its `with` block) takes the hook out of the tables it was put in."""

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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
