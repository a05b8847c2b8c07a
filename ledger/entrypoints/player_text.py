"""What `player` prints, for the fast read path (ledger/entrypoints/quick.py) and the full
command (cli/reads.py) alike: light enough to import before the command line is."""

from __future__ import annotations

import json
from typing import Any


def player_lines(out: dict[str, Any], as_json: bool) -> list[str]:
    """What `player` prints (as a table, or --json) for `queries.player`'s answer with the
    player's card under "card"."""
    if as_json:
        return [json.dumps(out, indent=2, ensure_ascii=False)]
    from ledger.text import shown

    lines = [shown(_card_line(out["id"], out.get("name"), out.get("card") or {}))]
    joined = out.get("merged_into")
    if joined:  # a record merged away (issue 20): where its games and ratings went
        who = " ".join(x for x in (joined["id"], joined.get("name")) if x)
        lines.append(
            shown(
                f"  merged into {who} at position {joined['position']}"
                + (f" ({joined['reason']})" if joined.get("reason") else "")
                + f": its record is `player {joined['id']}`"
            )
        )
    if out.get("merged"):
        lines.append(shown(f"  merged into this record: {', '.join(out['merged'])}"))
    said = system_words(out.get("family"), [*out["ratings"], *out.get("unrated", {})])
    width = max([5, *map(len, said.values())])
    lines += [_rating_line(said[s].ljust(width), r) for s, r in out["ratings"].items()]
    return lines + [f"  {said[s]:<{width}} {text}" for s, text in out.get("unrated", {}).items()]


def system_words(family: str | None, systems: list[str]) -> dict[str, str]:
    """Each of `systems` as its family calls it to a reader (`Words.systems`: "FIDE rapid");
    the codes stay in --json and in `--system` values."""
    from ledger.rules.families import known

    rules = known(family) if family is not None else None
    return {s: rules.words.system(s) if rules is not None else s for s in systems}


def _card_line(player_id: str, name: str | None, card: dict[str, Any]) -> str:
    """`14700011  GM Sokolov, Ivan  (BIH, born 1965, Lakeside CC)`: the card's heading."""
    titled = " ".join(x for x in (card.get("title"), name) if x)
    born = card.get("birth_year") and f"born {card['birth_year']}"
    more = [x for x in (card.get("federation"), born, card.get("club")) if x]
    return f"{player_id}  {titled}" + (f"  ({', '.join(more)})" if more else "")


def _rating_line(system: str, r: dict[str, Any]) -> str:
    """One system's line of `player` (`system`: its name, padded); a family with US Chess
    floors says whether a rating is established (its `ratings` columns), the others have no
    such column."""
    established = r.get("established")
    flag = f"  (P{r['games']})" if established is False else ""
    # US Chess: floor and ceiling (§5, §7); FIDE and ICU: K (10.641, 8.3.3) and the date
    # of the last change (a FIDE list's date once lists are published).
    tail = (
        f"  floor={r['floor']} ({r['floor_bound']})"
        + (f"  ceiling={r['ceiling']}" if r["ceiling"] is not None else "")
        if established is not None
        else f"  K={_k(r.get('k'))}  rated on {r['rated_on']}"
    )
    official = "unrated" if r["official_rating"] is None else r["official_rating"]
    return (
        f"  {system} {official:>5}{flag}  N={r['games']}{earlier_games(r)}  "
        f"W/D/L={r['wins']}/{r['draws']}/{r['losses']}" + tail
    )


def earlier_games(r: dict[str, Any]) -> str:
    """` (earlier games not known)` after N where the family says his games before the
    ledger are not known (FIDE: a rating published without a count; its `earlier_games`)."""
    said = r.get("earlier_games")
    return f" (earlier games {said})" if said else ""


def _k(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
