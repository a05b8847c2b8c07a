"""§1/§2/§4.1's "all wins / all losses in all previous rated games" status of a player."""

from __future__ import annotations

from typing import Final

MIXED: Final = "mixed"
ALL_WINS: Final = "all_wins"
ALL_LOSSES: Final = "all_losses"


def history_after(rated: bool, history: str, m: int, wins: int, losses: int) -> str:
    """The status after m more rated games with `wins` and `losses` among them; `rated` and
    `history` describe the player before (an unrated player, or N = 0, has no history yet)."""
    if not rated:
        return ALL_WINS if wins == m else ALL_LOSSES if losses == m else MIXED
    if history == ALL_WINS and wins == m:
        return ALL_WINS
    if history == ALL_LOSSES and losses == m:
        return ALL_LOSSES
    return MIXED
