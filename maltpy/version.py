"""maltpy's version: written into every archive it makes, read by pyproject.toml's build."""

__version__ = "0.1.0"
