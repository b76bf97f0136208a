#!/bin/sh
# Replay the humpty-expressible vectors through kv_engine's humpty_dumpty:
#   HUMPTY=/path/to/humpty_dumpty sh check.sh
# Each output is diffed against the kv-current (or first) rule set's expectation.
cd "$(dirname "$0")" || exit 2
HUMPTY="${HUMPTY:-humpty_dumpty}"
status=0
"$HUMPTY" 01.table.json 700 0 < 01.in | diff -u 01.kv-current.expected - || status=1
"$HUMPTY" 02.table.json 14757395258967640900 0 < 02.in | diff -u 02.kv-current.expected - || status=1
"$HUMPTY" 03.table.json 60 20 < 03.in | diff -u 03.kv-current.expected - || status=1
exit "$status"
