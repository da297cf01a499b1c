"""Views, and in-place writes into them, recorded as PyTorch records them.

A view op (a node named in `VIEW_NODES`: slicing, select, transpose, diagonal, expand,
a reshape that copies nothing, ...) gives a tensor over elements of its input's array.
`note_view` makes it a view of the input's base (the input itself, or the input's base
when the input is a view: views of views share the root base, PyTorch's `._base`). The
view's `_view` slot then holds a `ViewOf` record (its base, which it keeps alive, and how
it was made), and the version counter that the base and its views share holds, as its
second item, the `ViewFamily` listing the live views (weakly). A tensor that is no view
has its `_view` slot None (or unset): `view_of(t)` is None.

Invariants (PyTorch's):
- a recorded in-place write into a view (`write_through`) makes the base the output of a
  CopySlices node, whose backward runs the write's node on the written region of the
  base's gradient and passes the rest of it on to the base's previous node;
- after every write into the base's elements (recorded or not; through the base, a view
  or a detached alias) each view of a base that requires grad gets a new
  AsStridedBackward0 node over the base's current node (`ViewFamily.refresh`). PyTorch
  makes that node when the view's grad_fn is next read; making it at the write gives
  the same graph;
  that is, except for one of several views one function returned, or a view made with
  grad mode off: PyTorch cannot rebuild those, so their grad_fn becomes a `BrokenView`,
  which refuses to be read or run backward (PyTorch refuses as soon as an op reads it);
- the errors of writes, with grad mode on, into a view of a leaf that requires grad,
  into one of several views one function returned, or into a view made with grad mode
  off, and of `detach_()` on a view.
"""

import weakref

import numpy as np

from .graph import Node, node_class
from .grad_mode import _mode
from .versions import counter_of, rebased

__all__ = [
    "VIEW_NODES", "ViewOf", "ViewFamily", "note_view", "shares_elements", "may_share_memory", "view_of", "mark_output", "positions", "write_through",
    "refuse_detach", "refresh_after_write", "retarget_result", "rebase", "CopySlices", "AS_STRIDED", "BrokenView",
]

# The nodes of PyTorch's view ops: their outputs are views of their input.
VIEW_NODES = frozenset((
    "SelectBackward0", "SliceBackward0", "AliasBackward0", "ViewBackward0", "UnsqueezeBackward0",
    "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "PermuteBackward0", "TransposeBackward0",
    "TBackward0", "DiagonalBackward0", "ExpandBackward0", "ReshapeAliasBackward0", "SplitBackward0",
    "SplitWithSizesBackward0", "UnbindBackward0", "AsStridedBackward0",
))
# view ops that return several views, and the op name their in-place error gives
_SEVERAL = {"SplitBackward0": "Split", "SplitWithSizesBackward0": "SplitWithSizes", "UnbindBackward0": "Unbind"}

E_VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."
E_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
    "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
    "detach_() cannot be called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
E_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside "
    "(if you want the inplace to be tracked)."
)


_new = object.__new__
# np.may_share_memory without its __array_function__ dispatch (NumPy >= 1.25 exposes it)
may_share_memory = getattr(np.may_share_memory, "_implementation", np.may_share_memory)


class ViewOf:
    """What a view knows of itself: `base` (a tensor that is no view), `op` (the op name
    of a function that returned several views, else None) and `output` (this view's
    number among them), `without_grad` (made with grad mode off). Views of one base made
    by single-output ops in one grad mode may share one record (it is then never written)."""

    __slots__ = ("base", "op", "output", "without_grad")

    def __init__(self, base, op, without_grad):
        self.base, self.op, self.output, self.without_grad = base, op, 0, without_grad


class ViewFamily:
    """The live views of one base (weak references), kept in the version counter they
    share with it (its item 1; see versions.py). References to dead views are dropped
    when the list reaches `limit`, twice the live ones then (at least 64): `x[0]` taken
    at every step of a loop keeps the list short."""

    __slots__ = ("views", "limit", "last")

    def __init__(self):
        self.views = []
        self.limit = 64
        self.last = None  # the ViewOf of the last view of a single-output op, which such views share

    def prune(self):
        """Drop the references to dead views (`note_view` calls it at `limit`)."""
        self.views = [ref for ref in self.views if ref() is not None]
        self.limit = max(64, 2 * len(self.views))

    def refresh(self):
        """Give every live view of a base that requires grad a new AsStridedBackward0 node
        over its base's current node (after a write into their shared elements), or a
        BrokenView where PyTorch cannot rebuild the view's node."""
        alive = []
        for ref in self.views:
            view = ref()
            if view is None:
                continue
            alive.append(ref)
            base = view._view.base
            if base._requires_grad and shares_elements(view._data, base._data):
                made = view._view
                if made.op is not None or made.without_grad:
                    rebase(view, BrokenView(_unrebuildable(made)))
                    view._requires_grad = True
                    continue
                edge = base._grad_fn if base._grad_fn is not None else base._accumulate_grad()
                rebase(view, AS_STRIDED(((edge, 0),), positions(view._data, base._data), base._data.shape,
                                        base._data.dtype))
                view._requires_grad = True
        self.views = alive


