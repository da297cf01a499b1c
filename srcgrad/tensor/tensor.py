"""`Tensor`: a NumPy array with PyTorch's eager autograd interface.

This class holds no calculus. Every differentiable operation goes through
`ops.apply` (one registered rule, one node) or `ops.composite`; the node names
are PyTorch's. Invariants: `_data` is always an `np.ndarray` (0-d for scalars);
`is_leaf` is `grad_fn is None`; only floating tensors require grad; `.grad` exists
only on leaves (and on non-leaves that called `retain_grad`).

This module owns the autograd attributes, backward, data access and conversions; the
class's methods of ops come from its mixins: ArithmeticOps (arithmetic.py),
ReductionOps (reductions.py), ShapeOps (shaping.py), IndexingOps (indexing.py),
InPlaceOps (inplace.py), PointwiseOps (pointwise.py), PointwiseMoreOps
(pointwise_more.py), LinalgOps (linalg_functions.py), RearrangementOps
(rearrangements.py), ScatterOps (scatters.py), OrderStatisticOps (order_statistics.py),
CombiningOps (combining.py), SplittingOps (splitting.py), MatrixMakerOps (matrix_makers.py),
ContractionOps (contractions.py), DifferenceOps (differences.py), StatisticOps (statistics.py),
LogicalOps (logical.py), ComplexPartOps (complex_parts.py), BinningOps (binning.py),
ProductOps (products.py), SelectionOps (selections.py).
"""

import warnings

import numpy as np

from . import arithmetic, binary_ops, devices, dtypes, graph_backward, hooks, meta, ops, printing, products
from ..rules import activations
from .dtypes import Size, one_dim
from .complex_refusals import refuse_complex
from .engine import run_backward, run_single, warn_non_leaf_grad
from .errstate import loud, quiet
from .grad_mode import OPEN_INFERENCE_BLOCKS, _mode
from .meta_arrays import META_BUFFER, MetaArray, as_meta
from .meta_layouts import contiguous_strides, probe, set_layout
from .graph import AccumulateGrad, OutputNode, accumulate
from .tangents import TANGENTS, refuse_forward_over_reverse
from .arithmetic import ArithmeticOps
from .draws import DrawMethods
from .inplace import InPlaceOps
from .conversions import ConversionOps
from .pointwise import PointwiseOps
from .pointwise_more import PointwiseMoreOps
from .bitwise import BitwiseOps
from .float_parts import FloatPartOps
from .view_scatters import ViewScatterOps
from .linalg_functions import LinalgOps
from .matrix_methods import MatrixMethods
from .indexed_writes import IndexedWriteOps
from .memory_facts import MemoryFacts
from .method_aliases import MethodAliases
from .inplace_aliases import InPlaceAliases
from .tensor_facts import TensorFacts
from .order_statistics import OrderStatisticOps
from .rearrangements import RearrangementOps
from .combining import CombiningOps
from .splitting import SplittingOps
from .matrix_makers import MatrixMakerOps
from .contractions import ContractionOps
from .differences import DifferenceOps
from .statistics import StatisticOps
from .logical import LogicalOps
from .complex_parts import ComplexPartOps
from .binning import BinningOps
from .scatters import ScatterOps
from .products import ProductOps
from .reductions import ReductionOps
from .selections import SelectionOps
from .indexing import IndexingOps
from .shaping import ShapeOps
from .strided import StridedOps
from .versions import counter_of
from .views import BrokenView, refuse_detach, view_of

__all__ = ["Tensor"]

E4 = (
    "you can only change requires_grad flags of leaf variables. If you want to use a "
    "computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)
E5 = "only Tensors of floating point dtype can require gradients"


_SCALAR_WARNING_SHOWN = False


def _warn_scalar_of_tracked():
    """PyTorch's warning, once per process, at `float(t)` of a tensor that requires grad
    (with grad mode on, as PyTorch checks)."""
    global _SCALAR_WARNING_SHOWN
    _SCALAR_WARNING_SHOWN = True
    warnings.warn(
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first.",
        UserWarning,
        stacklevel=3,
    )


_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
    "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
    "see https://github.com/pytorch/pytorch/pull/103001"
)


def _rebuilt_leaf(data, requires_grad):
    """What `pickle` makes of a pickled Tensor (`Tensor.__reduce_ex__`)."""
    return Tensor._make(data, requires_grad)


def seed_of(out, gradient):
    """The seed array of a backward pass from the tensor `out` given `gradient` (a Tensor;
    None: the implicit ones of a one-element output), with PyTorch's errors."""
    if not out._requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if out._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if type(out._data) is MetaArray:
            return out._data.copy()
        seed = np.empty(out._data.shape, dtype=out._data.dtype)  # np.ones without its Python frame
        seed.fill(1)
        return seed
    if type(gradient._data) is not type(out._data):
        raise RuntimeError(f"invalid gradient at index 0 - expected device {out.device} but got {gradient.device}")
    return gradient._data.astype(out._data.dtype, copy=False)


