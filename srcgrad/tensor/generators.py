"""`Generator`: a seeded stream of random numbers, as `torch.Generator`, and the default
one every draw without `generator=` takes (`default_generator`, which `manual_seed`,
`seed`, `initial_seed`, `get_rng_state` and `set_rng_state` act on).

The numbers are srcgrad's own: a Generator holds a NumPy PCG64 generator seeded with
`np.random.default_rng(seed)`, so a seed gives the same draws on every run, but not
PyTorch's. As in PyTorch, a fresh `Generator()` starts from the seed 67280421310721 and
the default generator from a seed drawn at import.

Invariants: the same seed gives the same draws; two Generators are independent streams
(drawing from one never moves another, nor the default); `set_state(get_state())`
replays the draws that followed `get_state()` exactly; every draw of the shim takes its
numbers through `stream(generator, op)`.
"""

import builtins
import contextlib
import operator

import numpy as np

from . import devices

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "stream", "invalid_combination", "watching"]

_WATCHERS = []  # told of every Generator a draw is about to take numbers from (vmap's randomness)

_FRESH_SEED = 67280421310721  # PyTorch's default_rng_seed_val
_SEEDS = 2**64  # seeds are kept as PyTorch keeps them: modulo 2**64
_STATE_MAGIC = b"srcgPCG1"
_STATE_SIZE = len(_STATE_MAGIC) + 8 + 16 + 16 + 1 + 4  # magic, seed, state, increment, has_uint32, uinteger

# what PyTorch's CPU build raises for a generator on another device (its getNewGenerator)
_NO_GENERATOR = {
    "cuda": "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: "
            "a CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA "
            "functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA "
            "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
            "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library "
            "dependencies if you don't depend on any of their symbols.  You can check if this has occurred by using ldd "
            "on your binary to see if there is a dependency on *_cuda.so library.",
    "xpu": "Cannot get XPU generator without ATen_xpu library.",
    "xla": "Cannot get XLA generator without torch_xla library. This error has occurred because you are trying to use "
           "some XLA functionality, but the XLA library has not been loaded by the dynamic linker. You must load xla "
           "libraries by `import torch_xla`",
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "mtia": "Cannot execute getNewGenerator() without MTIA backend.",
    "hip": "Backend doesn`t support getNewGenerator()",
    "hpu": "Backend doesn`t support getNewGenerator()",
    "privateuseone": "Please register PrivateUse1HooksInterface by `RegisterPrivateUse1HooksInterface` first.",
}


def _seed_value(seed):
    """`seed` as the generator keeps it (modulo 2**64), refused as PyTorch's
    `Generator.manual_seed` refuses it: a long only, within [-2**63, 2**64)."""
    if isinstance(seed, builtins.bool) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = operator.index(seed)
    if not -(2**63) <= seed < _SEEDS:
        raise ValueError("Overflow when unpacking long long")
    return seed % _SEEDS


