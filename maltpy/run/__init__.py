"""Running parses in parallel: worker processes (processes), the ``--jobs`` team that shares a model
between them (jobs), and the numeric libraries' thread counts (threads)."""
