"""Which of several equal entries PyTorch's CPU `topk` and `kthvalue` pick.

Among ties the choice is whatever the algorithm leaves in place, and the gradient
goes to the index it picks, so a stable order is not enough. PyTorch's `sort`
(stable=False) and `mode` run libstdc++'s `std::sort` over (value, index) pairs (an
insertion sort, so stable, up to 16 entries); `topk` runs `std::nth_element` (then
`std::sort` on the first k - 1), or `std::partial_sort` when k * 64 <= n; `kthvalue`
runs the quickselect of SortingUtils.h (Sedgewick's). All compare values only, NaN
above every number (`mode`: plain `<`). The functions below replay those algorithms
step by step on a line; a line without ties has one answer, so only lines with ties
(or an unsorted topk) are replayed, up to REPLAYED entries per call.
"""

import numpy as np

__all__ = ["sort_order", "topk_order", "kthvalue_index", "mode_index", "mode_indices", "REPLAYED"]

_SMALL_SORT = 16  # libstdc++'s _S_threshold

# The replay runs in Python, about 3 us per entry: a call replays at most this many
# entries, and larger ones keep the stable order (the gradient then goes to another of the
# equal entries than PyTorch's), so sorting a million tied entries costs what NumPy's does.
REPLAYED = 4096


def _nan_above(x, y):
    """x above y: NaN is above every number (PyTorch's `gt_or_nan`)."""
    return (x != x and y == y) or x > y


def _nan_below(x, y):
    return (x == x and y != y) or x < y


