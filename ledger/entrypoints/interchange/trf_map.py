"""A `--map` file for `import trf`: TRF starting ranks or FIDE ids → member ids (CSV or JSON)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ledger.errors import InvalidCommand
from ledger.inputs import read_text
from ledger.text import digits


@dataclass(frozen=True)
class IdMap:
    """A `--map` file: TRF starting ranks and FIDE ids → member ids."""

    by_start: Mapping[int, str]
    by_fide_id: Mapping[str, str]


def read_map(path: Path) -> IdMap:
    """A JSON object `{"start": {"1": "12345678"}, "fide_id": {"2000001": "30000001"}}`, or a
    CSV of `start, member id` rows (a header line `fide_id,member_id` makes them FIDE ids)."""
    text = read_text(path, "map", "utf-8-sig")
    if text.lstrip().startswith("{"):
        return _json_map(path, text)
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    keys: dict[str, str] = {}
    kind = "start"
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if len(cells) < 2 or not cells[1]:
            raise InvalidCommand((), f"{path} line {number}: expected starting rank, member id")
        if not digits(cells[0]):
            if not keys and number == 1:
                kind = "fide_id" if cells[0].lower().replace(" ", "_") == "fide_id" else "start"
                continue
            what = "a starting rank" if kind == "start" else "a FIDE id"
            raise InvalidCommand((), f"{path} line {number}: {cells[0]!r} is not {what}")
        if cells[0] in keys:
            raise InvalidCommand((), f"{path} line {number}: {kind} {cells[0]} is twice")
        keys[cells[0]] = cells[1]
    return _id_map(path, {kind: keys})


def _json_map(path: Path, text: str) -> IdMap:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidCommand(
            (), f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    unknown = [k for k in data if k not in ("start", "fide_id")]
    if unknown:
        raise InvalidCommand((), f"{path}: {unknown[0]!r} is not start or fide_id")
    for kind, keys in data.items():
        if not isinstance(keys, dict) or not all(
            isinstance(k, str) and digits(k) and isinstance(v, str) and v for k, v in keys.items()
        ):
            raise InvalidCommand((), f"{path}: {kind} must map numbers to member ids")
    return _id_map(path, data)


def _id_map(path: Path, data: Mapping[str, Mapping[str, str]]) -> IdMap:
    by_start = {int(k): v for k, v in data.get("start", {}).items()}
    if 0 in by_start:
        raise InvalidCommand((), f"{path}: starting rank 0 is not 1-9999")
    return IdMap(by_start, dict(data.get("fide_id", {})))
