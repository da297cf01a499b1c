"""The same random draws at every pass of a transform that runs a function more than once.

A forward-mode Jacobian (and so a Hessian, forward over reverse, and `grad` of a
gradient) pushes one tangent per input element where it cannot linearize, and each
push runs the function's primal statements again. A function that draws random
numbers (srcgrad differentiates NumPy's samplers pathwise, rules/sampling.py; draws of
no derivative are constants to it) would draw anew at every push, and each column
would belong to another draw. `SameDraws(args)` starts every pass from the random state
the first one started from: NumPy's global state, and a copy of each `Generator` or
`RandomState` argument; `finish()` leaves the caller's generators where one pass left
them, as one run of the function would.
"""

import copy

import numpy as np

_GENERATORS = (np.random.Generator, np.random.RandomState)


class SameDraws:
    def __init__(self, args):
        self.args = args
        self.places = [i for i, a in enumerate(args) if isinstance(a, _GENERATORS)]
        self.state = np.random.get_state()
        self.last = None

    def args_for_pass(self):
        """The arguments of the next pass, NumPy's global random state set back to the first's."""
        np.random.set_state(self.state)
        if not self.places:
            return self.args
        args = list(self.args)
        for i in self.places:
            args[i] = copy.deepcopy(self.args[i])
        self.last = args
        return type(self.args)(args) if isinstance(self.args, tuple) else args

    def finish(self):
        """Leave each generator argument where the last pass left its copy."""
        for i in self.places if self.last is not None else ():
            mine, used = self.args[i], self.last[i]
            if isinstance(mine, np.random.Generator):
                mine.bit_generator.state = used.bit_generator.state
            else:
                mine.set_state(used.get_state())
