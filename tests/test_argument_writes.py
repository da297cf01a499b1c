"""A call of another user function that stays a call (recursive, reading closure
variables, too long to splice) and changes an argument in place is refused where the
caller passes a differentiated value: that function's own derivative cannot see the
caller's variable change (argument_writes.py). Before, the gradient was silently wrong."""

import numpy as np
import pytest

import srcgrad
from program_checks import check
from srcgrad.compiler import argument_writes

RNG = np.random.default_rng(11)


def _make_scaler(k):
    def scale(a):  # reads the closure variable `k`: never spliced
        a *= k
        return 0.0

    return scale


_scale = _make_scaler(3.0)


def result_unused(x):  # `r` unused: Python changes `y` itself
    y = x * 1.0
    r = _scale(y)
    return np.sum(y * y)


def _times_three_at(a, n):
    if n > 0:
        return _times_three_at(a, n - 1)
    a[0] = a[0] * 3.0
    return 0.0


def recursive_change(x):
    y = x * 1.0
    _times_three_at(y, 2)
    return np.sum(y * y)


def _bump(b):
    np.add.at(b, 0, 1.0)


def _make_passer(k):
    def passer(a):
        _bump(a)
        return a.sum() * k

    return passer


_passer = _make_passer(2.0)


def passed_on(x):
    y = x * 1.0
    s = _passer(y)
    return s + np.sum(y * y)


def _make_exp_into(k):
    def exp_into(a):
        row = a[0:2]  # a view: writing it changes `a`
        np.exp(row * k, out=row)
        return 0.0

    return exp_into


_exp_into = _make_exp_into(1.0)


def through_a_view(x):
    y = x * 1.0
    _exp_into(y)
    return np.sum(y)


@pytest.mark.parametrize("fn, written, line", [
    (result_unused, "a *= k", "`r = _scale(y)`"),
    (recursive_change, "a[0] = a[0] * 3.0", "`_times_three_at(y, 2)`"),
    (passed_on, "_bump(a)", "`s = _passer(y)`"),
    (through_a_view, "np.exp(row * k, out=row)", "`_exp_into(y)`"),
])
def test_a_kept_call_changing_its_argument_is_refused_naming_both_lines(fn, written, line):
    x = np.array([1.0, 2.0, 0.5])
    for transform in (lambda: srcgrad.grad(fn)(x), lambda: srcgrad.jvp(fn, (x,), (np.ones(3),))):
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            transform()
        message = str(info.value)
        assert line in message and f"`{written}`" in message and "test_argument_writes.py, line" in message


def _make_copier(k):
    def copier(a):
        a = a.copy()  # its own array from here on
        a *= k
        a[0] = a[0] + 1.0
        return a

    return copier


_copier = _make_copier(3.0)


def copies_first(x):
    y = x * 2.0
    z = _copier(y)
    return np.sum(z * y)


def _count_down(a, n):
    if n == 0:
        return a * a
    return _count_down(a, n - 1) * 2.0


def recursive_reader(x):
    y = np.sin(x)
    return np.sum(_count_down(y, 3))


def test_kept_calls_that_only_read_their_arguments_are_differentiated():
    x = RNG.normal(size=3)
    check(copies_first, x, expected=[2.0 * 2.0 * (6.0 * x) + np.array([2.0, 0.0, 0.0])])
    check(recursive_reader, x, expected=[8.0 * 2.0 * np.sin(x) * np.cos(x)])


def _branch_copy(a, c):
    if c:
        a = a.copy()
    a[0] = 1.0


def _loop_rows(a):
    for row in a:
        row[0] = 0.0


def _rebound_then_grown(a, b):
    a = b
    a.append(1.0)


def _number_rebound(s):
    s += 1.0
    return s


def test_what_the_analysis_finds():
    def found(fn):
        return {name: (w.text, w.certain) for name, w in argument_writes.parameters(fn).items()}

    assert found(_branch_copy) == {"a": ("a[0] = 1.0", True)}
    assert found(_loop_rows) == {"a": ("row[0] = 0.0", True)}
    assert found(_rebound_then_grown) == {"b": ("a.append(1.0)", True)}
    assert found(_number_rebound) == {"s": ("s += 1.0", False)}  # in place only for an array or list
    assert found(_copier) == {}
    assert found(_passer) == {"a": ("_bump(a)", True)}
    assert found(_times_three_at) == {"a": ("a[0] = a[0] * 3.0", True)}


def _rows_enumerated(a):
    for i, row in enumerate(a):
        row *= 2.0


def _either(a, c):
    b = a if c else a.copy()
    b[0] = 1.0


def _in_try(a):
    try:
        a[0] = 1.0
    except ValueError:
        pass


def _in_with(a, lock):
    with lock:
        a.fill(0.0)


def _nested_writer(a):
    def put(b):
        b[0] = 1.0

    put(a)


def _lambda_writer(a):
    fill = lambda b: b.fill(0.0)  # noqa: E731
    fill(a)


def _closure_writer(a):
    def put():
        a[0] = 1.0

    put()


def _flat_view_written(a):
    a.ravel()[0] = 1.0


