"""iolens-collect: capture fio runs and host facts on a host under test into a bundle.

Standard library only, so that the collectors/ folder can be copied to a bare host and run
with ``python3 -m iolens_collect``. The bundle format is docs/bundle-format.md (version 1).
"""

__version__ = "0.1.0"
