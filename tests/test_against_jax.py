"""srcgrad against JAX (skipped where JAX is not installed): the same program text runs
under both, `np` bound to `jax.numpy` for JAX, and every transform must agree to
rounding: grad, value_and_grad, vjp, jvp, jacobian (both modes) and hessian."""

import math
import types

import numpy as np
import pytest

import jax_programs
import srcgrad

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

NAMES = sorted(jax_programs.PROGRAMS)
RTOL, ATOL = 1e-9, 1e-11


def _jax_twin():
    """The module's functions rebound to globals where `np` is `jax.numpy` (and `math`
    the functions JAX can trace)."""
    scope = dict(vars(jax_programs))
    scope["np"] = jnp
    scope["math"] = types.SimpleNamespace(
        sin=jnp.sin, cos=jnp.cos, exp=jnp.exp, log=jnp.log, sqrt=jnp.sqrt, tanh=jnp.tanh, atan2=jnp.arctan2, pi=math.pi,
    )
    for name, value in list(scope.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == jax_programs.__name__:
            scope[name] = types.FunctionType(value.__code__, scope, value.__name__, value.__defaults__, value.__closure__)
    return scope


TWIN = _jax_twin()


def _inputs(name, seed=0):
    rng = np.random.default_rng(seed + sum(map(ord, name)))
    _, shapes, _ = jax_programs.PROGRAMS[name]
    return tuple(float(rng.uniform(0.5, 1.5)) if s == () else rng.standard_normal(s) for s in shapes)


def _close(ours, theirs, what):
    if isinstance(ours, (tuple, list)):
        assert len(ours) == len(theirs), what
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _close(a, b, f"{what}[{k}]")
        return
    theirs = np.asarray(theirs)
    assert np.shape(ours) == theirs.shape, f"{what}: shape {np.shape(ours)} against JAX's {theirs.shape}"
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=what)


def _programs(scalar_only=False):
    return [n for n in NAMES if jax_programs.PROGRAMS[n][2] or not scalar_only]


@pytest.mark.parametrize("name", _programs(scalar_only=True))
def test_grad_and_value_and_grad_agree_with_jax(name):
    fn, shapes, _ = jax_programs.PROGRAMS[name]
    args = _inputs(name)
    wrt = tuple(range(len(shapes)))
    ours = srcgrad.grad(fn, wrt=wrt)(*args)
    theirs = jax.grad(TWIN[name], argnums=wrt)(*args)
    _close(ours, theirs, f"grad of {name}")
    value, grads = srcgrad.value_and_grad(fn, wrt=wrt)(*args)
    assert math.isclose(value, float(TWIN[name](*args)), rel_tol=1e-12)
    _close(grads, theirs, f"value_and_grad of {name}")


@pytest.mark.parametrize("name", NAMES)
def test_vjp_and_jvp_agree_with_jax(name):
    fn, shapes, _ = jax_programs.PROGRAMS[name]
    args = _inputs(name)
    rng = np.random.default_rng(1)
    out, pullback = srcgrad.vjp(fn, *args)
    their_out, their_pullback = jax.vjp(TWIN[name], *args)
    _close(out, their_out, f"vjp output of {name}")
    seed = rng.standard_normal(np.shape(out)) if np.ndim(out) else float(rng.standard_normal())
    _close(pullback(seed), their_pullback(seed), f"vjp of {name}")
    tangents = tuple(float(rng.standard_normal()) if s == () else rng.standard_normal(s) for s in shapes)
    ours = srcgrad.jvp(fn, args, tangents)
    theirs = jax.jvp(TWIN[name], args, tangents)
    _close(ours, theirs, f"jvp of {name}")


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("name", [n for n in NAMES if jax_programs.PROGRAMS[n][1][0] != ()])
def test_jacobian_agrees_with_jax_in_both_modes(name, mode):
    fn = jax_programs.PROGRAMS[name][0]
    args = _inputs(name)
    ours = srcgrad.jacobian(fn, wrt=0, mode=mode)(*args)
    theirs = jax.jacfwd(TWIN[name], argnums=0)(*args)
    _close(ours, theirs, f"{mode} jacobian of {name}")


_NO_HESSIAN = {
    # second derivatives srcgrad refuses with a clear error (singular vectors, eigenvectors)
}


@pytest.mark.parametrize("name", _programs(scalar_only=True))
def test_hessian_agrees_with_jax(name):
    fn, shapes, _ = jax_programs.PROGRAMS[name]
    args = _inputs(name)
    if name in _NO_HESSIAN:
        with pytest.raises(srcgrad.SrcGradError):
            srcgrad.hessian(fn, wrt=0)(*args)
        return
    ours = srcgrad.hessian(fn, wrt=0)(*args)
    theirs = jax.hessian(TWIN[name], argnums=0)(*args)
    _close(ours, theirs, f"hessian of {name}")
