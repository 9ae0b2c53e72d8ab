"""maltpy: MaltParser's data-driven dependency parser-generator, remade in Python.

For programs::

    import maltpy
    model = maltpy.load_model("en.mpm")
    model.parse_tokens([[{"form": "Dogs", "upos": "NOUN"}, {"form": "bark", "upos": "VERB"}]])
    model.parse_conll(open("test.conllu").read())

and ``maltpy.learn(config, sentences, data_format, name)`` to train (see ``maltpy.parser``).
"""

__version__ = "0.1.0"


def load_model(path: str):
    """A model archive made by ``maltpy learn``: a ``maltpy.parser.Model``."""
    from .parser import load_model

    return load_model(path)


def learn(*args, **kwargs):
    """Induce a parser: ``maltpy.parser.learn``."""
    from .parser import learn

    return learn(*args, **kwargs)
