"""Seed tutorial 003 (Tensor operations, gradients, leaf tensors), run with srcgrad in
place of torch. Nothing here is random: the output matches PyTorch's exactly, apart
from object addresses.
"""
import numpy as np

import srcgrad as torch

# Tensor operations
x1 = torch.ones(3, 3)
print(x1)

x = torch.ones(2, 2, requires_grad=True)  # .requires_grad_() changes the flag
print(x)

y = x + 2
print(y)

print(x.grad_fn)
print(y.grad_fn)

z = y * y * 3
out = z.mean()
print(z, out)

# Gradients
x = torch.ones(2, 2, requires_grad=True)  # track every operation on x
print(x)
y = x+2
print(y)
z = y*y*3
print(z)
a = z.mean()
print(a)
a.backward()
print(x.grad)  # d(a)/d(x) = 1/4 * 6 * y = 1.5 * 3 = 4.5

# Leaf tensors: x1, w1 and w2; L = Y - x1 * w1 * w2
x1 = torch.from_numpy(2 * np.ones((2, 2), dtype=np.float32))
x1.requires_grad_(True)
w1 = torch.from_numpy(5 * np.ones((2, 2), dtype=np.float32))
w1.requires_grad_(True)
print("x1 =", x1)
print("w1 =", w1)

x2 = x1 * w1
w2 = torch.from_numpy(6 * np.ones((2, 2), dtype=np.float32))
w2.requires_grad_(True)
print("x2 =", x2)
print("w2 =", w2)

y = x2 * w2
Y = torch.from_numpy(10 * np.ones((2, 2), dtype=np.float32))
print("y =", y)
print("Y =", Y)

L = Y - y
print("L =", L)

L.backward(torch.ones(2, 2, dtype=torch.float))

print(x1.grad)
print(w1.grad)
print(w2.grad)