class Generator:
    """A stream of random numbers on the CPU (module doc): `Generator()`,
    `Generator(device='cpu')`; another device is refused as PyTorch's CPU build refuses it."""

    __slots__ = ("_numpy", "_seed", "_device")
    __module__ = "srcgrad"  # repr `<srcgrad.Generator object at 0x...>`, as PyTorch's `<torch._C.Generator ...>`

    def __init__(self, *args, **kwargs):
        place = devices._parsed(_device_argument(args, kwargs), "Generator")
        if place.type != "cpu":
            raise RuntimeError(_NO_GENERATOR.get(place.type, f"{place.type.upper()} device type not an accelerator."))
        self._device = devices.CPU
        self.manual_seed(_FRESH_SEED)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Restart the stream from `seed` (an int in [-2**63, 2**64)); returns the Generator."""
        self._seed = _seed_value(seed)
        self._numpy = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Restart the stream from a seed drawn from the operating system's entropy; returns it."""
        fresh = builtins.int(np.random.SeedSequence().entropy % _SEEDS)
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self):
        """The seed the stream last started from (`manual_seed`, `seed`, or a state set)."""
        return self._seed

    def get_state(self):
        """The stream's state as a uint8 Tensor: srcgrad's own serialization of the NumPy
        PCG64 state and the initial seed (53 bytes; PyTorch's mt19937 state has 5056)."""
        from .creation import tensor

        state = self._numpy.bit_generator.state
        raw = (_STATE_MAGIC + self._seed.to_bytes(8, "little") + state["state"]["state"].to_bytes(16, "little")
               + state["state"]["inc"].to_bytes(16, "little") + builtins.bytes([state["has_uint32"]])
               + state["uinteger"].to_bytes(4, "little"))
        return tensor(np.frombuffer(raw, dtype=np.uint8))

    def set_state(self, new_state):
        """Continue the stream from a state `get_state` gave (of any Generator); returns the
        Generator. A tensor that is not such a state is refused (PyTorch's errors, with
        srcgrad's state size)."""
        self._seed, self._numpy.bit_generator.state = _parsed_state(new_state)
        return self

    def __reduce__(self):
        return (_rebuilt, (self.get_state(),))


def _device_argument(args, kwargs):
    """The `device` of `Generator(*args, **kwargs)`, with PyTorch's argument errors."""
    if len(args) > 1:
        raise TypeError(f"Generator() takes from 0 to 1 positional arguments but {len(args)} were given")
    for name in kwargs:
        if name != "device" or args:
            raise TypeError(f"Generator() got an unexpected keyword argument '{name}'" if name != "device"
                            else "Generator() got multiple values for argument 'device'")
    device = args[0] if args else kwargs.get("device", "cpu")
    if not isinstance(device, (str, int, devices.device)) or isinstance(device, builtins.bool):
        where = " (position 1)" if args else ""
        raise TypeError(f"Generator(): argument 'device'{where} must be torch.device, not {type(device).__name__}")
    return device


def _rebuilt(state):
    return Generator().set_state(state)


def _parsed_state(new_state):
    """(seed, NumPy PCG64 state) from a tensor `get_state` gave."""
    from .tensor import Tensor

    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    if new_state._data.dtype != np.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    raw = np.ascontiguousarray(new_state._data).reshape(-1).tobytes()
    if len(raw) != _STATE_SIZE:
        raise RuntimeError(f"Expected a srcgrad generator state (PCG64) of size {_STATE_SIZE} but found the input "
                           f"RNG state size to be {len(raw)}")
    magic, rest = raw[:len(_STATE_MAGIC)], raw[len(_STATE_MAGIC):]
    increment = builtins.int.from_bytes(rest[24:40], "little")
    if magic != _STATE_MAGIC or increment % 2 == 0 or rest[40] > 1:
        raise RuntimeError("Invalid PCG64 state")
    state = {"bit_generator": "PCG64",
             "state": {"state": builtins.int.from_bytes(rest[8:24], "little"), "inc": increment},
             "has_uint32": rest[40], "uinteger": builtins.int.from_bytes(rest[41:45], "little")}
    return builtins.int.from_bytes(rest[:8], "little"), state


default_generator = Generator()
default_generator.seed()


def manual_seed(seed):
    """Restart the default generator from `seed` (an int, or what `int()` makes one of);
    returns `default_generator`."""
    return default_generator.manual_seed(builtins.int(seed))


def seed():
    """Restart the default generator from a fresh non-deterministic seed; returns it."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator last started from."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, a uint8 Tensor (`Generator.get_state`)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Continue the default generator from `new_state` (`Generator.set_state`)."""
    default_generator.set_state(new_state)


# PyTorch's overloads of the draws whose `generator=` refusal lists them all
_SIZE_FACTORY = "*, {}Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
_LIKE_FACTORY = "*, {}torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"


