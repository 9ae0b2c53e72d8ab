"""Graph-based dependency parsing (``-a mst``): McDonald, Crammer & Pereira (2007), "Global
Inference and Learning Algorithms for Multi-Lingual Dependency Parsing", in the ESSLLI 2007
course reader (../shared/papers), as MSTParser 0.5 implements it.

A tree's score is the sum of the scores of its parts, arcs (first order, §3) or arcs with the
sibling before them (second order, §4); each part's score is the weights of its features
(§5, Table 1; morphology §8.2) summed. The best tree comes from the decoders of maltpy/decode/__init__.py
(Eisner's algorithm or Chu-Liu-Edmonds), its labels from the same weights (§7). Learning is
MIRA over the k best trees (§2), averaged. This package is the one home of the algorithm:
features.py (the feature templates and their indices), tree.py (the best tree and its labels),
learn.py (MIRA) and model.py (the parser and its archive); config.Mst holds the options under MSTParser's names.
"""

#: The graph-based parsing algorithms, beside transition.SYSTEMS' transition systems.
GRAPH_ALGORITHMS = ("mst",)
#: The largest ``mst.training_k``: MIRA's constraints from this many best trees.
MAX_TRAINING_K = 20

_NO_SPLIT = "a data split is not defined for MSTParser's graph-based models (-a mst), which have one set of weights"
_NO_CLASSIFIER = "-a mst learns its weights by MIRA, with no classifier"
#: The options of transition-based parsing (its classifiers, their features and its reading
#: order) that graph-based parsing has no use for, each with why: the configuration refuses one
#: set with ``-a mst`` (config.USED_BY), as it would be ignored. The group mst is graph-based
#: parsing's own.
TRANSITION_OPTIONS: dict[tuple[str, str], str] = {
    ("singlemalt", "null_value"): "-a mst's features (MSTParser's) have no null values",
    ("singlemalt", "parsing_direction"): "-a mst scores whole trees, in no direction",
    ("singlemalt", "root_position"): "-a mst's root is MSTParser's, before the first word",
    ("guide", "features"): "-a mst has MSTParser's features (McDonald et al. 2007, Table 1), not a feature model",
    ("guide", "learner"): _NO_CLASSIFIER,
    ("lib", "options"): _NO_CLASSIFIER,
    ("guide", "data_split_column"): _NO_SPLIT,
    ("guide", "data_split_structure"): _NO_SPLIT,
    ("guide", "data_split_threshold"): _NO_SPLIT,
}


def is_graph_based(algorithm: str) -> bool:
    """Whether ``algorithm`` (singlemalt.parsing_algorithm) is graph-based, not a transition system."""
    return algorithm in GRAPH_ALGORITHMS
