"""Force matching: fit the parameters of an energy so that its forces, -dE/dx, match
observed ones. The loss calls a gradient made by srcgrad, and srcgrad differentiates
the loss through it (its pullback is a Hessian-vector product, computed by forward mode
over the generated gradient code).

    python examples/force_matching.py
"""

import numpy as np

import srcgrad


def energy(x, k, r0):
    """A chain of springs of stiffness k and rest length r0 between neighbours."""
    d = x[1:] - x[:-1]
    return 0.5 * k * np.sum((d - r0) ** 2)


gradient = srcgrad.grad(energy)  # dE/dx: the forces are its negative


def loss(k, r0, x, observed):
    """Squared mismatch of the model's forces and the observed ones."""
    return np.sum((-gradient(x, k, r0) - observed) ** 2)


rng = np.random.default_rng(0)
positions = [np.cumsum(rng.uniform(0.5, 1.5, 6)) for _ in range(8)]
true_k, true_r0 = 3.0, 0.8
observed = [-gradient(x, true_k, true_r0) for x in positions]

fit = srcgrad.value_and_grad(loss, wrt=(0, 1))
k, r0 = 1.0, 1.2
for step in range(200):
    value, (dk, dr0) = 0.0, (0.0, 0.0)  # summed over the configurations
    for x, f in zip(positions, observed):
        v, (gk, gr0) = fit(k, r0, x, f)
        value, dk, dr0 = value + v, dk + gk, dr0 + gr0
    k, r0 = k - 0.004 * dk, r0 - 0.004 * dr0
    if step == 0:
        first = value
    if step % 50 == 0:
        print(f"step {step:3d}  loss {value:.6f}  k {k:.4f}  r0 {r0:.4f}")
print(f"fitted k = {k:.6f} (true {true_k}), r0 = {r0:.6f} (true {true_r0})")

# the gradient of the loss, checked against central finite differences
x, f = positions[0], observed[0]
eps = 1e-6
numeric = ((loss(1.5 + eps, 0.9, x, f) - loss(1.5 - eps, 0.9, x, f)) / (2 * eps),
           (loss(1.5, 0.9 + eps, x, f) - loss(1.5, 0.9 - eps, x, f)) / (2 * eps))
exact = srcgrad.grad(loss, wrt=(0, 1))(1.5, 0.9, x, f)
print("d loss / d (k, r0):", exact, "finite differences:", numeric)
assert np.allclose(exact, numeric, rtol=1e-6)
assert value < first / 1000 and abs(k - true_k) < 1e-3 and abs(r0 - true_r0) < 1e-3
print("fit OK")
