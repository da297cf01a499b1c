"""Random draws and generators against PyTorch: for each case, the same outcome, shape,
dtype and error (type and text). The numbers are srcgrad's own stream and not compared."""

import warnings

import pytest

import srcgrad

torch = pytest.importorskip("torch")


def _gen(m, seed=0):
    return m.Generator().manual_seed(seed)


def _data(m):
    return m.utils.data


CASES = {
    # factories with generator=
    "rand": lambda m: m.rand(2, 3, generator=_gen(m)),
    "rand f64": lambda m: m.rand((4,), generator=_gen(m), dtype=m.float64),
    "randn": lambda m: m.randn(5, generator=_gen(m)),
    "randn f16": lambda m: m.randn(2, 2, generator=_gen(m), dtype=m.float16),
    "randint high size": lambda m: m.randint(5, (3,), generator=_gen(m)),
    "randint low high size": lambda m: m.randint(2, 9, (2, 2), generator=_gen(m)),
    "randint dtype": lambda m: m.randint(0, 3, (4,), generator=_gen(m), dtype=m.int32),
    "randperm": lambda m: m.randperm(6, generator=_gen(m)),
    "rand_like": lambda m: m.rand_like(m.ones(2, 3, dtype=m.float64), generator=_gen(m)),
    "randn_like": lambda m: m.randn_like(m.ones(3), generator=_gen(m)),
    "normal numbers": lambda m: m.normal(0.0, 2.0, (3,), generator=_gen(m)),
    "normal tensor mean": lambda m: m.normal(m.zeros(2, 2), 1.0, generator=_gen(m)),
    "normal tensor std": lambda m: m.normal(1.0, m.ones(3), generator=_gen(m)),
    "normal tensors": lambda m: m.normal(m.zeros(2, 1), m.ones(1, 3), generator=_gen(m)),
    "bernoulli": lambda m: m.bernoulli(m.full((3,), 0.5), generator=_gen(m)),
    "bernoulli p": lambda m: m.bernoulli(m.zeros(2, dtype=m.float64), 0.3, generator=_gen(m)),
    "multinomial": lambda m: m.multinomial(m.ones(2, 4), 3, generator=_gen(m)),
    "multinomial replacement": lambda m: m.multinomial(m.ones(4), 6, True, generator=_gen(m)),
    "poisson": lambda m: m.poisson(m.ones(3), generator=_gen(m)),
    "Tensor.bernoulli": lambda m: m.full((2,), 0.5).bernoulli(generator=_gen(m)),
    "Tensor.multinomial": lambda m: m.ones(3).multinomial(2, generator=_gen(m)),
    "randint_like": lambda m: m.randint_like(m.ones(3), 5, generator=_gen(m)),
    "randint_like low high": lambda m: m.randint_like(m.ones(3, dtype=m.int32), 2, 5, generator=_gen(m)),
    "randint_like 5,2": lambda m: m.randint_like(m.ones(3), 5, 2),
    "randint_like 0": lambda m: m.randint_like(m.ones(3), 0),
    "randint_like bool": lambda m: m.randint_like(m.ones(3, dtype=m.bool), 2),
    "randint_like bool 5": lambda m: m.randint_like(m.ones(3, dtype=m.bool), 5),
    "randint_like complex": lambda m: m.randint_like(m.ones(3, dtype=m.complex64), 5),
    "randint_like dtype": lambda m: m.randint_like(m.ones(3), 5, dtype=m.int64),
    "randint_like requires_grad": lambda m: m.randint_like(m.ones(3), 5, requires_grad=True),
    "randint_like high kw": lambda m: m.randint_like(m.ones(3), high=5),
    "randint_like low kw": lambda m: m.randint_like(m.ones(3), low=1, high=5),
    "randint_like float high": lambda m: m.randint_like(m.ones(3), 5.5),
    "randint_like tensor high": lambda m: m.randint_like(m.ones(3), m.tensor(5)),
    "randint_like none": lambda m: m.randint_like(m.ones(3)),
    "randint_like int8": lambda m: m.randint_like(m.ones(3, dtype=m.int8), 1000),
    "randint_like negative": lambda m: m.randint_like(m.ones(3), -5, -2),
    "randint_like cuda": lambda m: m.randint_like(m.ones(3), 5, device="cuda"),
    "randint_like bad": lambda m: m.randint_like(m.ones(3), 5, generator=3),
    "randint_like bad 2": lambda m: m.randint_like(m.ones(3), 1, 5, generator=3),
    "cuda.manual_seed": lambda m: m.cuda.manual_seed(1),
    "cuda.manual_seed str": lambda m: m.cuda.manual_seed("a"),
    "cuda.manual_seed_all": lambda m: m.cuda.manual_seed_all(1.5),
    "cuda.seed": lambda m: m.cuda.seed(),
    "cuda.seed_all": lambda m: m.cuda.seed_all(),
    "cuda.initial_seed": lambda m: m.cuda.initial_seed(),
    "cuda.get_rng_state": lambda m: m.cuda.get_rng_state(),
    "cuda.set_rng_state": lambda m: m.cuda.set_rng_state(m.zeros(3, dtype=m.uint8)),
    "cuda.get_rng_state_all": lambda m: m.cuda.get_rng_state_all(),
    "cuda.set_rng_state_all": lambda m: m.cuda.set_rng_state_all([]),
    # generator= given what is not a Generator
    "randn bad": lambda m: m.randn(2, generator=3),
    "randn bad 2": lambda m: m.randn(2, 3, generator="a"),
    "rand bad": lambda m: m.rand(2, generator=3),
    "randint bad": lambda m: m.randint(3, (2,), generator=3),
    "randint bad 3": lambda m: m.randint(1, 3, (2,), generator=1.5),
    "randperm bad": lambda m: m.randperm(3, generator=3),
    "rand_like bad": lambda m: m.rand_like(m.ones(2), generator=3),
    "randn_like bad": lambda m: m.randn_like(m.ones(2), generator=3),
    "normal bad numbers": lambda m: m.normal(0.0, 1.0, (2,), generator=3),
    "normal bad tensor": lambda m: m.normal(m.ones(2), 1.0, generator=3),
    "normal bad tensors": lambda m: m.normal(m.ones(2), m.ones(2), generator="a"),
    "bernoulli bad": lambda m: m.bernoulli(m.ones(2) / 2, generator=3),
    "bernoulli bad p": lambda m: m.bernoulli(m.ones(2) / 2, 0.3, generator=3),
    "multinomial bad": lambda m: m.multinomial(m.ones(2), 1, generator=3),
    "poisson bad": lambda m: m.poisson(m.ones(2), generator=3),
    "Tensor.bernoulli bad": lambda m: m.ones(2).bernoulli(generator=3),
    "Tensor.multinomial bad": lambda m: m.ones(2).multinomial(1, generator=3),
    "uniform_ bad": lambda m: m.ones(2).uniform_(generator=3),
    "normal_ bad": lambda m: m.ones(2).normal_(generator="x"),
    "bernoulli_ bad": lambda m: m.ones(2).bernoulli_(generator=3),
    "bernoulli_ bad p": lambda m: m.ones(2).bernoulli_(0.3, generator=3),
    "exponential_ bad": lambda m: m.ones(2).exponential_(generator=3),
    "random_ bad": lambda m: m.ones(2).random_(generator=3),
    "random_ bad to": lambda m: m.ones(2).random_(5, generator=3),
    "random_ bad from to": lambda m: m.ones(2).random_(1, 5, generator=3),
    "cauchy_ bad": lambda m: m.ones(2).cauchy_(generator=3),
    "log_normal_ bad": lambda m: m.ones(2).log_normal_(generator=3),
    "geometric_ bad": lambda m: m.ones(2).geometric_(0.5, generator=3),
    "init.uniform_ bad": lambda m: m.nn.init.uniform_(m.ones(2), generator=3),
    "init.normal_ bad": lambda m: m.nn.init.normal_(m.ones(2), generator=3),
    "init.trunc_normal_ bad": lambda m: m.nn.init.trunc_normal_(m.ones(2), generator=3),
    "init.xavier_uniform_ bad": lambda m: m.nn.init.xavier_uniform_(m.ones(2, 2), generator=3),
    "init.kaiming_normal_ bad": lambda m: m.nn.init.kaiming_normal_(m.ones(2, 2), generator=3),
    "init.orthogonal_ bad": lambda m: m.nn.init.orthogonal_(m.ones(2, 2), generator=3),
    "random_split bad": lambda m: _data(m).random_split(list(range(4)), [2, 2], generator=3),
    "SubsetRandomSampler bad": lambda m: list(_data(m).SubsetRandomSampler([1, 2], generator=3)),
    "WeightedRandomSampler bad": lambda m: list(_data(m).WeightedRandomSampler([1.0, 2.0], 3, generator=3)),
    # nn.init with a generator
    "init.uniform_": lambda m: m.nn.init.uniform_(m.empty(2, 3), -1.0, 1.0, generator=_gen(m)),
    "init.normal_": lambda m: m.nn.init.normal_(m.empty(4), generator=_gen(m)),
    "init.trunc_normal_": lambda m: m.nn.init.trunc_normal_(m.empty(3, 2), generator=_gen(m)),
    "init.xavier_uniform_": lambda m: m.nn.init.xavier_uniform_(m.empty(3, 2), generator=_gen(m)),
    "init.xavier_normal_": lambda m: m.nn.init.xavier_normal_(m.empty(3, 2), generator=_gen(m)),
    "init.kaiming_uniform_": lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 2), generator=_gen(m)),
    "init.kaiming_normal_": lambda m: m.nn.init.kaiming_normal_(m.empty(3, 2), generator=_gen(m)),
    "init.orthogonal_": lambda m: m.nn.init.orthogonal_(m.empty(3, 5), generator=_gen(m)),
    # Generator itself
    "Generator cuda": lambda m: m.Generator("cuda"),
    "Generator device=cuda": lambda m: m.Generator(device="cuda"),
    "Generator meta": lambda m: m.Generator("meta"),
    "Generator xpu": lambda m: m.Generator("xpu"),
    "Generator mps": lambda m: m.Generator("mps"),
    "Generator hip": lambda m: m.Generator("hip"),
    "Generator lazy": lambda m: m.Generator("lazy"),
    "Generator 0": lambda m: m.Generator(0),
    "Generator float": lambda m: m.Generator(3.0),
    "Generator foo": lambda m: m.Generator("foo"),
    "Generator two args": lambda m: m.Generator("cpu", "x"),
    "Generator cpu:0": lambda m: m.Generator("cpu:0").device,
    "Generator device": lambda m: m.Generator(m.device("cpu")).device,
    "fresh initial_seed": lambda m: m.Generator().initial_seed(),
    "manual_seed returns self": lambda m: (lambda g: g.manual_seed(3) is g)(m.Generator()),
    "manual_seed -1": lambda m: m.Generator().manual_seed(-1).initial_seed(),
    "manual_seed -2**63": lambda m: m.Generator().manual_seed(-(2**63)).initial_seed(),
    "manual_seed 2**64-1": lambda m: m.Generator().manual_seed(2**64 - 1).initial_seed(),
    "manual_seed 2**64": lambda m: m.Generator().manual_seed(2**64),
    "manual_seed -2**63-1": lambda m: m.Generator().manual_seed(-(2**63) - 1),
    "manual_seed float": lambda m: m.Generator().manual_seed(1.5),
    "manual_seed str": lambda m: m.Generator().manual_seed("a"),
    "manual_seed bool": lambda m: m.Generator().manual_seed(True),
    "seed is initial_seed": lambda m: (lambda g: g.seed() == g.initial_seed())(m.Generator()),
    "state dtype": lambda m: m.Generator().get_state().dtype,
    "state requires_grad": lambda m: m.Generator().get_state().requires_grad,
    "state dim": lambda m: m.Generator().get_state().dim(),
    "set_state returns self": lambda m: (lambda g: g.set_state(g.get_state()) is g)(m.Generator()),
    "set_state keeps seed": lambda m: (lambda g: g.manual_seed(5).set_state(m.Generator().manual_seed(9).get_state())
                                       .initial_seed())(m.Generator()),
    "set_state float": lambda m: m.Generator().set_state(m.zeros(3)),
    "set_state list": lambda m: m.Generator().set_state([1, 2]),
    "set_rng_state float": lambda m: m.set_rng_state(m.zeros(3)),
    "set_rng_state list": lambda m: m.set_rng_state([1]),
    "torch.manual_seed returns default": lambda m: m.manual_seed(3) is m.default_generator,
    "random.manual_seed returns default": lambda m: m.random.manual_seed(3) is m.default_generator,
    "torch.manual_seed float": lambda m: m.manual_seed(1.5).initial_seed(),
    "torch.manual_seed -1": lambda m: m.manual_seed(-1).initial_seed(),
    "torch.manual_seed str": lambda m: m.manual_seed("a"),
    "torch.seed": lambda m: m.seed() == m.initial_seed(),
    "random.seed": lambda m: m.random.seed() == m.random.initial_seed(),
    "rng_state dtype": lambda m: m.get_rng_state().dtype,
    "random.get_rng_state dtype": lambda m: m.random.get_rng_state().dtype,
    "default device": lambda m: m.default_generator.device,
    "fork_rng devices=[0]": lambda m: m.random.fork_rng(devices=[0]).__enter__(),
    "fork_rng devices=[]": lambda m: m.random.fork_rng(devices=[]).__enter__(),
    "fork_rng disabled": lambda m: m.random.fork_rng(enabled=False).__enter__(),
    # in-place draws: dtypes, parameters and their errors
    "geometric_ no p": lambda m: m.zeros(2).geometric_(),
    "geometric_ kw": lambda m: m.zeros(2).geometric_(p=0.3),
    "cauchy_ kw": lambda m: m.zeros(2).cauchy_(median=1.0, sigma=2.0),
    "log_normal_ kw": lambda m: m.zeros(2).log_normal_(mean=1.0, std=2.0),
    "leaf cauchy_": lambda m: m.zeros(2, requires_grad=True).cauchy_(),
    "leaf geometric_": lambda m: m.zeros(2, requires_grad=True).geometric_(0.5),
    "random_ 0": lambda m: m.zeros(2).random_(0),
    "random_ from>=to": lambda m: m.zeros(2).random_(5, 2),
    "random_ int8 bounds": lambda m: m.zeros(2, dtype=m.int8).random_(0, 1000),
    "random_ uint8 from": lambda m: m.zeros(2, dtype=m.uint8).random_(-1, 5),
    "random_ rng dtype": lambda m: m.zeros(2, dtype=m.int16).random_(generator=_gen(m)),
    "bernoulli_ p of another shape": lambda m: m.zeros(2).bernoulli_(m.full((3,), 0.3)),
    "bernoulli_ p of more dims": lambda m: m.zeros(2).bernoulli_(m.full((2, 3), 0.3)),
    "bernoulli_ p broadcast": lambda m: m.zeros(2, 3).bernoulli_(m.full((3,), 0.3)),
    "bernoulli_ p mismatch": lambda m: m.zeros(2, 3).bernoulli_(m.ones(2)),
    "random_ float32 far": lambda m: m.zeros(2).random_(-(2**60), 2**60),
    "random_ float16 far": lambda m: m.zeros(2, dtype=m.float16).random_(0, 2**20),
    "random_ float16 from": lambda m: m.zeros(2, dtype=m.float16).random_(-(2**20), 5),
    "init.sparse_": lambda m: (m.nn.init.sparse_(m.zeros(4, 3), 0.5, generator=_gen(m)) == 0).sum(0),
    "init.sparse_ 1-d": lambda m: m.nn.init.sparse_(m.zeros(3), 0.5),
    "init.sparse_ all": lambda m: (m.nn.init.sparse_(m.zeros(4, 3), 1.5) == 0).sum(0).tolist(),
    "init.sparse_ bad": lambda m: m.nn.init.sparse_(m.zeros(4, 3), 0.5, generator=3),
    "vmap error Generator": lambda m: m.func.vmap(lambda x: x + m.rand(3, generator=_gen(m)))(m.zeros(2, 3)),
    "vmap same Generator": lambda m: (lambda g: (lambda r: m.equal(r[0], r[1]))(m.func.vmap(
        lambda x: x + m.rand(3, generator=g), randomness="same")(m.zeros(2, 3))))(_gen(m)),
    "vmap different Generator": lambda m: (lambda g: (lambda r: m.equal(r[0], r[1]))(m.func.vmap(
        lambda x: x + m.rand(3, generator=g), randomness="different")(m.zeros(2, 3))))(_gen(m)),
    "multinomial n>cats": lambda m: m.multinomial(m.ones(2), 3, generator=_gen(m)),
    "WeightedRandomSampler": lambda m: list(_data(m).WeightedRandomSampler([0.0, 1.0], 5, generator=_gen(m))),
}

