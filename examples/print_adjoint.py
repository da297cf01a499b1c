"""Print the adjoint srcgrad writes for a small function, and run it.

    python examples/print_adjoint.py

`f(x, y) = sin(x) * y + x * y` has the gradient `(cos(x) y + y, sin(x) + x)`. The
printed code has a forward pass that computes and keeps the intermediate values, and a
backward pass whose blocks are each commented with the line they differentiate; the
adjoint of a variable `v` is called `v_bar`.
"""

import math

import srcgrad


def f(x, y):
    s = math.sin(x)
    return s * y + x * y


df = srcgrad.grad(f, wrt=("x", "y"))
print(srcgrad.source(df))

x, y = 0.7, 1.3
gx, gy = df(x, y)
print(f"df/dx = {gx:.6f}   (cos(x) * y + y = {math.cos(x) * y + y:.6f})")
print(f"df/dy = {gy:.6f}   (sin(x) + x     = {math.sin(x) + x:.6f})")
assert abs(gx - (math.cos(x) * y + y)) < 1e-12 and abs(gy - (math.sin(x) + x)) < 1e-12
