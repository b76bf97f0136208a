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
"$HUMPTY" 08.table.json 1 1 < 08.in | diff -u 08.kv-current.expected - || status=1
"$HUMPTY" 09.table.json 1 0 < 09.in | diff -u 09.kv-current.expected - || status=1
"$HUMPTY" 10.table.json 1 0 < 10.in | diff -u 10.kv-current.expected - || status=1
"$HUMPTY" 11.table.json 2 0 < 11.in | diff -u 11.kv-current.expected - || status=1
"$HUMPTY" 12.table.json 1 0 < 12.in | diff -u 12.kv-current.expected - || status=1
"$HUMPTY" 13.table.json 2 0 < 13.in | diff -u 13.kv-current.expected - || status=1
"$HUMPTY" 14.table.json 0 0 < 14.in | diff -u 14.kv-current.expected - || status=1
"$HUMPTY" 15.table.json 18446744073709551615 18446744073709551615 < 15.in | diff -u 15.kv-current.expected - || status=1
"$HUMPTY" 16.table.json 0 0 < 16.in | diff -u 16.kv-current.expected - || status=1
"$HUMPTY" 17.table.json 1 0 < 17.in | diff -u 17.kv-current.expected - || status=1
exit "$status"