class _Line:
    """A list of (value, index) pairs and a `before(i, j)` order on positions, with the
    libstdc++ algorithms PyTorch calls, written as their source reads."""

    def __init__(self, values, before):
        self.a = [(v, i) for i, v in enumerate(values)]
        self.cmp = before

    def less(self, i, j):
        return self.cmp(self.a[i][0], self.a[j][0])

    def swap(self, i, j):
        a = self.a
        a[i], a[j] = a[j], a[i]

    # heaps (bits/stl_heap.h)
    def _adjust_heap(self, first, hole, length, value):
        a, cmp = self.a, self.cmp
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if cmp(a[first + child][0], a[first + child - 1][0]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and cmp(a[first + parent][0], value[0]):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def _make_heap(self, first, last):
        length = last - first
        if length < 2:
            return
        parent = (length - 2) // 2
        while True:
            self._adjust_heap(first, parent, length, self.a[first + parent])
            if parent == 0:
                return
            parent -= 1

    def _pop_heap(self, first, last, result):
        value = self.a[result]
        self.a[result] = self.a[first]
        self._adjust_heap(first, 0, last - first, value)

    def heap_select(self, first, middle, last):
        self._make_heap(first, middle)
        for i in range(middle, last):
            if self.less(i, first):
                self._pop_heap(first, middle, i)

    def sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self._pop_heap(first, last, last)

    def partial_sort(self, first, middle, last):
        self.heap_select(first, middle, last)
        self.sort_heap(first, middle)

    # partitions and insertion sorts (bits/stl_algo.h)
    def _move_median_to_first(self, result, a, b, c):
        less = self.less
        if less(a, b):
            if less(b, c):
                self.swap(result, b)
            elif less(a, c):
                self.swap(result, c)
            else:
                self.swap(result, a)
        elif less(a, c):
            self.swap(result, a)
        elif less(b, c):
            self.swap(result, c)
        else:
            self.swap(result, b)

    def _unguarded_partition(self, first, last, pivot):
        less = self.less
        while True:
            while less(first, pivot):
                first += 1
            last -= 1
            while less(pivot, last):
                last -= 1
            if not first < last:
                return first
            self.swap(first, last)
            first += 1

    def _partition_pivot(self, first, last):
        mid = first + (last - first) // 2
        self._move_median_to_first(first, first + 1, mid, last - 1)
        return self._unguarded_partition(first + 1, last, first)

    def _linear_insert(self, i):
        a, cmp = self.a, self.cmp
        value = a[i]
        j = i - 1
        while cmp(value[0], a[j][0]):
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = value

    def insertion_sort(self, first, last):
        if first == last:
            return
        for i in range(first + 1, last):
            if self.cmp(self.a[i][0], self.a[first][0]):
                value = self.a[i]
                self.a[first + 1:i + 1] = self.a[first:i]
                self.a[first] = value
            else:
                self._linear_insert(i)

    def nth_element(self, first, nth, last):
        if first == last or nth == last:
            return
        depth = 2 * ((last - first).bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.swap(first, nth)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)

    def _introsort_loop(self, first, last, depth):
        while last - first > _SMALL_SORT:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort_loop(cut, last, depth)
            last = cut

    def sort(self, first, last):
        if first == last:
            return
        self._introsort_loop(first, last, 2 * ((last - first).bit_length() - 1))
        if last - first > _SMALL_SORT:
            self.insertion_sort(first, first + _SMALL_SORT)
            for i in range(first + _SMALL_SORT, last):
                self._linear_insert(i)
        else:
            self.insertion_sort(first, last)


def _topk_line(line, k, largest, ordered):
    """The indices PyTorch's CPU topk returns for the 1-D array `line`."""
    work = _Line(line.tolist(), _nan_above if largest else _nan_below)
    n = len(line)
    if k * 64 <= n:
        work.partial_sort(0, k, n)
    else:
        work.nth_element(0, k - 1, n)
        if ordered:
            work.sort(0, k - 1)
    return [i for _, i in work.a[:k]]


def _replayed(x, axis, order, replay, line_order):
    """`order` (indices along `axis`) with each line where `replay` (keepdims) holds set to
    `line_order(line)`; `order` itself where those lines hold more than REPLAYED entries."""
    if np.count_nonzero(replay) * x.shape[axis] > REPLAYED:
        return order
    lines = np.moveaxis(x, axis, -1)
    out = np.moveaxis(order, axis, -1).copy()
    for at in np.argwhere(np.moveaxis(replay, axis, -1)[..., 0]):
        out[tuple(at)] = line_order(lines[tuple(at)])
    return np.moveaxis(out, -1, axis)


def _sorted_line(line, before):
    work = _Line(line.tolist(), before)
    work.sort(0, len(line))
    return [i for _, i in work.a]


def sort_order(x, axis, descending, stable_order):
    """The order along `axis` of PyTorch's CPU `sort(axis, descending)` (stable=False) of
    the array `x`; `stable_order` (NaN largest) gives every line of 16 entries or fewer,
    and every line without ties."""
    if x.shape[axis] <= _SMALL_SORT:
        return stable_order
    ties = _has_ties(x, axis)
    if not ties.any():
        return stable_order
    before = _nan_above if descending else _nan_below
    return _replayed(x, axis, stable_order, ties, lambda line: _sorted_line(line, before))


def mode_indices(lines):
    """The index PyTorch's CPU `mode` gives for each row of the 2-D array `lines` (see
    `mode_index`); beyond REPLAYED entries, the last occurrence of the smallest of the most
    frequent values."""
    if lines.size <= REPLAYED:
        return [mode_index(line) for line in lines]
    return [_last_of_mode(line) for line in lines]


def _last_of_mode(line):
    values, counts = np.unique(line, return_counts=True)
    value = values[np.argmax(counts)]
    return np.flatnonzero((line == value) | (np.isnan(line) & np.isnan(value)))[-1]


def mode_index(line):
    """The index PyTorch's CPU `mode` gives for the 1-D array `line`: `std::sort` with
    `<`, then the last entry of the first longest run of equal values."""
    order = _sorted_line(line, lambda x, y: x < y)
    values = line[order].tolist()
    best, best_count, count = 0, 0, 0
    for i, value in enumerate(values):
        count += 1
        if i == len(values) - 1 or value != values[i + 1]:
            if count > best_count:
                best, best_count = order[i], count
            count = 0
    return best


def _has_ties(x, axis):
    """Per line along `axis` (keepdims): whether two entries are equal (NaNs count as equal)."""
    s = np.moveaxis(np.sort(x, axis=axis), axis, -1)
    same = s[..., 1:] == s[..., :-1]
    if x.dtype.kind in "fc":
        same = same | (np.isnan(s[..., 1:]) & np.isnan(s[..., :-1]))
    return np.moveaxis(same.any(axis=-1, keepdims=True), -1, axis)


def topk_order(x, axis, k, largest, ordered, stable_order):
    """The indices (along `axis`, k of them) of PyTorch's CPU `topk(k, axis, largest,
    sorted=ordered)` of the array `x`; `stable_order` is x's stable order along `axis`,
    largest first when `largest`, which gives every line without ties (a sorted topk)."""
    order = np.take(stable_order, np.arange(k), axis=axis)
    if k == 0 or x.shape[axis] == 0:
        return order
    replay = np.ones(order.shape[:axis] + (1,) + order.shape[axis + 1:], bool) if not ordered else _has_ties(x, axis)
    if not replay.any():
        return order
    return _replayed(x, axis, order, replay, lambda line: _topk_line(line, k, largest, ordered))


def _kth_line(line, k):
    """The index PyTorch's CPU kthvalue (SortingUtils.h quick_select_template, `k`
    counted from 0) picks in the 1-D array `line`."""
    values = line.tolist()
    index = list(range(len(values)))
    gt = _nan_above

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        index[i], index[j] = index[j], index[i]

    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return index[k]
        if right == left + 1:
            if gt(values[left], values[right]):
                swap(left, right)
            return index[k]
        swap((left + right) >> 1, left + 1)
        if gt(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt(values[left], values[right]):
            swap(left, right)
        if gt(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, values[left]
        while True:
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def kthvalue_index(x, axis, k, stable_order):
    """The index (keepdims along `axis`) of PyTorch's CPU `kthvalue(k, axis)` of the
    array `x`; `stable_order` is x's stable ascending order along `axis`, which gives
    every line without ties."""
    at = np.take(stable_order, [k - 1], axis=axis)
    ties = _has_ties(x, axis)
    if not ties.any():
        return at
    return _replayed(x, axis, at, ties, lambda line: _kth_line(line, k - 1))
