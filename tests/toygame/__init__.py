"""A third game written only against engine/games (the state protocol and the registry): tic-tac-toe.
It proves the seam (issue 24): the interfaces play it without knowing it. ``entry`` registers it;
a subprocess `ftc` loads it with ``FTC_GAMES=tests.toygame.entry`` (docs/architecture.md, "How to
add a game")."""
