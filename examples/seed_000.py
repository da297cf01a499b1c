"""Seed tutorial 000 (AutoGrad: tensors, gradients, no_grad), run with srcgrad in place of torch.

Prints what PyTorch prints, apart from object addresses and the values drawn by
randn. The seed below makes y double 11 times, as in the tutorial's run.
"""
import srcgrad as torch

torch.manual_seed(0)

# Tensor
x = torch.ones(2, 2, requires_grad=True)
print(x)

y = x + 2
print(y)
print(y.grad_fn)

z = y * y * 3
out = z.mean()
print(z)
print(out)

a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
b = a * a * 3
print(b.requires_grad)
print(b.grad_fn)

# Gradients
out.backward()
print(x.grad)

x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)

print(x.requires_grad)
print((x**2).requires_grad)

with torch.no_grad():
    print((x**2).requires_grad)