_INPLACE = [
    ("uniform_", ()), ("uniform_", (2.0, 1.0)), ("uniform_", (1.0, 1.0)), ("normal_", ()), ("normal_", (0.0, -1.0)),
    ("normal_", (0.0, 0.0)), ("cauchy_", ()), ("cauchy_", (0.0, -1.0)), ("cauchy_", (0.0, 0.0)), ("log_normal_", ()),
    ("log_normal_", (1.0, -1.0)), ("log_normal_", (1.0, 0.0)), ("geometric_", (0.5,)), ("geometric_", (0.0,)),
    ("geometric_", (1.0,)), ("geometric_", (1.5,)), ("geometric_", (-0.1,)), ("exponential_", ()),
    ("exponential_", (0.0,)), ("exponential_", (-1.0,)), ("random_", ()), ("random_", (5,)), ("random_", (2, 5)),
    ("bernoulli_", ()), ("bernoulli_", (1.5,)), ("bernoulli_", (0.25,)),
]
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64"]
for _name, _args in _INPLACE:
    for _dt in _DTYPES:
        CASES[f"{_name}{_args} {_dt}"] = (lambda name, args, dt: lambda m: getattr(
            m.zeros(2, 3, dtype=getattr(m, dt)), name)(*args, generator=_gen(m)))(_name, _args, _dt)

