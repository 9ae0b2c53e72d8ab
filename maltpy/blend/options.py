"""What ``maltpy blend``'s options may say, apart from blend.py, which imports NumPy: the command
line builds its options from these when it starts, whatever command it runs, and a parse's main
process with ``--jobs`` never imports NumPy (jobs.py)."""

#: --weights: what the members' arcs score (blend.Weights)
WEIGHTINGS = ("learned", "pos", "model", "equal")
#: --decoder: the tree over the scores (decode.spanning_tree)
DECODERS = ("non-projective", "projective")
