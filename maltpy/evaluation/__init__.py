"""Evaluation: attachment scores and MaltEval's groupings (scores), the HTML report (report) and
the SVG trees it draws (draw)."""
