"""Rules that ingest and the views share, one module each, and that the frontend keeps a copy of
in TypeScript (frontend/src/logic): the latency bins and the percentile read from them
(bin_percentile.py), the lost-events checks and their thresholds (lost_events.py). Import them
from here; never restate a threshold or a bin width elsewhere."""
