"""Notebooks: the saved document (document.py), its immutable versions (store.py), and its
exports for mailing lists and archives (text.py, html.py). See docs/notebooks.md."""
