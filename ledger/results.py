"""Game result strings shared by every command: '1-0', '0-1', '1/2-1/2' (or '½-½')."""

RATED_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5}


def white_score(result: str) -> float:
    """White's score for a rated result string."""
    try:
        return RATED_RESULTS[result]
    except KeyError:
        raise ValueError(f"{result!r} is not one of 1-0, 0-1, 1/2-1/2, ½-½") from None
