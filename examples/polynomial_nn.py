"""PyTorch's "Learning PyTorch with Examples" fits, run with `import srcgrad as torch`:
y = sin(x) by a cubic polynomial, first as `nn.Sequential(Linear, Flatten)` with a hand
written SGD step, then as an `nn.Module` subclass with `torch.optim.SGD`. Both print the
loss falling and the polynomial found, and check it against the least-squares cubic.

    python examples/polynomial_nn.py
"""

import math

import numpy as np

import srcgrad as torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
best = np.polynomial.polynomial.polyfit(x.numpy().astype(np.float64), y.numpy().astype(np.float64), 3)

# --- nn.Sequential, parameters updated by hand ---------------------------------------------
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)  # (2000, 3): x, x^2, x^3
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-6
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 500 == 499:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
      f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
found = [linear_layer.bias.item(), *linear_layer.weight.detach().numpy().ravel().tolist()]
assert np.allclose(found, best, atol=0.1), (found, best)


# --- an nn.Module of its own, trained by torch.optim.SGD ----------------------------------
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3"


model = Polynomial3()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(2000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 500 == 499:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
found = [p.item() for p in model.parameters()]
assert np.allclose(found, best, atol=0.1), (found, best)
print("fit OK")
