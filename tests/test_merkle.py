"""The ledger's Merkle tree (ledger/evidence/merkle.py) against RFC 9162 §2.1 and Certificate
Transparency's published test vectors (merkle_tree_test.cc), and against a direct transcription
of the RFC's recursive definitions for every size and every pair of sizes up to 70."""

from __future__ import annotations

import hashlib

import pytest

from ledger.evidence import merkle

# CT's test leaves and the roots of their first 1..8 (merkle_tree_test.cc, kSHA256Roots)
LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
]
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf, size, path) and (old, new, proof) from the same file
INCLUSION = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]
CONSISTENCY = [
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]


def stored(leaves: list[bytes]) -> merkle.Nodes:
    """A store of perfect subtrees, filled by appending the leaves one by one."""
    frontier, nodes = merkle.Frontier(), {}
    for data in leaves:
        for level, index, h in frontier.append(merkle.leaf_hash(data)):
            nodes[(level, index)] = h
    return lambda level, index: nodes[(level, index)]


# RFC 9162 §2.1.1, §2.1.3.1 and §2.1.4.1, transcribed as written (recursive, over the data)
def mth(d: list[bytes]) -> bytes:
    if not d:
        return hashlib.sha256(b"").digest()
    if len(d) == 1:
        return merkle.leaf_hash(d[0])
    k = merkle.split(len(d))
    return merkle.node_hash(mth(d[:k]), mth(d[k:]))


def path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = merkle.split(len(d))
    if m < k:
        return [*path(m, d[:k]), mth(d[k:])]
    return [*path(m - k, d[k:]), mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    if m == len(d):
        return [] if b else [mth(d)]
    k = merkle.split(len(d))
    if m <= k:
        return [*subproof(m, d[:k], b), mth(d[k:])]
    return [*subproof(m - k, d[k:], False), mth(d[:k])]


DATA = [f"entry {i}".encode() for i in range(70)]
NODES = stored(DATA)


@pytest.mark.parametrize("size", range(1, 9))
def test_the_roots_of_the_first_eight_leaves_are_cts_published_roots(size):
    # §2.1.1 MTH over CT's leaves: kSHA256Roots
    assert merkle.root(stored(LEAVES[:size]), size).hex() == ROOTS[size - 1]
    frontier = merkle.Frontier()
    for data in LEAVES[:size]:
        frontier.append(merkle.leaf_hash(data))
    assert frontier.root().hex() == ROOTS[size - 1]


def test_the_empty_tree_is_the_hash_of_nothing():
    # §2.1.1: "The hash of an empty list is the hash of an empty string"
    assert merkle.root(stored([]), 0).hex() == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


@pytest.mark.parametrize(("index", "size", "expected"), INCLUSION)
def test_inclusion_proofs_are_cts_published_paths(index, size, expected):
    nodes = stored(LEAVES)
    proof = merkle.inclusion_proof(nodes, index, size)
    assert [p.hex() for p in proof] == expected
    root = bytes.fromhex(ROOTS[size - 1])
    assert merkle.verify_inclusion(merkle.leaf_hash(LEAVES[index]), index, size, proof, root)


@pytest.mark.parametrize(("old", "new", "expected"), CONSISTENCY)
def test_consistency_proofs_are_cts_published_proofs(old, new, expected):
    nodes = stored(LEAVES)
    proof = merkle.consistency_proof(nodes, old, new)
    assert [p.hex() for p in proof] == expected
    old_root, new_root = bytes.fromhex(ROOTS[old - 1]), bytes.fromhex(ROOTS[new - 1])
    assert merkle.verify_consistency(old, new, old_root, new_root, proof)


@pytest.mark.parametrize("size", range(1, len(DATA) + 1))
def test_every_leaf_of_every_size_has_the_rfcs_path_and_it_verifies(size):
    # §2.1.3: PATH(m, D[n]) for every m < n; a changed leaf, index or root fails
    root = mth(DATA[:size])
    assert merkle.root(NODES, size) == root
    for m in range(size):
        proof = merkle.inclusion_proof(NODES, m, size)
        assert proof == path(m, DATA[:size])
        leaf = merkle.leaf_hash(DATA[m])
        assert merkle.verify_inclusion(leaf, m, size, proof, root)
        assert not merkle.verify_inclusion(merkle.leaf_hash(b"forged"), m, size, proof, root)
        if size > 1:
            assert not merkle.verify_inclusion(leaf, (m + 1) % size, size, proof, root)


@pytest.mark.parametrize("new", range(1, len(DATA) + 1))
def test_every_pair_of_sizes_has_the_rfcs_consistency_proof_and_it_verifies(new):
    # §2.1.4: PROOF(m, D[n]) for every 0 < m <= n; a rewritten old tree fails
    new_root = mth(DATA[:new])
    for old in range(1, new + 1):
        proof = merkle.consistency_proof(NODES, old, new)
        assert proof == (subproof(old, DATA[:new], True) if old < new else [])
        old_root = mth(DATA[:old])
        assert merkle.verify_consistency(old, new, old_root, new_root, proof)
        rewritten = mth([b"rewritten", *DATA[1:old]])
        assert not merkle.verify_consistency(old, new, rewritten, new_root, proof)
        if old < new:
            assert not merkle.verify_consistency(old, new, old_root, mth(DATA[: new - 1]), proof)


def test_a_frontier_read_back_from_stored_nodes_continues_the_same_tree():
    # the store's subtrees give the right edge at any size: appending goes on identically
    for size in range(len(DATA)):
        frontier = merkle.Frontier.at(NODES, size)
        assert frontier.root() == mth(DATA[:size])
        frontier.append(merkle.leaf_hash(DATA[size]))
        assert frontier.root() == mth(DATA[: size + 1])