def _entry_deleted(lst):
    del lst[0]


def _first_of_many(*arrays):
    arrays[0][0] = 1.0


def _in_comprehension(a):
    [row.fill(0.0) for row in a]


def _walrus_alias(a):
    if (b := a) is not None:
        b[0] = 1.0


def _shuffled(a, rng):
    rng.shuffle(a)


def _sorted_unbound(a):
    np.ndarray.sort(a)


def test_what_the_analysis_finds_through_loops_branches_nested_functions_and_views():
    def found(fn):
        return {name: w.text for name, w in argument_writes.parameters(fn).items()}

    assert found(_rows_enumerated) == {"a": "row *= 2.0"}
    assert found(_either) == {"a": "b[0] = 1.0"}
    assert found(_in_try) == {"a": "a[0] = 1.0"}
    assert found(_in_with) == {"a": "a.fill(0.0)"}
    assert found(_nested_writer) == {"a": "put(a)"}
    assert found(_lambda_writer) == {"a": "fill(a)"}
    assert found(_closure_writer) == {"a": "a[0] = 1.0"}
    assert found(_flat_view_written) == {"a": "a.ravel()[0] = 1.0"}
    assert found(_entry_deleted) == {"lst": "del lst[0]"}
    assert found(_first_of_many) == {"arrays": "arrays[0][0] = 1.0"}
    assert found(_in_comprehension) == {"a": "[row.fill(0.0) for row in a]"}
    assert found(_walrus_alias) == {"a": "b[0] = 1.0"}
    assert found(_shuffled) == {"a": "rng.shuffle(a)"}
    assert found(_sorted_unbound) == {"a": "np.ndarray.sort(a)"}


def _make_row_doubler(k):
    def double_rows(a):  # reads the closure variable `k`: never spliced
        for i, row in enumerate(a):
            row *= k
        return 0.0

    return double_rows


_double_rows = _make_row_doubler(2.0)


def rows_through_enumerate(x):  # before: the gradient of y * y before doubling, no error
    y = x * 1.0
    r = _double_rows(y)
    return np.sum(y * y)


def _make_entry_scaler(k):
    def scale_entry(lst):
        lst[0][0] = lst[0][0] * k
        return 0.0

    return scale_entry


_scale_entry = _make_entry_scaler(3.0)


def passed_in_a_list(x):  # `[y]`: a display, not a name, reaches the callee
    y = x * 1.0
    r = _scale_entry([y])
    return np.sum(y * y)


@pytest.mark.parametrize("fn, written, line", [
    (rows_through_enumerate, "row *= k", "`r = _double_rows(y)`"),
    (passed_in_a_list, "lst[0][0] = lst[0][0] * k", "`r = _scale_entry([y])`"),
])
def test_changes_through_enumerate_and_a_list_display_are_refused(fn, written, line):
    x = RNG.normal(size=(2, 3))
    for transform in (lambda: srcgrad.grad(fn)(x), lambda: srcgrad.jvp(fn, (x,), (np.ones((2, 3)),))):
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            transform()
        assert line in str(info.value) and f"`{written}`" in str(info.value)


class _Holder:
    def __init__(self):
        self.buf = np.zeros(3)


_HELD = _Holder()


def writes_an_attribute(x):
    _HELD.buf[:] = x
    return np.sum(_HELD.buf * x)


def writes_an_attribute_a_constant(x):
    _HELD.buf[:] = 0.5
    return np.sum(_HELD.buf * x)


def test_a_differentiated_write_into_an_objects_array_is_refused():
    """`obj.attr[i] = v` changes an array the function does not make: with a differentiated
    `v` the gradient was half the true one, silently; a constant write is differentiated."""
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`_HELD.buf\[:\] = x` writes a differentiated value "
                                                                r"into `_HELD.buf`"):
        srcgrad.grad(writes_an_attribute)(x)
    check(writes_an_attribute_a_constant, x, expected=[np.full(3, 0.5)])


class _Recorder:
    def __init__(self):
        self.buf = np.zeros(3)

    def store(self, a, n=0):
        if n > 3:  # recursive: kept as a call
            return self.store(a, n - 1)
        self.buf[:] = a * 2.0
        return 0.0

    def loss(self, x):
        y = x * 1.0
        r = self.store(y)  # noqa: F841 - its result unused, its change of `self.buf` read below
        return np.sum(self.buf * x)


def test_a_kept_method_changing_its_object_is_refused():
    model = _Recorder()
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"calls `store`, which changes an object it does not "
                                                                r"make: `self.buf\[:\] = a \* 2.0`"):
        srcgrad.grad(model.loss)(np.array([1.0, 2.0, 3.0]))


def _records(v):
    _HELD.buf[:] = v


def _make_recording_caller(k):
    def caller(a):
        _records(a)  # changes `_HELD.buf` through a further call
        return a * k

    return caller


_recording_caller = _make_recording_caller(2.0)


def test_a_change_of_an_object_through_a_further_call_is_found():
    assert {name: w.text for name, w in argument_writes.parameters(_recording_caller).items()} == {
        argument_writes.STATE: "_records(a)  # changes `_HELD.buf` through a further call"}
