"""`srcgrad.func`: PyTorch's `torch.func` for the Tensor shim: `grad`, `grad_and_value`,
`vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian` (transforms.py), `vmap` (vmapping.py) and
`functional_call` (calls.py), over pytrees of Tensors (trees.py). Not to be confused with
srcgrad's own `srcgrad.grad` and friends, which differentiate NumPy source code."""

from .calls import functional_call
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmapping import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"]
