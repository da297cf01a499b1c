"""Train the seed tutorial's logistic-regression layer with plain SGD, PyTorch style.

The model is the one from the autograd tutorial: z = x @ w + b with w (5, 3) and
b (3,), and the mean binary cross entropy with logits. Here it learns from a
synthetic batch of 256 inputs whose labels come from a hidden (5, 3) layer; the
loss falls as it trains.

    python examples/logistic_regression.py
"""

import numpy as np

import srcgrad as torch

torch.manual_seed(0)
rng = np.random.default_rng(0)

# Synthetic data: 3 binary labels per input, drawn from a hidden logistic layer.
true_w = rng.standard_normal((5, 3)) * 2
true_b = rng.standard_normal(3)
inputs = rng.standard_normal((256, 5))
probs = 1 / (1 + np.exp(-(inputs @ true_w + true_b)))
x = torch.tensor(inputs.astype(np.float32))
y = torch.tensor((rng.random((256, 3)) < probs).astype(np.float32))

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
learning_rate = 0.5

for step in range(201):
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if step % 25 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

with torch.no_grad():
    accuracy = ((torch.matmul(x, w) + b > 0).float() == y).float().mean()
print("accuracy on the training data:", accuracy)
print("learned w:", w)
print("hidden  w:", torch.tensor(true_w.astype(np.float32)))
