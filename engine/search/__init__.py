"""The generic search, for any registered game through the state protocol: information-set MCTS
(ismcts.py; a game's pieces come from its registry entry), matches between bots (match.py) and the
statistics the games' reports share (stats.py). It imports no game. The board search (alpha-beta,
its evaluations, NNUE) is engine/board; a game's own AI lives in its package (For the Crown's:
engine/crown)."""
