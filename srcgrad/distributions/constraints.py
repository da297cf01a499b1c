"""The constraints of `torch.distributions.constraints` that srcgrad's distributions use:
each `check(value)` gives a bool Tensor (per batch element) and prints as PyTorch's."""

from ..tensor import Tensor, as_tensor

__all__ = [
    "Constraint", "real", "positive", "nonnegative", "unit_interval", "boolean", "simplex", "real_vector",
    "interval", "integer_interval", "greater_than", "less_than", "independent", "dependent", "is_dependent",
]


class Constraint:
    """A region of values; `event_dim` dims on the right form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


def _tensor(value):
    return value if isinstance(value, Tensor) else as_tensor(value)


class _Real(Constraint):
    def check(self, value):
        value = _tensor(value)
        return value == value  # False for nan


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        value = _tensor(value)
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < _tensor(value)

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= _tensor(value)

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        value = _tensor(value)
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _UnitInterval(_Interval):
    def __init__(self):
        super().__init__(0.0, 1.0)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return _tensor(value) < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        value = _tensor(value)
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        value = _tensor(value)
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Independent(Constraint):
    """`base` over `reinterpreted` more dims on the right, all of which must hold."""

    def __init__(self, base, reinterpreted):
        self.base, self.reinterpreted = base, reinterpreted
        self.event_dim = base.event_dim + reinterpreted

    def check(self, value):
        found = self.base.check(value)
        for _ in range(self.reinterpreted):
            found = found.all(-1)
        return found

    def __repr__(self):
        return f"IndependentConstraint({self.base!r}, {self.reinterpreted})"


class _Dependent(Constraint):
    """A constraint that depends on other parameters (not checked on its own)."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


real = _Real()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _UnitInterval()
simplex = _Simplex()
real_vector = _Independent(real, 1)
dependent = _Dependent()
interval, integer_interval, greater_than, less_than, independent = (
    _Interval, _IntegerInterval, _GreaterThan, _LessThan, _Independent)
