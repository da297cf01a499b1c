"""Seed tutorial 004 (AUTOGRAD: AUTOMATIC DIFFERENTIATION), run with srcgrad in place of
torch.

Prints what PyTorch prints, apart from object addresses and the values drawn by
randn. The seed below makes y double 11 times, as in the tutorial's run. The cell
that fails in the tutorial is wrapped so that the script goes on, printing the
error as the notebook shows it.
"""
import srcgrad as torch

torch.manual_seed(0)

# Create a tensor and set requires_grad=True to track computation with it
x = torch.ones(2, 2, requires_grad=True)
print(x)

# do some operations
y = x + 2
print(y)

print(y.grad_fn)

z = y * y * 3
out = z.mean()

print(z, out)

# requires_grad is False unless asked for
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)  # the trailing _ means in place
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

# Gradients
print(x.grad)  # before backprop

out.backward()
print(x.grad)  # after backprop

x = torch.randn(3, requires_grad=True)

y = x * 2

while y.data.norm() < 1000:
    y = y * 2
print(y)

try:
    y.backward()  # y is not a scalar here
    print(x.grad)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# Now y is no longer a scalar: pass the vector of the vector-Jacobian product to backward
v = torch.tensor([0.1, 1.0, 0.001], dtype=torch.float)
y.backward(v)
print(x.grad)

# Ways to stop autograd
print(x.requires_grad)
print((x ** 2).requires_grad)

with torch.no_grad():
    print((x ** 2).requires_grad)

print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())
