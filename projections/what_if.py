"""A replay under other rules (`what-if`): the read model it builds records it in `meta`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WhatIf:
    """A replay under other rules: a version for every section, and extra amendments."""

    rules: str | None = None
    amendments: tuple[dict[str, Any], ...] = ()
    without_uplift: bool = False  # FIDE: the lists as if no uplift had been recorded

    def to_json(self) -> str:
        data: dict[str, Any] = {"rules": self.rules, "amendments": list(self.amendments)}
        if self.without_uplift:
            data["without_uplift"] = True
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> WhatIf:
        data = json.loads(text)
        return cls(data["rules"], tuple(data["amendments"]), data.get("without_uplift", False))

    @property
    def uplift(self) -> bool:
        return not self.without_uplift

    def __str__(self) -> str:
        parts = [f"rules {self.rules}"] if self.rules else []
        parts += ["without the FIDE uplift"] if self.without_uplift else []
        parts += [
            f"{a['parameter']}={a['value']}@{a['effective']}"
            + (f"..{a['until']}" if a.get("until") else "")
            for a in self.amendments
        ]
        return "what-if " + ", ".join(parts)
