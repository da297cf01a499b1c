"""registry.bind_arguments places a call's arguments once per call shape: it must give
what `inspect.Signature.bind` gives (with and without `apply_defaults`), the same
objects in the same order, and raise the same TypeError where that raises."""

import inspect
import itertools

import pytest

from srcgrad.rules import registry

_EXTRA = [
    inspect.signature(lambda a, b=2, *rest, c, d=5, **more: None),
    inspect.signature(lambda a, /, b, *, c=1: None),
]


def _bound(signature, args, kwargs, defaults):
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        return "error", str(exc)
    if defaults:
        bound.apply_defaults()
    return "bound", list(bound.arguments.items())


def _placed(signature, args, kwargs, defaults):
    try:
        return "bound", list(registry.bind_arguments(signature, args, kwargs, defaults).items())
    except TypeError as exc:
        return "error", str(exc)


def _same(a, b):
    if a[0] != b[0] or a[0] == "error":
        return a == b
    return [k for k, _ in a[1]] == [k for k, _ in b[1]] and all(
        x is y or (type(x) in (tuple, dict) and type(x) is type(y) and x == y) for (_, x), (_, y) in zip(a[1], b[1]))


@pytest.mark.parametrize("defaults", [False, True])
def test_bind_arguments_is_signature_bind(defaults):
    signatures = [rule.signature for rule in registry.all_rules()] + _EXTRA
    for signature in signatures:
        names = list(signature.parameters)[:4] + ["out", "not_a_parameter"]
        for count in range(5):
            for keywords in itertools.chain([()], itertools.combinations(names, 1), itertools.combinations(names[:3], 2)):
                args, kwargs = tuple(object() for _ in range(count)), {k: object() for k in keywords}
                want = _bound(signature, args, kwargs, defaults)
                for _ in range(2):  # worked out, then taken from the table
                    assert _same(_placed(signature, args, kwargs, defaults), want), (signature, count, keywords)
