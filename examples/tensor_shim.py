"""A tour of the PyTorch-compatible Tensor shim: `import srcgrad as torch`.

Each section prints what PyTorch prints for the same code (object addresses and
randn draws aside).

    python examples/tensor_shim.py
"""

import numpy as np

import srcgrad as torch
import srcgrad.nn.functional as F

# Tensors record the operations done on them; grad_fn names the last one.
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)  # d(out)/dx = 6 (x + 2) / 4 = 4.5

# Gradients accumulate until they are zeroed.
x.sum().backward()
print(x.grad)
x.grad.zero_()

# A vector-Jacobian product: pass the vector to backward().
v = torch.tensor([0.1, 1.0, 0.0001])
t = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
(t * 1024).backward(v)
print(t.grad)

# Saved tensors are freed after backward unless retain_graph=True.
loss = (t * t).sum()
loss.backward(retain_graph=True)
loss.backward()
try:
    loss.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error)[:60] + "...")

# Stop tracking with no_grad(), detach() or .data.
with torch.no_grad():
    print((t ** 2).requires_grad)
print(t.detach().requires_grad, t.eq(t.detach()).all())

# nn.functional: losses and activations, one graph node each.
logits = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]], requires_grad=True)
labels = torch.tensor([0, 2])
ce = F.cross_entropy(logits, labels)
print(ce)
ce.backward()
print(logits.grad)
print(F.softmax(logits, dim=1))


# A custom differentiable function.
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return 2 * a * grad_output


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = Square.apply(a)
print(s)
print(torch.autograd.grad(s.sum(), a))

# NumPy interplay: from_numpy shares memory, numpy() needs detach() under grad.
arr = np.arange(4, dtype=np.float32).reshape(2, 2)
shared = torch.from_numpy(arr)
arr[0, 0] = 10
print(shared)
print(a.detach().numpy())


# @srcgrad.compile: a NumPy function becomes ONE graph node whose backward is the
# derivative srcgrad generates from its source (not a PyTorch feature).
@torch.compile
def logistic_loss(w, b, x, y):
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


w = torch.ones(5, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
loss = logistic_loss(w, b, torch.ones(5), torch.zeros(3))
print(loss)
loss.backward()
print(b.grad)