def _with_and_without(head, tail):
    return [head + tail.format("torch.Generator generator, "), head + tail.format("")]


_OVERLOADS = {
    "rand": _with_and_without("(tuple of ints size, ", _SIZE_FACTORY),
    "randn": _with_and_without("(tuple of ints size, ", _SIZE_FACTORY),
    "randint": (_with_and_without("(int high, tuple of ints size, ", _SIZE_FACTORY)
                + _with_and_without("(int low, int high, tuple of ints size, ", _SIZE_FACTORY)),
    "randperm": _with_and_without("(int n, ", _SIZE_FACTORY),
    "rand_like": _with_and_without("(Tensor input, ", _LIKE_FACTORY),
    "randn_like": _with_and_without("(Tensor input, ", _LIKE_FACTORY),
    "randint_like": (_with_and_without("(Tensor input, int low, int high, ", _LIKE_FACTORY)
                     + _with_and_without("(Tensor input, Tensor high, ", _LIKE_FACTORY)
                     + _with_and_without("(Tensor input, int high, ", _LIKE_FACTORY)),
    "normal": [
        "(Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
        "(Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)",
        "(float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
        "(float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
        "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)",
    ],
    "bernoulli": ["(Tensor input, *, torch.Generator generator = None, Tensor out = None)",
                  "(Tensor input, float p, *, torch.Generator generator = None)"],
    "Tensor.bernoulli": ["(*, torch.Generator generator = None)", "(float p, *, torch.Generator generator = None)"],
    "bernoulli_": ["(Tensor p, *, torch.Generator generator = None)",
                   "(float p = 0.5, *, torch.Generator generator = None)"],
    "random_": ["(*, torch.Generator generator = None)", "(int from, int to, *, torch.Generator generator = None)",
                "(int to, *, torch.Generator generator = None)"],
}


def _type_name(value):
    from .tensor import Tensor
    from .dtypes import dtype

    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, dtype):
        return "torch.dtype"
    return type(value).__name__


def stream(generator=None, op=None, positional=()):
    """The NumPy generator that `op`'s draw takes its numbers from: `generator`'s, or the
    default generator's where it is None. Anything else is refused with PyTorch's
    TypeError for `op`; for an op with several overloads that error lists them, and
    `positional` (the arguments given before `generator=`) is what it says was got."""
    if generator is None or isinstance(generator, Generator):
        generator = default_generator if generator is None else generator
        for watcher in _WATCHERS:
            watcher(generator)
        return generator._numpy
    given = _type_name(generator)
    if op not in _OVERLOADS or (op == "random_" and len(positional) == 2):
        raise TypeError(f"{op}(): argument 'generator' must be torch.Generator, not {given}")
    raise invalid_combination(op, [_type_name(v) for v in positional], [f"generator={given}"])


@contextlib.contextmanager
def watching(watcher):
    """A block in which `watcher(generator)` runs before every draw, told of the Generator
    the draw takes its numbers from (it may raise to refuse the draw)."""
    _WATCHERS.append(watcher)
    try:
        yield
    finally:
        _WATCHERS.remove(watcher)


def invalid_combination(op, positional, keywords=()):
    """PyTorch's TypeError for a call of `op` that matches none of its overloads (listed
    in _OVERLOADS), given the type names of the `positional` arguments and the
    `name=type` of the `keywords`."""
    got = list(positional) + list(keywords)
    described = ", ".join(got) if positional else "".join(f"{k}, " for k in keywords)
    lines = [f" * {line}\n" for line in _OVERLOADS[op]]
    if op == "random_" and len(positional) == 1:  # PyTorch's parser blames the keyword on its first overload
        lines[0] += "      didn't match because some of the keywords were incorrect: generator\n"
    name = op.split(".")[-1]
    return TypeError(f"{name}() received an invalid combination of arguments - got ({described}), but expected one of:\n"
                     + "".join(lines))
