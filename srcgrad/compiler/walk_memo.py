"""Answers about the user's functions kept while one walk over their calls lasts.

A walk (what a function does to its parameters, which operators it applies to them)
reads each function it reaches; a function called along many paths (the pullbacks a
derivative of a derivative calls) is read once per walk. An answer that met a
recursion depends on where the walk began, so it is not kept. Nothing outlives the
outermost walk: the user may change a function between two derivations.
"""


class WalkMemo:
    """One memo per analysis; `with memo:` opens a walk (nested walks share the
    outermost's answers, which go when it ends)."""

    __slots__ = ("_answers", "_depth", "_cuts")

    def __init__(self):
        self._answers = None  # {key: answer} while a walk runs
        self._depth = 0  # how many walks are open
        self._cuts = 0  # how many times a walk met a recursion

    def __enter__(self):
        if not self._depth:
            self._answers = {}
        self._depth += 1
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if not self._depth:
            self._answers = None
        return False

    def cut(self):
        """Note that the walk met a recursion: answers being computed are not kept."""
        self._cuts += 1

    def remembered(self, key, fn, compute):
        """`compute()`, the answer for the function `fn` under `key`, kept while the walk
        lasts unless computing it met a recursion; computed each time outside a walk."""
        if self._answers is None:
            return compute()
        found = self._answers.get(key)
        if found is not None and found[0] is fn:
            return found[1]
        cuts = self._cuts
        value = compute()
        if self._cuts == cuts:
            self._answers[key] = (fn, value)
        return value

    def get(self, key):
        """A fact kept under `key` during this walk (not about one function: no recursion
        bears on it), or None."""
        return self._answers.get(key) if self._answers is not None else None

    def put(self, key, value):
        if self._answers is not None:
            self._answers[key] = value
