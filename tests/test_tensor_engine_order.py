"""The order a backward pass runs its nodes in: PyTorch's (engine.run_order).

Of the nodes ready to run (every edge into them taken), PyTorch runs the one made last,
an AccumulateGrad first of all; ready AccumulateGrads come out of its binary heap in the
heap's order. The orders below were printed by PyTorch 2.13 for the same programs; where
PyTorch is installed, random graphs are compared with it directly.
"""

import random

import numpy as np
import pytest

import srcgrad as torch


def _logged(log, name):
    return lambda g: log.append(name)


def test_leaf_hooks_run_as_each_leaf_becomes_ready_in_pytorchs_order():
    log = []
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (1.0, 2.0, 3.0))
    for t, name in ((a, "a"), (b, "b"), (c, "c")):
        t.register_hook(_logged(log, name))
        t.register_post_accumulate_grad_hook(lambda p, name=name: log.append("acc " + name))
    x = a * b
    y = x + c
    z = y * a + x * c
    w = z.sin() + b * x
    for t, name in ((x, "x"), (y, "y"), (z, "z"), (w, "w")):
        t.register_hook(_logged(log, name))
    w.backward()
    assert " ".join(log) == "w z y c acc c x a acc a b acc b"
    assert a.grad.item() == pytest.approx(np.cos(11.0) * (5.0 + 2.0 + 6.0) + 4.0, rel=1e-6)  # dz/da = y + ab + cb; b * dx/da


def test_a_node_runs_once_every_edge_into_it_is_taken():
    log = []
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    q = torch.tensor([3.0, 4.0], requires_grad=True)
    for t, name in ((p, "p"), (q, "q")):
        t.register_hook(_logged(log, name))
    r = p * q
    s = r.exp()
    u = p.sum() * s.sum() + (q * r).sum()
    v = torch.stack([u, s.sum(), r.sum()])
    for t, name in ((r, "r"), (s, "s"), (u, "u"), (v, "v")):
        t.register_hook(_logged(log, name))
    v.sum().backward()
    assert " ".join(log) == "v u s r p q"


@pytest.mark.parametrize("n, want", [
    (3, [0, 1, 2]), (4, [0, 2, 1, 3]), (5, [0, 2, 4, 1, 3]), (6, [0, 2, 5, 4, 1, 3]), (7, [0, 2, 5, 6, 4, 1, 3]),
])
def test_leaves_ready_at_once_come_out_of_the_heap_in_its_order(n, want):
    log = []
    leaves = [torch.tensor(float(i + 1), requires_grad=True) for i in range(n)]
    for i, t in enumerate(leaves):
        t.register_hook(_logged(log, i))
    torch.stack(leaves).sum().backward()
    assert log == want
    assert [t.grad.item() for t in leaves] == [1.0] * n


def test_several_roots_start_from_one_graph_root_in_their_order():
    log = []
    a, b, c, d = (torch.tensor([1.0, 2.0], requires_grad=True) for _ in range(4))
    for name, t in zip("abcd", (a, b, c, d)):
        t.register_hook(_logged(log, name))
    e = a * b
    f = c * d
    e.register_hook(_logged(log, "e"))
    f.register_hook(_logged(log, "f"))
    torch.autograd.backward([e.sum(), f.sum(), (e * f).sum()])
    assert log == ["f", "c", "d", "e", "a", "b"]
    np.testing.assert_array_equal(a.grad.numpy(), [1.0 + 1.0, 2.0 + 8.0])  # b + b * c * d


def test_create_graph_and_autograd_grad_passes_run_in_the_same_order():
    def program():
        log = []
        a, b = torch.tensor(1.5, requires_grad=True), torch.tensor(-0.5, requires_grad=True)
        a.register_hook(_logged(log, "a"))
        b.register_hook(_logged(log, "b"))
        x = a * b
        y = x.exp() + a
        x.register_hook(_logged(log, "x"))
        y.register_hook(_logged(log, "y"))
        return log, a, b, y

    log, a, b, y = program()
    y.backward()
    plain = list(log)
    log, a, b, y = program()
    torch.autograd.grad(y, [a, b], create_graph=True)
    assert log == plain == ["y", "x", "a", "b"]
    log, a, b, y = program()
    torch.autograd.grad(y, [b, a])
    assert log == plain


def test_sequence_numbers_count_up_and_an_accumulate_grad_has_the_largest():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    first = a * 2
    second = first[1:]  # a view's node, made on its fast path
    third = second.exp()
    numbers = [t.grad_fn._sequence_nr() for t in (first, second, third)]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3
    assert first.grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1


def _random_program(seed):
    r = random.Random(seed)
    leaves = r.randint(2, 5)
    steps = [(r.choice(["mul", "add", "sin", "sub", "stack", "cat", "sum", "mm", "index", "tanh"]),
              [r.randrange(leaves + i) for _ in range(3)]) for i in range(r.randint(3, 12))]
    hooked = [r.random() < 0.7 for _ in range(leaves + len(steps))]
    return leaves, steps, hooked, r.choice(["backward", "roots", "grad"])


def _hook_order(lib, seed, data):
    leaves, steps, hooked, how = _random_program(seed)
    log = []
    values = [lib.tensor(d, requires_grad=True) for d in data]
    for step, (kind, picked) in enumerate(steps):
        x, y, z = (values[i] for i in picked)
        out = {
            "mul": lambda: x * y, "add": lambda: x + y + z, "sub": lambda: x - y, "sin": lambda: lib.sin(x),
            "tanh": lambda: lib.tanh(x), "stack": lambda: lib.stack([x, y, z]).sum(0),
            "cat": lambda: lib.cat([x, y]).reshape(2, 3).sum(0), "sum": lambda: x.sum() + y,
            "mm": lambda: (x.reshape(3, 1) @ y.reshape(1, 3)).sum(1), "index": lambda: x[[0, 0, 2]] + y[0],
        }[kind]()
        values.append(out)
    for i, t in enumerate(values):
        if hooked[i]:
            t.register_hook(_logged(log, i))
    if how == "backward":
        values[-1].sum().backward()
    elif how == "roots":
        lib.autograd.backward([t.sum() for t in values[-3:]])
    else:
        lib.autograd.grad(values[-1].sum(), values[:leaves], allow_unused=True)
    return log


def test_random_graphs_run_their_hooks_in_pytorchs_order():
    real = pytest.importorskip("torch")
    for seed in range(150):
        rng = np.random.default_rng(seed)
        data = [rng.standard_normal(3).astype(np.float32) for _ in range(_random_program(seed)[0])]
        assert _hook_order(torch, seed, data) == _hook_order(real, seed, data), seed
