"""Search: alpha-beta for board positions (Point-Buy Chess, perft's tree) and information-set MCTS
for the full card game."""
