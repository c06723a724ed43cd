"""Notebook exports as plain text (text.py) and one static HTML file (html.py), one module per
view kind (registry.py lists them), and the mailing-list report of a sweep (report.py)."""
