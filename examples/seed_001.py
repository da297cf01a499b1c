"""Seed tutorial 001 (autograd overview, gradients, Jacobian-vector products, .data),
run with srcgrad in place of torch.

Prints what PyTorch prints, apart from object addresses and the values drawn by
randn. The seed below makes the doubling loop run 8 times, as in the tutorial's run.
"""
from __future__ import print_function

import srcgrad as torch

torch.manual_seed(10)

x = torch.randn(3, 3, requires_grad=True)
print(x.grad_fn)

x = torch.ones(2, 2, requires_grad=True)
print(x)

y = x**2
print(y)

print(y.grad_fn)

z = y * y * 3
out = z.mean()

print(z, out)

a = torch.randn(2, 2)  # requires_grad defaults to False
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

# 2.2.1 Gradients
out.backward()

print(x.grad)

# backward again: gradients accumulate
out2 = x.sum()
out2.backward()
print(x.grad)

out3 = x.sum()
x.grad.data.zero_()
out3.backward()
print(x.grad)

# a Jacobian-vector product
x = torch.randn(3, requires_grad=True)
print(x)

y = x * 2
i = 0
while y.data.norm() < 1000:
    y = y * 2
    i = i + 1
print(y)
print(i)

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)

print(x.grad)

print(x.requires_grad)
print((x ** 2).requires_grad)

with torch.no_grad():
    print((x ** 2).requires_grad)

# changing values through .data is not recorded
x = torch.ones(1, requires_grad=True)

print(x.data)  # still a tensor
print(x.data.requires_grad)  # but outside the graph

y = 2 * x
x.data *= 100  # changes only the values; the gradient does not see it

y.backward()
print(x)  # the change shows in x's values
print(x.grad)
