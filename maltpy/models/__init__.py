"""The transition-based model: learning it from a treebank (parser's ``learn``), parsing with it
one sentence or a batch at a time (parser, batch), and its parts in the model archive (parts over
archive, the zip layer)."""
