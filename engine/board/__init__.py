"""The board search of every game on the board kernel: alpha-beta (alphabeta.py), its evaluation
(evaluate.py; the learned one: nnue.py, nnue_data.py, nnue_train.py), time management (timeman.py)
and the analysis of board positions (analysis.py)."""
