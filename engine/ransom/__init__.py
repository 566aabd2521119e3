"""King's Ransom (docs/kings-ransom.md, RULINGS G1-G8) on the For the Crown engine: the same unit
catalog format, kernel tables and generator on a 3x6 arena, and a game state with the same search
interface (``RansomState``)."""
