#!/bin/sh
# Replay the humpty-expressible vectors through kv_engine's humpty_dumpty:
#   HUMPTY=/path/to/humpty_dumpty sh check.sh
# Each output is diffed against the kv-current (or first) rule set's expectation.
cd "$(dirname "$0")" || exit 2
HUMPTY="${HUMPTY:-humpty_dumpty}"
status=0
"$HUMPTY" 01.table.json 3 0 < 01.in | diff -u 01.kv-current.expected - || status=1
"$HUMPTY" 02.table.json 2 0 < 02.in | diff -u 02.kv-current.expected - || status=1
"$HUMPTY" 03.table.json 2 2 < 03.in | diff -u 03.kv-current.expected - || status=1
"$HUMPTY" 04.table.json 1 0 < 04.in | diff -u 04.kv-current.expected - || status=1
"$HUMPTY" 05.table.json 0 0 < 05.in | diff -u 05.kv-current.expected - || status=1
"$HUMPTY" 06.table.json 0 0 < 06.in | diff -u 06.kv-current.expected - || status=1
"$HUMPTY" 07.table.json 0 0 < 07.in | diff -u 07.kv-current.expected - || status=1
"$HUMPTY" 08.table.json 0 0 < 08.in | diff -u 08.kv-current.expected - || status=1
"$HUMPTY" 09.table.json 1 1 < 09.in | diff -u 09.kv-current.expected - || status=1
"$HUMPTY" 10.table.json 1 1 < 10.in | diff -u 10.kv-current.expected - || status=1
"$HUMPTY" 11.table.json 1 0 < 11.in | diff -u 11.kv-current.expected - || status=1
"$HUMPTY" 12.table.json 2 0 < 12.in | diff -u 12.kv-current.expected - || status=1
"$HUMPTY" 13.table.json 2 0 < 13.in | diff -u 13.kv-current.expected - || status=1
"$HUMPTY" 14.table.json 2 0 < 14.in | diff -u 14.kv-current.expected - || status=1
"$HUMPTY" 15.table.json 1 0 < 15.in | diff -u 15.kv-current.expected - || status=1
"$HUMPTY" 16.table.json 4 4 < 16.in | diff -u 16.kv-current.expected - || status=1
"$HUMPTY" 17.table.json 2 2 < 17.in | diff -u 17.kv-current.expected - || status=1
"$HUMPTY" 18.table.json 2 2 < 18.in | diff -u 18.kv-current.expected - || status=1
"$HUMPTY" 19.table.json 1 1 < 19.in | diff -u 19.kv-current.expected - || status=1
"$HUMPTY" 20.table.json 0 0 < 20.in | diff -u 20.kv-current.expected - || status=1
"$HUMPTY" 21.table.json 1 0 < 21.in | diff -u 21.kv-current.expected - || status=1
"$HUMPTY" 22.table.json 2 0 < 22.in | diff -u 22.kv-current.expected - || status=1
"$HUMPTY" 23.table.json 1 1 < 23.in | diff -u 23.kv-current.expected - || status=1
"$HUMPTY" 24.table.json 2 1 < 24.in | diff -u 24.kv-current.expected - || status=1
"$HUMPTY" 25.table.json 3 2 < 25.in | diff -u 25.kv-current.expected - || status=1
"$HUMPTY" 26.table.json 3 3 < 26.in | diff -u 26.kv-current.expected - || status=1
"$HUMPTY" 27.table.json 3 2 < 27.in | diff -u 27.kv-current.expected - || status=1
"$HUMPTY" 28.table.json 4 2 < 28.in | diff -u 28.kv-current.expected - || status=1
"$HUMPTY" 29.table.json 2 0 < 29.in | diff -u 29.kv-current.expected - || status=1
"$HUMPTY" 30.table.json 2 0 < 30.in | diff -u 30.kv-current.expected - || status=1
"$HUMPTY" 31.table.json 2 0 < 31.in | diff -u 31.kv-current.expected - || status=1
"$HUMPTY" 32.table.json 2 0 < 32.in | diff -u 32.kv-current.expected - || status=1
"$HUMPTY" 33.table.json 3 3 < 33.in | diff -u 33.kv-current.expected - || status=1
"$HUMPTY" 34.table.json 6 0 < 34.in | diff -u 34.kv-current.expected - || status=1
"$HUMPTY" 35.table.json 3 2 < 35.in | diff -u 35.kv-current.expected - || status=1
"$HUMPTY" 36.table.json 1 0 < 36.in | diff -u 36.kv-current.expected - || status=1
"$HUMPTY" 37.table.json 6 0 < 37.in | diff -u 37.kv-current.expected - || status=1
"$HUMPTY" 38.table.json 1 0 < 38.in | diff -u 38.kv-current.expected - || status=1
"$HUMPTY" 39.table.json 3 3 < 39.in | diff -u 39.kv-current.expected - || status=1
"$HUMPTY" 40.table.json 2 0 < 40.in | diff -u 40.kv-current.expected - || status=1
"$HUMPTY" 41.table.json 1 0 < 41.in | diff -u 41.kv-current.expected - || status=1
"$HUMPTY" 42.table.json 2 2 < 42.in | diff -u 42.kv-current.expected - || status=1
"$HUMPTY" 43.table.json 1 1 < 43.in | diff -u 43.kv-current.expected - || status=1
"$HUMPTY" 44.table.json 2 2 < 44.in | diff -u 44.kv-current.expected - || status=1
"$HUMPTY" 45.table.json 2 1 < 45.in | diff -u 45.kv-current.expected - || status=1
"$HUMPTY" 46.table.json 2 1 < 46.in | diff -u 46.kv-current.expected - || status=1
"$HUMPTY" 47.table.json 2 0 < 47.in | diff -u 47.kv-current.expected - || status=1
"$HUMPTY" 48.table.json 1 0 < 48.in | diff -u 48.kv-current.expected - || status=1
"$HUMPTY" 49.table.json 4 1 < 49.in | diff -u 49.kv-current.expected - || status=1
"$HUMPTY" 50.table.json 18446744073709551615 18446744073709551615 < 50.in | diff -u 50.kv-current.expected - || status=1
exit "$status"
