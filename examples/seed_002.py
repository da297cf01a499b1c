"""Seed tutorial 002 (torch.autograd with a one-layer logistic model), run with srcgrad
in place of torch.

Prints what PyTorch prints, apart from object addresses and the values drawn by randn.
"""
import srcgrad as torch

torch.manual_seed(0)

# The simplest one-layer network: input x, parameters w and b, and a loss.
x = torch.ones(5)  # input tensor
print("x: ", x)
y = torch.zeros(3)  # expected output
print("y: ", y)
w = torch.randn(5, 3, requires_grad=True)
print("w: ", w)
b = torch.randn(3, requires_grad=True)
print("b: ", b)
z = torch.matmul(x, w) + b
print("z: ", z)
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print('loss: ', loss)

# Tensors, Functions and Computational graph
print('Gradient function for z =', z.grad_fn)
print('Gradient function for loss =', loss.grad_fn)

# Computing Gradients
loss.backward()
print(w.grad)
print(b.grad)

# Disabling Gradient Tracking
z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)

# the other way: detach()
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