class BrokenView(Node):
    """The grad_fn of a view whose node PyTorch refuses to rebuild after a write into its
    base's elements (see `ViewFamily.refresh`): reading `grad_fn` or `is_leaf` raises
    `refusal`, and so does a backward pass that would run it, before anything runs (it
    counts as freed); the tensor prints `grad_fn=<Invalid>`."""

    __slots__ = ("refusal",)
    freed = True

    def __init__(self, refusal):
        super().__init__(())
        self.refusal = refusal


def _unrebuildable(made):
    """PyTorch's error for reading the node of the view `made` after a write into its base."""
    if made.without_grad:
        return E_NO_GRAD_VIEW.replace("is being modified inplace", "its base or another view of its base has been "
                                      "modified inplace")
    return (
        f"Output {made.output} of {made.op} is a view and its base or another view of its base has been modified "
        "inplace. This view is the output of a function that returns multiple views. Such functions do not allow "
        "the output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
    )


def shares_elements(view, array):
    """Whether the array `view` may lie in `array`'s memory: an empty view counts when
    both are views of one array (NumPy then sees no overlap)."""
    if may_share_memory(view, array):
        return True
    return view.size == 0 and _owner(view) is _owner(array)


def _owner(array):
    """The object that owns `array`'s memory (through `as_strided`'s wrapper too)."""
    while getattr(array, "base", None) is not None:
        array = array.base
    return array


def rebase(tensor, node):
    """Make `node` the grad_fn of `tensor` (whose history an in-place write changed); a
    tensor that retains its grad then retains it from `node`, as in PyTorch."""
    old = tensor._grad_fn
    tensor._grad_fn = node
    if tensor._retains_grad and old is not None and old._hooks:
        old._hooks = [h for h in old._hooks if h is not tensor] or None
        node.retain(tensor)


def view_of(tensor):
    """The ViewOf record of `tensor`, None when it is no view (its `_view` slot None or unset)."""
    return getattr(tensor, "_view", None)


def note_view(view, source, name):
    """Record the tensor `view` (made by the op whose node is called `name` from the tensor
    `source`, sharing its elements) as a view of `source`'s base when `name` is a view
    op's node; otherwise it only shares `source`'s version counter."""
    counter = source._counter  # counter_of(source), inlined: every view op passes here
    if counter is None:
        counter = source._counter = [0]
    view._counter = counter
    if name not in VIEW_NODES:
        return
    if len(counter) == 1:
        counter.append(False)
    family = counter[1]
    if not family:
        family = counter[1] = ViewFamily()
    made = getattr(source, "_view", None)  # view_of(source)
    base = source if made is None else made.base
    without_grad = not _mode.enabled
    op = _SEVERAL.get(name)
    record = family.last
    if op is None and record is not None and record.base is base and record.without_grad is without_grad:
        view._view = record  # the record of the family's last view, the same (op None: never written)
    else:
        record = view._view = _new(ViewOf)  # ViewOf(base, op, without_grad), inlined
        record.base, record.op, record.output, record.without_grad = base, op, 0, without_grad
        if op is None:
            family.last = record
    if len(family.views) >= family.limit:
        family.prune()
    family.views.append(weakref.ref(view))


def mark_output(view, index):
    """Note that `view` is output `index` of a function that returned several views."""
    made = view_of(view)
    if made is not None:
        made.output = index


def refresh_after_write(counter):
    """After an in-place write counted in `counter`: its views get new nodes (see
    ViewFamily.refresh)."""
    if len(counter) > 1 and counter[1]:
        counter[1].refresh()


def refuse_detach(tensor):
    """PyTorch's error for `detach_()` on a view."""
    if view_of(tensor) is not None:
        raise RuntimeError(E_DETACH_VIEW)