def graph_seed(out, gradient):
    """`seed_of` as a Tensor, for a pass with create_graph: a given gradient that requires
    grad (of out's dtype) is the seed itself, so its own graph joins the new one."""
    array = seed_of(out, gradient)
    if gradient is not None and gradient._requires_grad:
        return gradient if array is gradient._data else gradient.to(array.dtype)  # the cast recorded
    return Tensor._make(array)


def given_gradients(gradients, count):
    """The `gradient` argument of `backward` / `grad_outputs` of `autograd.grad` as a list
    of `count` Tensors or Nones, read as PyTorch reads it: one Tensor, None, or a sequence
    (a Python number is refused, as `tuple(1.0)` refuses it)."""
    if gradients is None:
        return [None] * count
    if isinstance(gradients, Tensor):
        return [gradients]
    gradients = tuple(gradients)
    for g in gradients[:count]:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    if len(gradients) < count:  # extra gradients are ignored
        raise RuntimeError(f"got {count} tensors and {len(gradients)} gradients")
    return list(gradients[:count])


class Tensor(ArithmeticOps, ReductionOps, ShapeOps, IndexingOps, InPlaceOps, PointwiseOps, PointwiseMoreOps, LinalgOps,
             RearrangementOps, ScatterOps, OrderStatisticOps, CombiningOps, SplittingOps, MatrixMakerOps, ContractionOps,
             DifferenceOps, StatisticOps, LogicalOps, ComplexPartOps, BinningOps, ProductOps, SelectionOps,
             DrawMethods, MatrixMethods, IndexedWriteOps, MemoryFacts, MethodAliases, ConversionOps, StridedOps,
             InPlaceAliases, TensorFacts, BitwiseOps, FloatPartOps, ViewScatterOps):
    """A tensor. `Tensor(data)` makes a float32 copy; `Tensor(2, 3)` an uninitialized one."""

    __slots__ = (
        "_data", "_requires_grad", "_grad", "_grad_fn", "_accumulator", "_retains_grad", "_counter", "_view", "_inference",
        "__weakref__",
    )  # `_view` is a view's ViewOf record, None (or unset) on other tensors (views.py)
    __array_priority__ = 1000

    def __init__(self, *args, dtype=None, requires_grad=False):
        np_dtype = dtypes.DEFAULT_FLOAT.numpy if dtype is None else dtypes.as_dtype(dtype).numpy
        if args and all(isinstance(a, (int, np.integer)) for a in args):
            data = np.zeros(args, dtype=np_dtype)
        elif len(args) == 1:
            data = np.array(args[0]._data if isinstance(args[0], Tensor) else args[0], dtype=np_dtype)
        else:
            data = np.zeros((0,), dtype=np_dtype)
        self._data = data
        self._requires_grad = False
        self._grad = self._grad_fn = self._accumulator = None
        self._retains_grad = False
        self._view = None
        self._counter = None
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, data, requires_grad=False):
        t = object.__new__(cls)
        t._data = as_meta(data) if data.base is META_BUFFER and type(data) is not MetaArray else data
        t._requires_grad = requires_grad
        t._grad = t._grad_fn = t._accumulator = t._counter = None
        t._retains_grad = False
        t._view = None
        if OPEN_INFERENCE_BLOCKS[0] and _mode.inference:
            t._inference = True
        return t

    def is_inference(self):
        """Whether the tensor was made inside `inference_mode()` (PyTorch's inference
        tensor; a view made later of one is not marked)."""
        return getattr(self, "_inference", False)

    # --- copies ------------------------------------------------------------------------

    def __reduce_ex__(self, protocol):
        """Pickled as PyTorch pickles a tensor: its values (a view's own, not its base's), dtype
        and `requires_grad`, as a leaf; neither `.grad` nor the graph."""
        return _rebuilt_leaf, (np.array(self._data), self._requires_grad)

    def __deepcopy__(self, memo):
        """A new leaf of the same values, `requires_grad` and a copy of `.grad`, as PyTorch's
        deepcopy; a tensor a graph made is refused, as PyTorch refuses it."""
        if self._grad_fn is not None:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)
        copied = memo[id(self)] = Tensor._make(self._data.copy(order="K"), self._requires_grad)
        if self._grad is not None:
            copied._grad = self._grad.__deepcopy__(memo)
        return copied

    def _accumulate_grad(self):
        acc = self._accumulator
        if acc is None:
            acc = self._accumulator = AccumulateGrad(self)
        return acc

    # --- autograd attributes ----------------------------------------------------------

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        """As `requires_grad_`, except that a non-leaf refuses True as well (PyTorch's
        setter does; its method accepts it)."""
        if flag and self._grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad=True):
        """Set the flag in place and return self (leaves only, floating dtypes only)."""
        if type(requires_grad) is not bool:
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        self._set_requires_grad(requires_grad, E5)
        return self

    def _set_requires_grad(self, flag, dtype_message):
        flag = bool(flag)
        if self._grad_fn is not None:
            if not flag:
                raise RuntimeError(E4)
            return
        if flag and self._data.dtype.kind not in "fc":
            raise RuntimeError(dtype_message)
        if flag:
            dtypes.refuse_complex_autograd(self._data.dtype)
        self._requires_grad = flag

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            warn_non_leaf_grad()
        return self._grad

    @grad.setter
    def grad(self, value):
        """None or a tensor of this tensor's dtype and shape (PyTorch's errors otherwise)."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.c_name(value.dtype)}' to a tensor with grad_dtype "
                    f"'{self.dtype.kind_name}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
                    "downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of size "
                    f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor: for an output of a node with several outputs,
        that node (its `_grad_fn` is the OutputNode routing its gradient). A view
        PyTorch cannot rebuild after a write into its base raises (views.BrokenView)."""
        fn = self._grad_fn
        if type(fn) is BrokenView:
            raise RuntimeError(fn.refusal)
        return fn.node if type(fn) is OutputNode else fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def retain_grad(self):
        """Make `backward` fill `.grad` on this non-leaf tensor too."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is not None:
            self._retains_grad = True
            self._grad_fn.retain(self)

    register_hook = hooks.register_hook
    register_post_accumulate_grad_hook = hooks.register_post_accumulate_grad_hook

    @property
    def retains_grad(self):
        return self._retains_grad

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf), weighted by `gradient`, into every leaf's `.grad`."""
        fn = self._grad_fn
        if gradient is None and fn is not None and inputs is None and not create_graph:
            # The common `loss.backward()`: a non-leaf (so it requires grad) with the
            # implicit seed. One node over leaves runs without the general engine.
            data = self._data
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if type(data) is not MetaArray and run_single(fn, data.shape, data.dtype, retain_graph):
                return
        if gradient is not None:
            (gradient,) = given_gradients(gradient, 1)
        if gradient is not None:
            if gradient._data.shape != self._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and "
                    f"output[0] has a shape of {self.shape}."
                )
        if create_graph:
            refuse_forward_over_reverse([fn])
            seed = graph_seed(self, gradient)
            self._graph_backward(fn if fn is not None else self._accumulate_grad(), seed, retain_graph, inputs)
            return
        g = seed_of(self, gradient)
        retain = bool(retain_graph)
        root = fn if fn is not None else self._accumulate_grad()
        token = quiet()
        try:
            if inputs is None:
                run_backward([root], [g], retain_graph=retain)
                return
            inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
            if not inputs:
                raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
            if not all(t._requires_grad for t in inputs):  # its .grad would stay None, silently
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            got = run_backward([root], [g], retain, capture=[ops._edge(t) for t in inputs])
        finally:
            loud(token)
        for t, gi in zip(inputs, got):
            if gi is not None:
                accumulate(t, gi)

    def _graph_backward(self, root, seed, retain_graph, inputs):
        """backward(create_graph=True): gradients that record their graph (graph_backward.py);
        the graph is kept unless retain_graph is False, as PyTorch keeps it."""
        retain = True if retain_graph is None else bool(retain_graph)
        if inputs is None:
            warnings.warn(graph_backward.CYCLE_WARNING, UserWarning, stacklevel=3)
            graph_backward.run_graph_backward([root], [seed], retain)
            return
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        if not all(t._requires_grad for t in inputs):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        got = graph_backward.run_graph_backward([root], [seed], retain, capture=[ops._edge(t) for t in inputs])
        for t, gi in zip(inputs, got):
            if gi is not None:
                graph_backward.accumulate(t, gi)

    # --- data access ----------------------------------------------------------------

    @property
    def data(self):
        """A leaf that shares storage with self and is never tracked; nor are its
        in-place writes counted in self's version (as in PyTorch)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        if self._requires_grad and other._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = other._data

    def detach(self):
        """A leaf that shares storage and version counter with self."""
        out = Tensor._make(self._data)
        out._counter = counter_of(self)
        return out

    @property
    def _version(self):
        """How many in-place writes this tensor's storage has had (PyTorch's `_version`;
        views and `detach()`ed aliases share the count)."""
        counter = self._counter
        return 0 if counter is None else counter[0]

    @property
    def _base(self):
        """The tensor this one is a view of (None when it is no view)."""
        made = view_of(self)
        return None if made is None else made.base

    def _is_view(self):
        return view_of(self) is not None

    def detach_(self):
        refuse_detach(self)
        self._grad_fn = None
        self._requires_grad = False
        return self

    def numpy(self, force=False):
        """The array the tensor holds (shared, not copied); refused for a tensor that
        requires grad while grad mode is on, as in PyTorch (inside `no_grad` it is given)."""
        if self._requires_grad and _mode.enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        meta.refuse_numpy(self)
        return self._data

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy ufunc of tensors gives a tensor that records nothing (`np.exp(t)`), as in
        PyTorch, which makes a bool result uint8; 0-d results stay tensors."""
        array = np.asarray(array)
        return Tensor._make(array.astype(np.uint8) if array.dtype.kind == "b" else array)

    def item(self):
        n = self._data.size
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._data.reshape(-1)[0].item()

    def tolist(self):
        return self._data.tolist()

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        shape = self._data.shape
        return Size(shape) if dim is None else shape[one_dim(dim, len(shape), "size")]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return dtypes.of(self._data.dtype)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def element_size(self):
        return self._data.itemsize

    def is_contiguous(self, memory_format=None):
        """Whether the elements lie in row-major order without gaps (a transpose or an
        expansion does not), as NumPy's C-contiguity says (of a meta array's layout on
        the meta device)."""
        data = self._data
        return (probe(data) if type(data) is MetaArray else data).flags.c_contiguous

    @property
    def device(self):
        return devices.META if self.is_meta else devices.CPU

    @property
    def is_meta(self):
        return type(_STORAGE.__get__(self)) is MetaArray  # the slot: an uninitialized parameter refuses `_data`

    @property
    def is_cuda(self):
        return False

    def __repr__(self):
        return printing.tensor_repr(self, repr(self.dtype))

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and type(self._data) is not MetaArray:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        """The slices along dim 0, as `unbind()` makes them (UnbindBackward0), as in PyTorch."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind())

    def __reversed__(self):
        """`self.flip(0)` (a 0-d tensor itself), as in PyTorch: `reversed(t)` is a tensor."""
        return self if self._data.ndim == 0 else self.flip(0)

    def __bool__(self):
        n = self._data.size
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(-1)[0].item())  # a meta tensor's item() raises PyTorch's error

    def _python_scalar(self, kind):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return kind(self._data.reshape(-1)[0])

    def __float__(self):
        if self._requires_grad and _mode.enabled and not _SCALAR_WARNING_SHOWN:
            _warn_scalar_of_tracked()
        return self._python_scalar(float)

    def __int__(self):
        return self._python_scalar(int)

    def __index__(self):
        if self._data.size != 1 or self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(-1)[0])

    # --- elementwise functions --------------------------------------------------------

    def abs(self):
        """`|self|` (AbsBackward0); a bool tensor is refused, as in PyTorch."""
        if self._data.dtype.kind == "b":
            raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
        return ops.unary(np.absolute, self)

    __abs__ = abs

    def relu(self):
        if self._data.dtype.kind == "c":
            refuse_complex("clamp", self)
        return ops.unary(activations.relu, self, "ReluBackward0", compute=activations.relu_of_array)

    def softmax(self, dim):
        from ..nn import functional

        return functional.softmax(self, dim)

    def log_softmax(self, dim):
        from ..nn import functional

        return functional.log_softmax(self, dim)

    # --- copies (conversions.py has dtype and device conversions) ----------------------

    def contiguous(self, memory_format=None):
        """Self when its elements lie in row-major order, else a copy that does (CloneBackward0;
        on the meta device a meta clone, laid out contiguously, made without allocating)."""
        if self.is_contiguous():
            return self
        if type(self._data) is MetaArray:  # the clone (a new array) laid out contiguously
            out = self.clone()
            set_layout(out._data, contiguous_strides(self._data.shape, self._data.itemsize), 0)
            return out
        if _mode.enabled and self._requires_grad or TANGENTS:
            return ops.apply(np.ascontiguousarray, self, name="CloneBackward0", saves=False)
        return Tensor._make(np.ascontiguousarray(self._data))

    def clone(self):
        if _mode.enabled and self._requires_grad or TANGENTS:
            return ops.apply(np.positive, self, name="CloneBackward0", saves=False)
        return Tensor._make(self._data.copy())


Tensor.__module__ = "srcgrad"  # `type(t)` prints <class 'srcgrad.Tensor'>, as PyTorch's <class 'torch.Tensor'>
ops.Tensor = binary_ops.Tensor = products.Tensor = arithmetic.Tensor = graph_backward.Tensor = Tensor


_STORAGE = Tensor._data  # the slot that holds the array, read past a subclass's `_data`