_RECORDED = {
    "uniform_": lambda y, m: y.uniform_(), "normal_": lambda y, m: y.normal_(), "cauchy_": lambda y, m: y.cauchy_(),
    "log_normal_": lambda y, m: y.log_normal_(), "geometric_": lambda y, m: y.geometric_(0.5),
    "exponential_": lambda y, m: y.exponential_(), "random_()": lambda y, m: y.random_(),
    "random_(5)": lambda y, m: y.random_(5), "random_(1, 5)": lambda y, m: y.random_(1, 5),
    "bernoulli_(0.3)": lambda y, m: y.bernoulli_(0.3), "bernoulli_(t)": lambda y, m: y.bernoulli_(m.full((3,), 0.3)),
    "bernoulli_(t grad)": lambda y, m: y.bernoulli_(m.full((3,), 0.3, requires_grad=True)),
}


def _recorded_draw(m, draw, view):
    """The node an in-place draw into a tensor of a graph records, and the gradient of the
    values it replaced."""
    x = m.arange(3.0, requires_grad=True)
    y = x * 2
    _RECORDED[draw](y[1:] if view else y, m)
    names = (y.grad_fn.name().split("::")[-1], y.requires_grad)
    y.sum().backward()
    return names + (x.grad.tolist(),)


for _draw in _RECORDED:
    CASES[f"recorded {_draw}"] = (lambda draw: lambda m: _recorded_draw(m, draw, False))(_draw)
    CASES[f"recorded {_draw} into a view"] = (lambda draw: lambda m: _recorded_draw(m, draw, True))(_draw)

