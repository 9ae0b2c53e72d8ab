"""The data: CoNLL-X and CoNLL-U files read and written (lines, conll), the sentences the Python
API takes (sentences), the symbols a model has seen (vocabulary), graph facts of a tree (tree),
pseudo-projective transformation (pseudoproj, Nivre & Nilsson 2005), and the parsing direction
(direction)."""
