"""What ``maltpy blend``'s options may say, apart from the blend's other rooms, which import
NumPy: the command line builds its options from these when it starts, whatever command it runs,
and a parse's main process with ``--jobs`` never imports NumPy (jobs.py)."""

#: --weights: what the members' arcs score (weights.Weights)
WEIGHTINGS = ("learned", "pos", "model", "equal")
#: --decoder: the tree over the scores (decode.spanning_tree)
DECODERS = ("non-projective", "projective")
