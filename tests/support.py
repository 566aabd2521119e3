"""Helpers shared by the test modules of this folder (imported as `support`)."""


def board_text(units: dict[str, str]) -> str:
    """{"d4": "Q", "h8": "k", ...} -> the board field of a position text (ranks 8..1)."""
    rows = []
    for rank in range(8, 0, -1):
        row, empty = "", 0
        for file in "abcdefgh":
            token = units.get(f"{file}{rank}")
            if token is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += token
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)
