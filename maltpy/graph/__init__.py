"""Graph-based dependency parsing (``-a mst``): McDonald, Crammer & Pereira (2007), "Global
Inference and Learning Algorithms for Multi-Lingual Dependency Parsing", in the ESSLLI 2007
course reader (../shared/papers), as MSTParser 0.5 implements it.

A tree's score is the sum of the scores of its parts, arcs (first order, §3) or arcs with the
sibling before them (second order, §4); each part's score is the weights of its features
(§5, Table 1; morphology §8.2) summed. The best tree comes from the decoders of maltpy/decode.py
(Eisner's algorithm or Chu-Liu-Edmonds), its labels from the same weights (§7). Learning is
MIRA over the k best trees (§2), averaged. This package is the one home of the algorithm:
features.py (the feature templates and their indices), learn.py (MIRA) and model.py (the
parser and its archive); config.Mst holds the options under MSTParser's names.
"""

#: The graph-based parsing algorithms, beside transition.SYSTEMS' transition systems.
GRAPH_ALGORITHMS = ("mst",)
#: The largest ``mst.training_k``: MIRA's constraints from this many best trees.
MAX_TRAINING_K = 20


def is_graph_based(algorithm: str) -> bool:
    """Whether ``algorithm`` (singlemalt.parsing_algorithm) is graph-based, not a transition system."""
    return algorithm in GRAPH_ALGORITHMS