_SAMPLERS = {
    "RandomSampler": dict(), "RandomSampler num_samples": dict(num_samples=4),
    "RandomSampler more": dict(num_samples=25), "RandomSampler replacement": dict(replacement=True, num_samples=400),
    "RandomSampler num_samples=0": dict(num_samples=0), "RandomSampler num_samples=-1": dict(num_samples=-1),
    "RandomSampler num_samples=2.5": dict(num_samples=2.5), "RandomSampler replacement=1": dict(replacement=1),
    "RandomSampler replacement=None": dict(replacement=None),
}
for _label, _kw in _SAMPLERS.items():
    CASES[_label] = (lambda kw: lambda m: (lambda s: _summary(len(s), list(s)))(
        _data(m).RandomSampler(list(range(10)), generator=_gen(m), **kw)))(_kw)
CASES.update({
    "RandomSampler empty": lambda m: _data(m).RandomSampler([]),
    "RandomSampler attributes": lambda m: (lambda s: (s.num_samples, s.replacement, s.generator))(
        _data(m).RandomSampler(list(range(10)))),
    "RandomSampler item type": lambda m: type(next(iter(_data(m).RandomSampler(list(range(5)))))).__name__,
    "SubsetRandomSampler": lambda m: (lambda s: (len(s), sorted(s), s.indices))(
        _data(m).SubsetRandomSampler([3, 4, 5], generator=_gen(m))),
    "WeightedRandomSampler len": lambda m: len(_data(m).WeightedRandomSampler([0.1, 0.9], 5)),
    "WeightedRandomSampler weights": lambda m: _data(m).WeightedRandomSampler([0.0, 1.0], 5).weights.dtype,
    "WeightedRandomSampler 0": lambda m: _data(m).WeightedRandomSampler([1.0, 1.0], 0),
    "WeightedRandomSampler -1": lambda m: _data(m).WeightedRandomSampler([1.0, 1.0], -1),
    "WeightedRandomSampler 2.0": lambda m: _data(m).WeightedRandomSampler([1.0, 1.0], 2.0),
    "WeightedRandomSampler True": lambda m: _data(m).WeightedRandomSampler([1.0, 1.0], True),
    "WeightedRandomSampler replacement=1": lambda m: _data(m).WeightedRandomSampler([1.0, 1.0], 2, replacement=1),
    "WeightedRandomSampler 2-d": lambda m: _data(m).WeightedRandomSampler([[1.0, 1.0]], 2),
    "WeightedRandomSampler too many": lambda m: list(_data(m).WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
    "WeightedRandomSampler no replacement": lambda m: sorted(
        _data(m).WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)),
    "WeightedRandomSampler negative": lambda m: list(_data(m).WeightedRandomSampler([1.0, -1.0], 1)),
    "WeightedRandomSampler zeros": lambda m: list(_data(m).WeightedRandomSampler([0.0, 0.0], 1)),
    "WeightedRandomSampler int tensor": lambda m: _data(m).WeightedRandomSampler(m.tensor([1, 2]), 1).weights.dtype,
    "BatchSampler": lambda m: list(_data(m).BatchSampler(range(10), 3, False)),
    "BatchSampler drop_last": lambda m: list(_data(m).BatchSampler(range(10), 3, True)),
    "BatchSampler len": lambda m: (len(_data(m).BatchSampler(range(10), 3, False)),
                                   len(_data(m).BatchSampler(range(10), 3, True))),
    "BatchSampler 0": lambda m: _data(m).BatchSampler(range(10), 0, True),
    "BatchSampler 2.0": lambda m: _data(m).BatchSampler(range(10), 2.0, True),
    "BatchSampler True": lambda m: _data(m).BatchSampler(range(10), True, True),
    "BatchSampler drop_last=1": lambda m: _data(m).BatchSampler(range(10), 2, 1),
    "SequentialSampler": lambda m: (list(_data(m).SequentialSampler(list(range(4)))),
                                    len(_data(m).SequentialSampler(list(range(4))))),
    "Sampler iter": lambda m: list(_data(m).Sampler()),
    "Sampler len": lambda m: len(_data(m).Sampler()),
    "DataLoader shuffle sampler": lambda m: type(_data(m).DataLoader(list(range(4)), shuffle=True).sampler).__name__,
    "DataLoader sampler": lambda m: type(_data(m).DataLoader(list(range(4))).sampler).__name__,
    "DataLoader batch_sampler": lambda m: type(_data(m).DataLoader(list(range(4)), batch_size=3).batch_sampler).__name__,
    "DataLoader shuffled batches": lambda m: (lambda batches: ([b.shape for b in batches],
                                                               sorted(i for b in batches for i in b.tolist())))(
        list(_data(m).DataLoader(list(range(10)), batch_size=3, shuffle=True, generator=_gen(m)))),
    "DataLoader subset sampler": lambda m: [b.shape for b in _data(m).DataLoader(
        list(range(10)), batch_size=3, sampler=_data(m).SubsetRandomSampler([1, 2]))],
    "DataLoader len": lambda m: len(_data(m).DataLoader(list(range(10)), batch_size=3, shuffle=True, drop_last=True)),
    "random_split": lambda m: [sorted(s.indices) != [] and len(s) for s in _data(m).random_split(
        list(range(10)), [3, 7], generator=_gen(m))],
    "random_split fractions": lambda m: [len(s) for s in _data(m).random_split(list(range(10)), [0.25, 0.75],
                                                                             generator=_gen(m))],
})


