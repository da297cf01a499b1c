"""A physics-informed network with the Tensor shim: fit u(t) so that u'' + u = 0 on
[0, 2] with u(0) = 0 and u'(0) = 1 (the solution is sin t). The residual needs u' and
u'' of the network with respect to its input, taken with `create_graph=True`, and the
training step differentiates them again with respect to the weights.

    python examples/physics_informed.py

The same code runs under `import torch`.
"""

import math

import srcgrad as torch

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                          torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
t = torch.linspace(0.0, 2.0, 40).reshape(40, 1).requires_grad_(True)
t0 = torch.zeros(1, 1, requires_grad=True)


def loss_of(net):
    u = net(t)
    (du,) = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)
    (d2u,) = torch.autograd.grad(du, t, torch.ones_like(du), create_graph=True)
    u0 = net(t0)
    (du0,) = torch.autograd.grad(u0, t0, torch.ones_like(u0), create_graph=True)
    return ((d2u + u) ** 2).mean() + (u0 ** 2).sum() + ((du0 - 1.0) ** 2).sum()


first = None
for step in range(401):
    optimizer.zero_grad()
    loss = loss_of(net)
    loss.backward()
    optimizer.step()
    first = loss.item() if first is None else first
    if step % 100 == 0:
        print(f"step {step:4d}  loss {loss.item():.6f}")

with torch.no_grad():
    u1 = net(torch.tensor([[1.0]])).item()
print(f"u(1) = {u1:.4f}, sin(1) = {math.sin(1.0):.4f}")
assert loss.item() < first / 100, "the residual did not fall"
assert abs(u1 - math.sin(1.0)) < 0.02, "u(1) is not sin(1)"
