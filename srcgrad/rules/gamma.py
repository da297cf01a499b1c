"""The gamma function of the `math` module: math.lgamma and math.gamma, and the polygamma
functions their derivatives are made of.

d lgamma(x) / dx = digamma(x) = polygamma(0, x) (also for negative x, where lgamma is
log|gamma(x)|) and d gamma(x) / dx = gamma(x) * digamma(x). `polygamma(n, x)` has the
rule d/dx polygamma(n, x) = polygamma(n + 1, x), so derivatives of every order exist.
It works on Python floats with `math`, float64-accurate (relative error about 1e-15
away from the poles): the recurrence polygamma(n, x) = polygamma(n, x + 1) -
(-1)**n n! / x**(n + 1) moves x up to where the asymptotic series converges; negative
x go through the reflection formula first. At the poles (0 and the
negative integers, where lgamma and gamma themselves raise) it returns nan.
"""

import math

import numpy as np

from .registry import defjvp, defvjp, discrete, elementwise

# B_2, B_4, ..., B_16: the Bernoulli numbers of the asymptotic series
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _asymptotic(n, x):
    """polygamma(n, x) for large x: the Stirling series, 8 terms past the leading two."""
    if n == 0:
        return math.log(x) - 0.5 / x - sum(b / (2 * k * x ** (2 * k)) for k, b in enumerate(_BERNOULLI, start=1))
    total = math.factorial(n - 1) / x**n + math.factorial(n) / (2.0 * x ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        total += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return total if n % 2 else -total


def _cot_derivative(n, x):
    """d^n/dx^n of pi cot(pi x) = pi ** (n + 1) P_n(cot(pi x)), with P_0(c) = c and
    P_(k+1)(c) = -(1 + c**2) P_k'(c); pi x is reduced to pi r (r = x - round(x), exact),
    since cot has period pi."""
    coefficients = [0.0, 1.0]  # of P_k, lowest power first
    for _ in range(n):
        slope = [k * c for k, c in enumerate(coefficients)][1:] + [0.0, 0.0]
        coefficients = [-(slope[k] + (slope[k - 2] if k >= 2 else 0.0)) for k in range(len(slope))]
    c = 1.0 / math.tan(math.pi * (x - round(x)))
    return math.pi ** (n + 1) * sum(a * c**k for k, a in enumerate(coefficients))


def polygamma(n, x):
    """The n-th derivative of digamma at the float x (n = 0: digamma itself); nan at the poles."""
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.0:  # reflection: polygamma(n, x) = (-1)**n polygamma(n, 1 - x) - d^n/dx^n pi cot(pi x)
        return (-1.0) ** n * polygamma(n, 1.0 - x) - _cot_derivative(n, x)
    shift, step = 0.0, (-1.0) ** n * math.factorial(n)
    while x < 10.0 + n:  # polygamma(n, x) = polygamma(n, x + 1) - step / x ** (n + 1)
        with np.errstate(over="ignore", divide="ignore"):  # inf near the pole at 0, as NumPy gives it
            shift -= float(step / np.float64(x) ** (n + 1))
        x += 1.0
    return shift + _asymptotic(n, x)


@defvjp(polygamma, "x", name="Polygamma")
def polygamma_vjp(g, ans, n, x):
    return g * polygamma(n + 1, x)


@defjvp(polygamma, "x")
def polygamma_jvp(t, ans, n, x):
    return t * polygamma(n + 1, x)


discrete(polygamma, "n")


@elementwise(math.lgamma)
def math_lgamma_d(ans, x):
    return polygamma(0, x)


@elementwise(math.gamma)
def math_gamma_d(ans, x):
    return ans * polygamma(0, x)
