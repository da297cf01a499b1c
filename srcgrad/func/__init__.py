"""`srcgrad.func`: PyTorch's `torch.func` for the Tensor shim: `grad`, `grad_and_value`,
`vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian` (transforms.py), `vmap` (vmapping.py),
`functional_call` (calls.py) and `stack_module_state` (ensembles.py), over pytrees of
Tensors (trees.py). Not to be confused with srcgrad's own `srcgrad.grad` and friends,
which differentiate NumPy source code."""

from .calls import functional_call
from .ensembles import stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmapping import vmap

__all__ = [
    "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call", "stack_module_state",
]
