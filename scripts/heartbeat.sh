#!/usr/bin/env bash
# `make test`'s heartbeat: every IOLENS_HEARTBEAT seconds (default 60), one line on stdout saying
# which steps are still running and for how long. `make test` holds each suite's output until the
# suite ends (--output-sync), so without it a CI job with a no-output timeout would see minutes of
# silence. Each step writes its start time into the folder given as $1 (file name = step) and
# removes the file when it ends (the Makefile's `lane` macro).
# Usage: scripts/heartbeat.sh DIR   (runs until killed; TERM ends it at once, sleep included)
set -u
dir=$1
every=${IOLENS_HEARTBEAT:-60}
start=$(date +%s)
nap=
trap '[ -n "$nap" ] && kill "$nap" 2>/dev/null; exit 0' TERM INT
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
while :; do
  sleep "$every" & nap=$!
  wait "$nap"
  now=$(date +%s)
  running=
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    t=$(cat "$f" 2>/dev/null) || continue
    [ -n "$t" ] || continue
    running+="${running:+, }${f##*/} $(mmss $((now - t)))"
  done
  echo "make test $(mmss $((now - start))): still running: ${running:-set-up (between steps)}"
done
