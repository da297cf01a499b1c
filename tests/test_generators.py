"""Generators and the default generator: reproducible, independent streams whose state
can be saved and replayed, honoured by every draw that takes `generator=`."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.utils import checkpoint as checkpoint_module
from srcgrad.utils.data import (BatchSampler, DataLoader, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                                random_split)

DRAWS = {
    "rand": lambda g: torch.rand(2, 3, generator=g),
    "randn": lambda g: torch.randn(4, generator=g, dtype=torch.float64),
    "randint": lambda g: torch.randint(3, 9, (5,), generator=g),
    "randperm": lambda g: torch.randperm(7, generator=g),
    "randint_like": lambda g: torch.randint_like(torch.ones(6, dtype=torch.int32), 2, 9, generator=g),
    "rand_like": lambda g: torch.rand_like(torch.ones(3), generator=g),
    "randn_like": lambda g: torch.randn_like(torch.ones(3), generator=g),
    "normal": lambda g: torch.normal(torch.zeros(3), torch.ones(3), generator=g),
    "bernoulli": lambda g: torch.bernoulli(torch.full((6,), 0.5), generator=g),
    "multinomial": lambda g: torch.multinomial(torch.ones(5), 3, generator=g),
    "poisson": lambda g: torch.poisson(torch.full((4,), 3.0), generator=g),
    "uniform_": lambda g: torch.empty(4).uniform_(-1.0, 1.0, generator=g),
    "normal_": lambda g: torch.empty(4).normal_(generator=g),
    "bernoulli_": lambda g: torch.empty(6).bernoulli_(generator=g),
    "exponential_": lambda g: torch.empty(4).exponential_(generator=g),
    "random_": lambda g: torch.empty(4, dtype=torch.int64).random_(100, generator=g),
    "cauchy_": lambda g: torch.empty(4).cauchy_(generator=g),
    "log_normal_": lambda g: torch.empty(4).log_normal_(generator=g),
    "geometric_": lambda g: torch.empty(4).geometric_(0.3, generator=g),
    "init.kaiming_uniform_": lambda g: torch.nn.init.kaiming_uniform_(torch.empty(3, 4), generator=g),
    "init.trunc_normal_": lambda g: torch.nn.init.trunc_normal_(torch.empty(3, 4), generator=g),
    "init.orthogonal_": lambda g: torch.nn.init.orthogonal_(torch.empty(3, 4), generator=g),
    "RandomSampler": lambda g: torch.tensor(list(RandomSampler(list(range(9)), generator=g))),
    "SubsetRandomSampler": lambda g: torch.tensor(list(SubsetRandomSampler([4, 5, 6, 7], generator=g))),
    "WeightedRandomSampler": lambda g: torch.tensor(list(WeightedRandomSampler([1.0, 2.0, 3.0], 8, generator=g))),
    "random_split": lambda g: torch.tensor(random_split(list(range(8)), [3, 5], generator=g)[0].indices),
    "DataLoader": lambda g: torch.cat(list(DataLoader(list(range(8)), batch_size=3, shuffle=True, generator=g))),
}


@pytest.mark.parametrize("draw", list(DRAWS))
def test_a_seed_replays_its_draws_and_leaves_the_default_generator_alone(draw):
    torch.manual_seed(11)
    before = torch.get_rng_state()
    first = DRAWS[draw](torch.Generator().manual_seed(5))
    assert torch.equal(torch.get_rng_state(), before)  # the default generator did not move
    again = DRAWS[draw](torch.Generator().manual_seed(5))
    assert torch.equal(first, again)


@pytest.mark.parametrize("draw", ["rand", "randn", "randperm", "normal_", "geometric_", "init.orthogonal_"])
def test_different_seeds_give_different_draws(draw):
    assert not torch.equal(DRAWS[draw](torch.Generator().manual_seed(1)), DRAWS[draw](torch.Generator().manual_seed(2)))


@pytest.mark.parametrize("draw", list(DRAWS))
def test_the_default_generator_replays_after_manual_seed(draw):
    torch.manual_seed(3)
    first = DRAWS[draw](None)
    torch.manual_seed(3)
    assert torch.equal(first, DRAWS[draw](None))


def test_two_generators_are_independent_streams():
    a, b = torch.Generator().manual_seed(0), torch.Generator().manual_seed(0)
    a_first = torch.rand(3, generator=a)
    torch.rand(100, generator=b)  # b moves on; a does not
    a_second = torch.rand(3, generator=a)
    replay = torch.Generator().manual_seed(0)
    assert torch.equal(torch.rand(3, generator=replay), a_first)
    assert torch.equal(torch.rand(3, generator=replay), a_second)


def test_the_stream_is_numpys_pcg64_of_the_seed():
    values = torch.rand(3, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    np.testing.assert_array_equal(values.numpy(), np.random.default_rng(7).random(3))
    torch.manual_seed(7)
    np.testing.assert_array_equal(torch.randperm(5).numpy(), np.random.default_rng(7).permutation(5))


def test_get_state_and_set_state_replay_draws_exactly():
    g = torch.Generator().manual_seed(21)
    torch.randn(5, generator=g)
    state = g.get_state()
    first = (torch.randn(4, generator=g), torch.randint(10, (6,), generator=g), torch.empty(3).cauchy_(generator=g))
    torch.rand(50, generator=g)
    assert g.set_state(state) is g
    second = (torch.randn(4, generator=g), torch.randint(10, (6,), generator=g), torch.empty(3).cauchy_(generator=g))
    assert all(torch.equal(x, y) for x, y in zip(first, second))
    other = torch.Generator().set_state(state)  # a state moves between generators, seed included
    assert other.initial_seed() == 21
    assert torch.equal(torch.randn(4, generator=other), first[0])


def test_state_tensor():
    state = torch.Generator().manual_seed(1).get_state()
    assert (state.dtype, state.shape, state.requires_grad) == (torch.uint8, torch.Size([53]), False)
    assert bytes(state.tolist()[:8]) == b"srcgPCG1"
    assert int.from_bytes(bytes(state.tolist()[8:16]), "little") == 1


def test_rng_state_of_the_default_generator_replays():
    torch.manual_seed(4)
    state = torch.get_rng_state()
    first = torch.randn(6)
    torch.set_rng_state(state)
    assert torch.equal(torch.randn(6), first)
    assert torch.random.get_rng_state is torch.get_rng_state


def test_fork_rng_restores_the_default_generator():
    torch.manual_seed(8)
    expected = torch.rand(4)
    torch.manual_seed(8)
    with torch.random.fork_rng():
        torch.rand(100)
        torch.manual_seed(99)
    assert torch.equal(torch.rand(4), expected)
    torch.manual_seed(8)
    with pytest.raises(ValueError), torch.random.fork_rng(devices=[]):
        torch.rand(3)
        raise ValueError
    assert torch.equal(torch.rand(4), expected)
    torch.manual_seed(8)
    with torch.random.fork_rng(enabled=False):
        torch.rand(4)
    assert not torch.equal(torch.rand(4), expected)


def test_seeds():
    g = torch.Generator()
    assert g.initial_seed() == 67280421310721
    assert torch.equal(torch.rand(3, generator=g), torch.rand(3, generator=torch.Generator()))
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1
    assert torch.manual_seed(5) is torch.default_generator and torch.initial_seed() == 5
    assert torch.random.manual_seed(2.7).initial_seed() == 2
    fresh = torch.seed()
    assert fresh == torch.initial_seed() == torch.random.initial_seed() and 0 <= fresh < 2**64
    assert g.seed() == g.initial_seed()
    assert repr(g.device) == "device(type='cpu')" and torch.default_generator.device == torch.device("cpu")


def test_value_ranges():
    g = torch.Generator().manual_seed(0)
    assert set(torch.empty(2000, dtype=torch.bool).random_(generator=g).tolist()) == {False, True}
    assert set(torch.empty(3000).geometric_(0.9, generator=g).tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    assert torch.empty(1000).geometric_(0.5, generator=g).min().item() == 1.0
    assert torch.empty(1000).log_normal_(generator=g).min().item() > 0
    drawn = torch.randint_like(torch.ones(500, dtype=torch.int32), -2, 3, generator=g)
    assert set(drawn.tolist()) == {-2, -1, 0, 1, 2} and drawn.dtype == torch.int32
    drawn = torch.empty(4000, dtype=torch.int8).random_(generator=g)
    assert drawn.min().item() >= 0 and drawn.max().item() == 127
    drawn = torch.empty(4000, dtype=torch.float16).random_(generator=g)
    assert drawn.min().item() >= 0 and drawn.max().item() <= 2048
    uniform = torch.empty(1000, dtype=torch.complex64).uniform_(2.0, 3.0, generator=g)
    assert 2 <= uniform.real.min().item() and uniform.imag.max().item() < 3
    normal = torch.empty(20000, dtype=torch.complex128).normal_(generator=g)
    assert abs(normal.real.std().item() - 2**-0.5) < 0.02
    cauchy = torch.empty(20001).cauchy_(3.0, 2.0, generator=g)
    assert abs(cauchy.median().item() - 3.0) < 0.1


def test_samplers():
    g = torch.Generator().manual_seed(0)
    drawn = list(RandomSampler(list(range(10)), num_samples=25, generator=g))
    assert len(drawn) == 25 and all(drawn.count(i) in (2, 3) for i in range(10))
    assert sorted(drawn[:10]) == list(range(10)) and sorted(drawn[10:20]) == list(range(10))
    assert all(type(i) is int for i in drawn)
    assert sorted(SubsetRandomSampler([3, 9, 4], generator=g)) == [3, 4, 9]
    assert list(WeightedRandomSampler([0.0, 1.0, 0.0], 4, generator=g)) == [1, 1, 1, 1]
    assert sorted(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=g)) == [0, 1, 2]
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, True)) == 2
    loader = DataLoader(list(range(10)), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(1))
    passes = [torch.cat(list(loader)).tolist() for _ in range(2)]
    assert sorted(passes[0]) == list(range(10)) and passes[0] != passes[1]  # shuffled anew at each pass
    assert [len(b) for b in loader] == [4, 4, 2] and len(loader) == 3


@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.Generator("cuda"), RuntimeError, "Cannot get CUDA generator without ATen_cuda library."),
    (lambda: torch.Generator("meta"), RuntimeError, "META device type not an accelerator."),
    (lambda: torch.Generator(0), RuntimeError, "Cannot access accelerator device when none is available."),
    (lambda: torch.Generator(3.0), TypeError, "Generator(): argument 'device' (position 1) must be torch.device, not float"),
    (lambda: torch.Generator(device=3.0), TypeError, "Generator(): argument 'device' must be torch.device, not float"),
    (lambda: torch.Generator().manual_seed(1.5), RuntimeError, "manual_seed expected a long, but got float"),
    (lambda: torch.Generator().manual_seed(True), RuntimeError, "manual_seed expected a long, but got bool"),
    (lambda: torch.Generator().manual_seed(2**64), ValueError, "Overflow when unpacking long long"),
    (lambda: torch.Generator().set_state([1]), TypeError, "expected a torch.ByteTensor, but got list"),
    (lambda: torch.Generator().set_state(torch.zeros(53)), TypeError, "RNG state must be a torch.ByteTensor"),
    (lambda: torch.set_rng_state(torch.zeros(3, dtype=torch.uint8)), RuntimeError,
     "Expected a srcgrad generator state (PCG64) of size 53 but found the input RNG state size to be 3"),
    (lambda: torch.set_rng_state(torch.zeros(53, dtype=torch.uint8)), RuntimeError, "Invalid PCG64 state"),
    (lambda: torch.random.fork_rng(devices=[0]).__enter__(), AssertionError, "Torch not compiled with CUDA enabled"),
    (lambda: torch.poisson(torch.ones(2), generator=3), TypeError,
     "poisson(): argument 'generator' must be torch.Generator, not int"),
    (lambda: torch.nn.init.xavier_normal_(torch.ones(2, 2), generator="g"), TypeError,
     "normal_(): argument 'generator' must be torch.Generator, not str"),
    (lambda: torch.ones(2).random_(1, 5, generator=3), TypeError,
     "random_(): argument 'generator' must be torch.Generator, not int"),
    (lambda: torch.zeros(2).geometric_(1.0), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
    (lambda: torch.zeros(2, dtype=torch.int64).cauchy_(), RuntimeError, "Cauchy distribution is a continuous "
     "probability distribution. dtype must be a floating point but you specified long int"),
    (lambda: torch.zeros(2, dtype=torch.int32).log_normal_(), NotImplementedError,
     "\"log_normal_cpu\" not implemented for 'Int'"),
    (lambda: torch.zeros(2).uniform_(2.0, 1.0), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
    (lambda: torch.zeros(2, dtype=torch.int8).random_(0, 1000), RuntimeError, "to - 1 is out of bounds for signed char"),
    (lambda: RandomSampler([1], num_samples=0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda: RandomSampler([1], replacement=1), TypeError, "replacement should be a boolean value, but got replacement=1"),
    (lambda: WeightedRandomSampler([[1.0]], 2), ValueError,
     "weights should be a 1d sequence but given weights have shape (1, 1)"),
    (lambda: BatchSampler([1], 2, None), ValueError, "drop_last should be a boolean value, but got drop_last=None"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(message) and (message.endswith(".") or str(caught.value) == message)


def test_randn_refusal_lists_pytorchs_overloads():
    with pytest.raises(TypeError) as caught:
        torch.randn(2, 3, generator=3)
    assert str(caught.value) == (
        "randn() received an invalid combination of arguments - got (int, int, generator=int), but expected one of:\n"
        " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
        " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
        "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
    with pytest.raises(TypeError) as caught:
        torch.ones(2).bernoulli_(generator=3)
    assert str(caught.value).startswith("bernoulli_() received an invalid combination of arguments - got "
                                        "(generator=int, ), but expected one of:\n * (Tensor p, ")


def test_checkpoint_keeps_its_state_through_get_rng_state():
    assert not hasattr(checkpoint_module, "_random_state")
    x = torch.ones(50, requires_grad=True)
    torch.manual_seed(0)
    out = checkpoint_module.checkpoint(lambda t: torch.nn.functional.dropout(t, 0.5), x, use_reentrant=True)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())  # the same mask met again in backward


def test_generator_pickles_with_its_state():
    import pickle

    g = torch.Generator().manual_seed(3)
    torch.rand(2, generator=g)
    copy = pickle.loads(pickle.dumps(g))
    assert copy.initial_seed() == 3 and torch.equal(torch.rand(3, generator=copy), torch.rand(3, generator=g))


@pytest.mark.parametrize("draw, node", [
    (lambda y: y.uniform_(), "UniformBackward0"), (lambda y: y.normal_(), "NormalBackward0"),
    (lambda y: y.cauchy_(), "CauchyBackward0"), (lambda y: y.log_normal_(), "LogNormalBackward0"),
    (lambda y: y.geometric_(0.5), "GeometricBackward0"), (lambda y: y.exponential_(), "ExponentialBackward0"),
    (lambda y: y.random_(), "RandomBackward2"), (lambda y: y.random_(5), "RandomBackward1"),
    (lambda y: y.random_(1, 5), "RandomBackward0"), (lambda y: y.bernoulli_(0.3), "BernoulliBackward2"),
    (lambda y: y.bernoulli_(torch.full((3,), 0.3)), "BernoulliBackward1"),
])
def test_a_draw_into_a_tensor_of_a_graph_is_recorded_with_zero_gradient(draw, node):
    x = torch.arange(3.0, requires_grad=True)
    y = x * 2
    g = torch.Generator().manual_seed(0)
    draw(y)
    assert y.grad_fn.name() == node and y.requires_grad
    (y * torch.arange(1.0, 4.0)).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    z = x * 2
    z[1:].normal_(generator=g)  # into a view: the base is rebased on CopySlices, the other entry keeps its gradient
    assert z.grad_fn.name() == "srcgrad::autograd::CopySlices"
    x.grad = None
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        torch.zeros(2, requires_grad=True).cauchy_()


def test_vmap_randomness_covers_every_generator():
    g = torch.Generator().manual_seed(2)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        torch.vmap(lambda x: x + torch.randn(2, generator=g))(torch.zeros(3, 2))
    state, default_state = g.get_state(), torch.get_rng_state()
    same = torch.vmap(lambda x: x + torch.randn(2, generator=g) * torch.rand(2), randomness="same")(torch.zeros(3, 2))
    g.set_state(state)
    torch.set_rng_state(default_state)
    first = torch.randn(2, generator=g) * torch.rand(2)  # each call drew these, from both generators
    assert all(torch.equal(row, first) for row in same)
    different = torch.vmap(lambda x: x + torch.randn(2, generator=g), randomness="different")(torch.zeros(3, 2))
    assert not torch.equal(different[0], different[1])
    assert torch.rand(2, generator=g).shape == (2,)  # nothing is left watching after the vmap