def positions(view, base):
    """The flat (C order) index into the array `base` of each element of the array `view`,
    which lies in `base`'s memory: an array of `view`'s shape (PyTorch's as_strided
    geometry of a view over its base)."""
    item = base.itemsize
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if base.flags.c_contiguous:
        found = np.full(view.shape, start // item, dtype=np.intp)
        for axis, (n, stride) in enumerate(zip(view.shape, view.strides)):
            found += _along(axis, view.ndim, np.arange(n, dtype=np.intp) * (stride // item))
        return found
    offsets = np.zeros(base.shape, dtype=np.intp)
    for axis, (n, stride) in enumerate(zip(base.shape, base.strides)):
        offsets += _along(axis, base.ndim, np.arange(n, dtype=np.intp) * stride)
    offsets = offsets.reshape(-1)
    order = np.argsort(offsets, kind="stable")
    wanted = np.full(view.shape, start, dtype=np.intp)
    for axis, (n, stride) in enumerate(zip(view.shape, view.strides)):
        wanted += _along(axis, view.ndim, np.arange(n, dtype=np.intp) * stride)
    return order[np.searchsorted(offsets[order], wanted)]


def _along(axis, ndim, values):
    """The 1-D `values` shaped to broadcast along `axis` of `ndim` dims."""
    return values.reshape((1,) * axis + (-1,) + (1,) * (ndim - axis - 1))


class AsStridedGradient(Node):
    """The node of AS_STRIDED (AsStridedBackward0), as it follows a write into a view's base: the view's gradient
    added into zeros of the base's shape at the view's `positions` (several times where
    elements repeat, as in an expanded view). It saves no tensor."""

    __slots__ = ("positions", "shape", "dtype")

    def __init__(self, next_functions, positions, shape, dtype):
        super().__init__(next_functions)
        self.positions, self.shape, self.dtype = positions, shape, dtype

    def apply(self, g):
        out = np.zeros(self.shape, self.dtype)
        np.add.at(out.reshape(-1), self.positions, g)
        return [out]


AS_STRIDED = node_class("AsStridedBackward0", AsStridedGradient)


class CopySlices(Node):
    """The node of a base after a recorded in-place write into its view: its edges are
    the base's previous node's, then those of the write's node `fn` but its first (the
    view's old values). Backward gives `fn`'s other inputs `fn`'s gradients of the
    written region (the elements at `positions`), and the base's previous node the base's
    gradient with that region replaced by `fn`'s gradient of the view's old values. What
    `fn` saved is what this node saves (its versions); as PyTorch's, it drops `fn` on
    release, so that a second backward through it raises whatever `fn` saved."""

    __slots__ = ("positions", "shape", "dtype", "fn", "freed")

    def __init__(self, base_edge, fn, positions, shape, dtype):
        super().__init__((base_edge,) + tuple(fn.next_functions[1:]))
        self.fn, self.positions, self.shape, self.dtype = fn, positions, shape, dtype
        self.freed = False

    @property
    def versions(self):
        return self.fn.versions

    def describe_saved(self, which):
        return self.fn.describe_saved(which)

    def release(self):
        self.fn.release()
        self.freed = True

    def apply(self, g):
        g = np.array(g, dtype=self.dtype, order="C")  # a copy whose flat view is C order, as `positions`
        flat = g.reshape(-1)
        grads = self.fn.apply(flat[self.positions])
        first = grads[0]
        flat[self.positions] = 0 if first is None else first
        return [g if self.next_functions[0][0] is not None else None, *grads[1:]]


def write_through(view, compute, tensor_class):
    """A recorded in-place write into the view `view` (grad mode on): its elements become
    `compute(source)`'s (`source` a tensor of the view's old values, `compute` recording
    the write's node over it), its base the output of a CopySlices node over that node,
    and every view of the base gets a new node. PyTorch's errors first."""
    made = view._view
    base = made.base
    if made.op is not None:
        raise RuntimeError(
            f"Output {made.output} of {made.op} is a view and is being modified inplace. This view is the output of "
            "a function that returns multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one."
        )
    if made.without_grad and base._requires_grad:
        raise RuntimeError(E_NO_GRAD_VIEW)
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(E_VIEW_OF_LEAF)
    source = tensor_class._make(view._data.copy(), base._requires_grad)
    out = compute(source)
    view._store(out._data)
    counter = counter_of(base)
    counter[0] += 1
    fn = out._grad_fn
    retarget_result(fn, out, counter)
    edge = None
    if base._requires_grad:
        edge = base._grad_fn if base._grad_fn is not None else base._accumulate_grad()
    node = CopySlices((edge, 0), fn, positions(view._data, base._data), base._data.shape, base._data.dtype)
    rebase(base, node)
    base._requires_grad = True
    rebased(base, node)
    refresh_after_write(counter)
    return view


def retarget_result(fn, out, counter):
    """The node `fn` recorded the version of its output `out` (which it reads back) in
    `out`'s own counter; `out`'s values now live in the tensor counted by `counter` (an
    in-place write), so the record counts that tensor's writes from now on."""
    versions = getattr(fn, "versions", ())
    if not versions or out._counter is None:
        return
    own = out._counter
    fixed = list(versions)
    for i in range(0, len(fixed), 3):
        if fixed[i] is own:
            fixed[i], fixed[i + 1] = counter, counter[0]
    fn.versions = tuple(fixed)
