"""The ledger's Merkle tree, as RFC 9162 §2.1 (Certificate Transparency 2.0) defines it.

Leaves are the ledger's entries in order (leaf i = entry i+1's signed message); a leaf's hash is
SHA-256(0x00 || data), an inner node's SHA-256(0x01 || left || right), the tree over n leaves
splits at the largest power of two below n (§2.1.1). Inclusion proofs (§2.1.3) show an entry is
in the tree of a checkpoint; consistency proofs (§2.1.4) show a later tree extends an earlier one,
so anyone holding an old checkpoint detects a rewritten past.

Nodes are addressed as perfect subtrees: (level, index) covers leaves [index·2^level,
(index+1)·2^level). Every hash here is computed from a `Nodes` source that returns the stored hash
of a perfect subtree, so proofs cost O(log n) stored lookups, never a pass over the ledger.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

Nodes = Callable[[int, int], bytes]  # (level, index) → the hash of that perfect subtree

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """§2.1.1: MTH({d(0)}) = SHA-256(0x00 || d(0))."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """§2.1.1: SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree(nodes: Nodes, start: int, end: int) -> bytes:
    """MTH(D[start:end]) from stored perfect subtrees; `start` is a multiple of the left part's
    size (as every range the RFC's algorithms ask for is)."""
    n = end - start
    if n == 0:
        return EMPTY_ROOT
    if n & (n - 1) == 0 and start % n == 0:
        level = n.bit_length() - 1
        return nodes(level, start >> level)
    k = split(n)
    return node_hash(subtree(nodes, start, start + k), subtree(nodes, start + k, end))


def root(nodes: Nodes, size: int) -> bytes:
    """The tree head of the first `size` leaves."""
    return subtree(nodes, 0, size)


def inclusion_proof(nodes: Nodes, index: int, size: int) -> list[bytes]:
    """§2.1.3.1 PATH(m, D[0:n]): the audit path of leaf `index` in the tree of `size` leaves."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = split(end - start)
        if index < start + k:
            path.append(subtree(nodes, start + k, end))
            end = start + k
        else:
            path.append(subtree(nodes, start, start + k))
            start += k
    return path[::-1]


def consistency_proof(nodes: Nodes, old: int, new: int) -> list[bytes]:
    """§2.1.4.1 PROOF(m, D[0:n]): the nodes that show the tree of `old` leaves is a prefix of
    the tree of `new` leaves."""
    if not 0 < old <= new:
        raise ValueError(f"no consistency proof from {old} to {new} leaves")
    if old == new:
        return []
    return _subproof(nodes, old, 0, new, True)


def _subproof(nodes: Nodes, m: int, start: int, end: int, whole: bool) -> list[bytes]:
    n = end - start
    if m == n:
        return [] if whole else [subtree(nodes, start, end)]
    k = split(n)
    if m <= k:
        return [*_subproof(nodes, m, start, start + k, whole), subtree(nodes, start + k, end)]
    return [*_subproof(nodes, m - k, start + k, end, False), subtree(nodes, start, start + k)]


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected_root: bytes
) -> bool:
    """§2.1.3.2: does `proof` place the leaf hash `leaf` at `index` in the tree `expected_root`?"""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == expected_root


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """§2.1.4.2: does `proof` show the tree `new_root` (of `new` leaves) extends `old_root`?"""
    if not 0 < old <= new:
        return False
    if old == new:
        return not proof and old_root == new_root
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is the first node itself
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == old_root and sr == new_root


class Frontier:
    """The right edge of a growing tree (one perfect subtree per set bit of its size): appends a
    leaf in O(log n) and gives the root at any size, and the perfect subtrees each append
    completes (what a store keeps, so proofs need no pass over the ledger)."""

    __slots__ = ("size", "stack")

    def __init__(self, size: int = 0, stack: Sequence[bytes] = ()) -> None:
        self.size = size
        self.stack = list(stack)  # hashes of the perfect subtrees, largest (leftmost) first

    @classmethod
    def at(cls, nodes: Nodes, size: int) -> Frontier:
        """The frontier of the first `size` leaves, from stored perfect subtrees."""
        stack, start = [], 0
        for level in range(size.bit_length() - 1, -1, -1):
            if size >> level & 1:
                stack.append(nodes(level, start >> level))
                start += 1 << level
        return cls(size, stack)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf hash; the (level, index, hash) of every perfect subtree it completes."""
        made = [(0, self.size, leaf)]
        h, level, index = leaf, 0, self.size
        while index & 1:
            h = node_hash(self.stack.pop(), h)
            level, index = level + 1, index >> 1
            made.append((level, index, h))
        self.stack.append(h)
        self.size += 1
        return made

    def root(self) -> bytes:
        if not self.stack:
            return EMPTY_ROOT
        h = self.stack[-1]
        for left in reversed(self.stack[:-1]):
            h = node_hash(left, h)
        return h

    def copy(self) -> Frontier:
        return Frontier(self.size, self.stack)
