"""maltpy: MaltParser's data-driven dependency parser-generator, remade in Python.

For programs::

    import maltpy
    model = maltpy.learn("en-train.conllu", learner="libsvm")      # or maltpy.load_model("en.mpm")
    model.save("en.mpm")
    for parsed in model.parse([["Dogs", "bark", "."]]):
        print([(t["form"], t["head"], t["deprel"]) for t in parsed])
    model.parse_file("test.conllu", "parsed.conllu")

``Model.parse`` also takes ``conllu.TokenList``s and maltpy's own sentences
(``maltpy.read_conll``); ``maltpy.nltk.MaltParser`` is NLTK's MaltParser interface, and
``maltpy.dask`` parses across a Dask cluster. Errors a user can cause raise ``MaltpyError``;
input unlike the model's training data (unseen tags) gives a ``MaltpyWarning``.
"""

from .errors import MaltpyError, MaltpyWarning
from .version import __version__

__all__ = ["MaltpyError", "MaltpyWarning", "Model", "__version__", "learn", "load_model", "read_conll", "write_conll"]


def __getattr__(name: str):
    # learn, read_conll, write_conll, load_model and Model import the parser (NumPy, SciPy) when
    # first used, so that `import maltpy` and the command line's start stay quick.
    if name == "load_model":  # maltpy.load's: a model, a blend or MaltParser's .mco
        from .load import load_model

        return load_model
    if name in ("learn", "read_conll", "write_conll"):
        from . import api

        return getattr(api, name)
    if name == "Model":
        from .models.parser import Model

        return Model
    raise AttributeError(f"module 'maltpy' has no attribute {name!r}")