def _summary(length, indices):
    """What a sampler's draw must show whatever the stream: its length, its range, and
    how evenly it covers the indices (without replacement: each count within one)."""
    counts = [indices.count(i) for i in range(10)]
    return length, len(indices), min(indices) >= 0, max(indices) < 10, max(counts) - min(counts) <= 1


def _outcome(m, case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = _result(m, case)
    return outcome + tuple(str(w.message).split(" (Triggered internally")[0] for w in caught)


def _result(m, case):
    try:
        value = CASES[case](m)
    except Exception as e:  # noqa: BLE001 (the error is the outcome compared)
        return ("error", type(e).__name__, str(e).replace("srcgrad.", "torch."))  # type names say srcgrad.
    if isinstance(value, m.Tensor):
        return ("tensor", tuple(value.shape), str(value.dtype).split(".")[-1], value.requires_grad)
    if isinstance(value, m.Generator):
        return ("generator",)
    if isinstance(value, (m.device, m.dtype)):
        return ("value", str(value).split(".")[-1])
    return ("value", value if not isinstance(value, int) or isinstance(value, bool) or value < 2**62 else "big")


@pytest.mark.parametrize("case", list(CASES))
def test_draw_matches_pytorch(case):
    assert _outcome(srcgrad, case) == _outcome(torch, case)
