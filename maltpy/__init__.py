"""maltpy: MaltParser's data-driven dependency parser-generator, remade in Python."""

__version__ = "0.1.0"
