"""From raw text to tokens: a tokenizer and sentence splitter learned from a treebank's text."""
