"""The rules of scipy.special (srcgrad/rules/special.py), through the programs that call
them: likelihoods of logistic, Poisson, probit and mixture models and losses written with
expit, xlogy, gammaln, betaln, log_ndtr, logsumexp (weights `b` too), softmax and
log_softmax. Each once stopped with "no derivative rule" (or a refusal from inside
SciPy's own Python code). SciPy is optional: srcgrad registers these rules when a
derivative is first built after the program has imported scipy.special, and importing
srcgrad does not import SciPy.
"""

import subprocess
import sys

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

sps = pytest.importorskip("scipy.special")


def logistic_nll(w, X, y):
    p = sps.expit(X @ w)
    return -np.sum(sps.xlogy(y, p) + sps.xlogy(1 - y, 1 - p))


def poisson_nll(w, X, y):
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta + sps.gammaln(y + 1.0))


def probit_nll(w, X, y):
    z = (2 * y - 1) * (X @ w)
    return -np.sum(sps.log_ndtr(z))


def mixture_loglik(means, weights, x):
    comp = -0.5 * (x[:, None] - means[None, :]) ** 2
    return np.sum(sps.logsumexp(comp, axis=1, b=weights))


def gamma_logpdf(a, b, x):
    return np.sum(a * np.log(b) - sps.gammaln(a) + sps.xlogy(a - 1, x) - b * x)


def beta_binomial(a, b, k, n):
    return np.sum(sps.betaln(k + a, n - k + b) - sps.betaln(a, b))


def attention_pool(scores, V):
    w = sps.softmax(scores, axis=-1)
    return np.sum((w @ V) ** 2) - np.sum(sps.log_softmax(scores, axis=1)[:, 0])


def special_values(x):
    return np.sum(sps.erf(x) + sps.erfc(0.5 * x) + sps.ndtr(x) + sps.erfinv(np.tanh(x)) + sps.ndtri(sps.expit(x))
                  + sps.log_expit(x) + sps.logit(sps.expit(x) * 0.5 + 0.25) + sps.entr(x * x + 0.1)
                  + sps.xlog1py(x, x * x) + sps.gamma(x * x + 1.0) + sps.digamma(x * x + 1.0)
                  + sps.polygamma(2, x * x + 1.0))


def signed(x):
    return sps.logsumexp(x, return_sign=True)[0]


RNG = np.random.default_rng(0)
X = RNG.normal(size=(6, 3))
Y01 = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])


def test_logistic_regression_with_expit_and_xlogy():
    w = np.array([0.3, -0.5, 0.8])
    p = 1 / (1 + np.exp(-X @ w))
    check(logistic_nll, w, X, Y01, expected=[X.T @ (p - Y01), np.outer(p - Y01, w), -X @ w])
    check_hessian(logistic_nll, (w, X, Y01), 0, expected=X.T @ (X * (p * (1 - p))[:, None]))


def test_poisson_and_probit_likelihoods():
    w, y = np.array([0.1, -0.2, 0.3]), np.array([0.0, 2.0, 1.0, 3.0, 0.0, 1.0])
    mu = np.exp(X @ w)
    grads = check(poisson_nll, w, X, y)
    np.testing.assert_allclose(grads[0], X.T @ (mu - y), rtol=1e-12)
    check_hessian(poisson_nll, (w, X, y), 0, expected=X.T @ (X * mu[:, None]))
    check(probit_nll, w, X, Y01)
    check_hessian(probit_nll, (w, X, Y01), 0)


def test_weighted_logsumexp_of_a_mixture():
    means, weights, x = np.array([-1.0, 0.5, 2.0]), np.array([0.2, 0.5, 0.3]), RNG.normal(size=5)
    comp = -0.5 * (x[:, None] - means[None, :]) ** 2
    r = weights * np.exp(comp)
    r /= r.sum(axis=1, keepdims=True)  # responsibilities: the gradient of each component's log
    expected_means = np.sum(r * (x[:, None] - means[None, :]), axis=0)
    expected_weights = np.sum(np.exp(comp) / np.sum(weights * np.exp(comp), axis=1, keepdims=True), axis=0)
    check(mixture_loglik, means, weights, x, expected=[expected_means, expected_weights])
    check_hessian(mixture_loglik, (means, weights, x), 0)
    check_hessian(mixture_loglik, (means, weights, x), 1)


def test_gamma_and_beta_binomial_with_gammaln_and_betaln():
    x = np.array([0.5, 1.2, 2.0])
    ga, gb, gx = check(gamma_logpdf, 2.5, 1.5, x)
    assert ga == pytest.approx(3 * np.log(1.5) - 3 * sps.digamma(2.5) + np.sum(np.log(x)), rel=1e-12)
    assert gb == pytest.approx(3 * 2.5 / 1.5 - np.sum(x), rel=1e-12)
    check_hessian(gamma_logpdf, (2.5, 1.5, x), 0, expected=-3 * sps.polygamma(1, 2.5))
    k, n = np.array([1.0, 3.0, 2.0]), np.array([4.0, 5.0, 2.0])
    check(beta_binomial, 1.5, 2.5, k, n)
    check_hessian(beta_binomial, (1.5, 2.5, k, n), 1)


def test_softmax_along_an_axis_and_elementwise_functions():
    check(attention_pool, RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2)))
    x = np.array([0.3, -0.7, 1.1, 0.05])
    check(special_values, x)
    check_hessian(special_values, (x,), 0)


def test_logsumexp_with_its_sign_is_refused_at_the_call():
    with pytest.raises(srcgrad.SrcGradError, match="return_sign"):
        srcgrad.grad(signed)(np.ones(3))


def test_importing_srcgrad_leaves_scipy_unloaded():
    code = "import sys, srcgrad; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
