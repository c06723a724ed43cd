"""One router per domain (api/app.py includes them)."""
