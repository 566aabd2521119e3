"""Crusade & Conquer (docs/crusade.md, RULINGS H1-H9) on the engine's kernel: its pieces are a unit
catalog (engine/data/crusade_units.toml) whose board carries levels and X squares, moved by the one
generator; ``engine.crusade.position`` reads and writes positions and counts perft in the kernel;
``engine.crusade.state`` is the game (the state protocol, the end, records) that ``entry`` registers."""
