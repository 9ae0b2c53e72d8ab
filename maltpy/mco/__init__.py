"""MaltParser's model files (.mco), from every release since 1.5, as maltpy models.

An .mco is a zip (a JAR) of one folder, named after the configuration it was learned as, holding
(MaltParser's ConfigurationDir, the same layout 1.5 to 1.9.2): a report naming the release that
wrote it, the saved options, the symbol tables, the data format and feature model XML it was
learned with, and the classifiers: ``odm0.<learner>.moo`` (LIBLINEAR or LIBSVM model) and
``odm0.<learner>.map`` (its FeatureMap), with a data split ``odm0.dsm`` and one
``odm0.NNN.<learner>.*`` pair per split value of code NNN.

The rooms, in the order an .mco is read:

- ``container``: the zip, hardened: its members bounded before any is read, each read when
  needed, one budget for what they become in memory (``is_mco``, ``read_members``);
- ``text``: the text members: the writing release, the saved options, the symbol tables;
- ``options``: the saved options as maltpy's configuration, and the data format
  (``saved_options``);
- ``features``: what the symbol tables' codes stand for: maltpy's feature values, and the
  decisions as maltpy's classes;
- ``classifiers``: the LIBLINEAR and LIBSVM models and their feature maps as maltpy's classifiers;
- ``javaser``: the bounded reader of the Java serialization streams the classifiers and maps are
  kept in, and ``javavalues``, what their contents become;
- ``model``: the rooms put together as a maltpy Model (``load_mco``).
"""

from .container import is_mco
from .model import load_mco
from .options import saved_options

__all__ = ["is_mco", "load_mco", "saved_options"]
