"""Irish Chess Union rules: the 2005 text ("icu-2005"), the practice from 1999 ("icu-1999") and
its algorithm versions 1.1–1.3 ("icu-2012", "icu-2013", "icu-2014"), by section date."""

REGULAR_FROM = 30  # mm + ss: the ledger rates ICU games at a regular time control (decisions)


def section_not_rated(total: float | None, online: bool) -> str | None:
    """Why the ICU rates none of a section's games (None: they are rated)."""
    if online:
        return "played online: the ICU rates over-the-board games"
    if total is None:
        return "the report gives no time control: the ICU rates games at a regular time control"
    if total < REGULAR_FROM:
        return f"mm + ss = {total:g}: the ICU rates games of {REGULAR_FROM} minutes or more"
    return None
