"""The transition-based model: learning it from a treebank (learn), parsing with it one sentence
or a batch at a time (parser, batch), the choice of a transition both make (choice), and its
parts in the model archive (parts over archive, the zip layer). base: what every kind of parser
shares (graph-based models and blends too); ``maltpy.load`` reads any of them.
"""
