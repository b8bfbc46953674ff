# tfsim import: TigerBench CSVs and probe samples into a results database
# (issue #16 item 2).  (Sourced by tests/cli_test.sh.)
idir="$tmp/import"
mkdir -p "$idir"
expect 0 "import --help" -- "$TFSIM" import --help
expect_out "^usage: tfsim import FILE... --db DB" "import --help: usage"
expect 2 "import without a file" -- "$TFSIM" import --db "$idir/m.db"
expect_err "missing the measurement FILE" "import without a file: message"
expect 2 "import without --db" -- "$TFSIM" import tests/data/calibration.csv
expect_err "missing --db DB" "import without --db: message"
expect 2 "import a missing file" -- "$TFSIM" import "$idir/none.csv" --db "$idir/m.db"
expect_err "none.csv: cannot open" "import a missing file: message"
expect 2 "import a file of another kind" -- "$TFSIM" import README.md --db "$idir/m.db"
expect_err "README.md:1: neither a TigerBench CSV" "import another kind: message"
printf 'operation,concurrency,latency_us,timestamp\nredis.get,1,15,1\nredis.get,1,x,1\n' >"$idir/bad.csv"
expect 2 "import bad samples" -- "$TFSIM" import tests/data/calibration.csv "$idir/bad.csv" --db "$idir/m.db"
expect_err "bad.csv:3: latency_us" "import bad samples: file:line: column"
if [ -e "$idir/m.db" ]; then bad "a failed import created the database"; else ok; fi

awk 'BEGIN { print "operation,concurrency,latency_us,timestamp";
             for (i = 1; i <= 200; i++) printf "redis.get,%d,%d,%d\n", 1 + (i % 2) * 3, 10 + i % 40, i }' >"$idir/s.csv"
expect 0 "import both kinds" -- "$TFSIM" import tests/data/calibration.csv "$idir/s.csv" --db "$idir/m.db"
expect_out "^measurement set 1: tests/data/calibration.csv (tigerbench), 148 rows$" "import: the TigerBench set"
expect_out "^  pg_pg: 48 phase rows, 85 operation timing rows, concurrency 1 to 100$" "import: what the set holds"
expect_out "^  redis.get at concurrency 4: 100 samples, mean [0-9.]* ms" "import: samples in ms"
expect_err "stored as measurement set 2 in" "import says where it stored"
expect 0 "export the imported set" -- "$TFSIM" export "$idir/m.db" --measurements 1 --format csv
expect_out "^architecture,scope,name,concurrency,reps,throughput,throughput_sd,throughput_min,throughput_max,walltime,mean,sd,samples$" "imported TigerBench columns"
expect_out "^pg_pg,phase,reserve,10,3,389\.[0-9]*," "imported reserve at 10 (the seed's 389.7/s)"
expect 0 "import csv" -- "$TFSIM" import "$idir/s.csv" --db "$idir/m.db" --format csv
expect_out "^operation,redis.get,1,100,2.9e-05," "import csv: seconds"
expect 0 "list the sets" -- "$TFSIM" export "$idir/m.db" --list measurements --format csv
if [ "$(grep -c '^[0-9]' "$tmp/out")" -eq 3 ]; then ok; else bad "import: expected 3 measurement sets"; fi
