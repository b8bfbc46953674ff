# Hostile inputs through the command line (issue 8): each gives exit 2 (bad
# input) or 1 (a resource limit or a runtime failure) with a message naming
# the file, line or key, never a crash, a hang or unbounded memory.
# (Sourced by tests/cli_test.sh: uses expect, expect_err, expect_out, $tmp.)

h=$tmp/hostile
mkdir -p "$h"
TB_HDR='phase,accounting,payments,concurrency,total,ok,errors,walltime,throughput'
small="--reps 1 --set client.total=50"


# Memory limits for the peak-RSS checks, in KB; ASan's shadow memory and
# quarantine triple them in a sanitizer build.
mem=1
if nm "$TFSIM" 2>/dev/null | grep -q __asan_init; then mem=3; fi

# max_rss_kb CMD...: run CMD (output discarded), print its peak RSS in KB.
max_rss_kb() {
    /usr/bin/time -f %M -o "$h/rss" "$@" >/dev/null 2>&1
    tail -1 "$h/rss"
}

# ---- include cycles and depth ----
printf 'include = b.ini\n' >"$h/a.ini"
printf '[run]\nseed = 3\ninclude = c.ini\n' >"$h/b.ini"
printf 'include = a.ini\n' >"$h/c.ini"
expect 2 "indirect include cycle" -- "$TFSIM" run "$h/a.ini"
expect_err "c.ini:1: include: include cycle: .*a.ini includes itself" "indirect cycle names the line"
printf '[model]\ninclude = self2.ini\n' >"$h/self2.ini"
expect 2 "direct include cycle inside a section" -- "$TFSIM" run "$h/self2.ini"
expect_err "self2.ini:2: include: include cycle" "direct cycle message"
i=0
while [ $i -le 16 ]; do printf 'include = d%d.ini\n' $((i + 1)) >"$h/d$i.ini"; i=$((i + 1)); done
: >"$h/d17.ini"
expect 2 "include chain deeper than 16" -- "$TFSIM" run "$h/d0.ini"
expect_err "include nesting deeper than 16" "depth message"

# ---- very long lines, NUL bytes, binary garbage, empty files, directories ----
{ printf '[model]\nname = '; head -c 1048576 /dev/zero | tr '\0' x; printf '\n'; } >"$h/long.ini"
expect 2 "config with a 1 MB line" -- "$TFSIM" run "$h/long.ini"
expect_err "long.ini:2: line longer than" "long line message"
{ printf '%s\ncheckout,tb,redis,1,10,10,0,1,' "$TB_HDR"; head -c 1048576 /dev/zero | tr '\0' 9; printf '\n'; } >"$h/long.csv"
expect 2 "CSV with a 1 MB line" -- "$TFSIM" amdahl --tigerbench "$h/long.csv" --arch tb_redis --usl
expect_err "long.csv:2: .*longer than" "long CSV line message"
printf '[run]\nseed = 1\000 2\n' >"$h/nul.ini"
expect 2 "config with a NUL byte" -- "$TFSIM" run "$h/nul.ini"
expect_err "nul.ini:2: NUL byte" "NUL message"
printf '%s\ncheckout,tb,re\000dis,1,10,10,0,1,10\n' "$TB_HDR" >"$h/nul.csv"
expect 2 "CSV with a NUL byte" -- "$TFSIM" amdahl --tigerbench "$h/nul.csv" --arch tb_redis --usl
expect_err "nul.csv:2: NUL byte" "CSV NUL message"
head -c 65536 /dev/urandom >"$h/junk"
expect 2 "binary garbage as config" -- "$TFSIM" run "$h/junk"
expect_err "junk" "garbage config names the file"
expect 2 "binary garbage as CSV" -- "$TFSIM" amdahl --tigerbench "$h/junk" --arch tb_redis --usl
expect_err "junk" "garbage CSV names the file"
expect 2 "binary garbage as database" -- "$TFSIM" export "$h/junk"
expect_err "junk: .*not a tfsim results database" "garbage database message"
: >"$h/empty.ini"
expect 0 "empty config: the defaults" -- "$TFSIM" run "$h/empty.ini" $small --format csv
: >"$h/empty.csv"
expect 2 "empty CSV" -- "$TFSIM" amdahl --tigerbench "$h/empty.csv" --arch tb_redis --usl
expect_err "empty.csv:1: empty file" "empty CSV message"
printf '%s\n' "$TB_HDR" >"$h/header.csv"
expect 2 "CSV with only a header" -- "$TFSIM" amdahl --tigerbench "$h/header.csv" --arch tb_redis --usl
expect_err "header.csv:2: no data rows" "header-only CSV message"
: >"$h/empty.db"
expect 2 "empty database" -- "$TFSIM" export "$h/empty.db"
expect_err "empty.db: empty file" "empty database message"
mkdir -p "$h/dir.ini" "$h/dir.csv" "$h/dir.db"
expect 2 "directory as config" -- "$TFSIM" run "$h/dir.ini"
expect_err "dir.ini: read error: Is a directory" "directory config message"
expect 2 "directory as CSV" -- "$TFSIM" amdahl --tigerbench "$h/dir.csv" --arch tb_redis --usl
expect_err "dir.csv: read error: Is a directory" "directory CSV message"
expect 2 "directory as database" -- "$TFSIM" report "$h/dir.db" -o "$h/r.html"
expect_err "dir.db: is a directory" "directory database message"

# ---- extreme numbers: 1e308, NaN, inf, negative durations ----
expect 2 "1e308 out of range" -- "$TFSIM" run --set postgres.holds_rows=1e308
expect_err "postgres.holds_rows: 1e308 is out of range" "1e308 message"
expect 2 "1e309 overflows" -- "$TFSIM" run --set client.crowding=1e309
expect_err "client.crowding: '1e309': number out of range" "1e309 message"
expect 2 "NaN" -- "$TFSIM" run --set client.cpu=nan
expect_err "client.cpu: 'nan': not a number" "NaN message"
expect 2 "inf" -- "$TFSIM" run --set run.max_sim_time=inf
expect_err "run.max_sim_time: 'inf': not a number" "inf message"
expect 2 "-inf" -- "$TFSIM" run --set client.rate=-inf
expect 2 "NaN in a distribution" -- "$TFSIM" run --set 'redis.service=exp(mean=nan)'
expect_err "redis.service: bad distribution" "NaN distribution message"
expect 2 "infinite variance" -- "$TFSIM" run --set 'redis.service=exp(mean=1e300)'
expect_err "no finite mean or variance" "infinite variance message"
# found by the fuzzer: GSL samples such a gamma as inf x 0 = NaN
expect 2 "gamma with a tiny shape (scale 1e308)" -- "$TFSIM" run --set 'redis.service=gamma(shape=1e-308,mean=1)'
expect_err "scale above 1e300" "tiny gamma shape message"
printf '%s\ncheckout,tb,redis,1,10,10,0,1,inf\n' "$TB_HDR" >"$h/inf.csv"
expect 2 "inf in a CSV" -- "$TFSIM" amdahl --tigerbench "$h/inf.csv" --arch tb_redis --usl
expect_err "inf.csv:2: throughput: 'inf' is not a number" "CSV inf message"
printf '%s\ncheckout,tb,redis,1,10,10,0,nan,10\n' "$TB_HDR" >"$h/nan.csv"
expect 2 "NaN in a CSV" -- "$TFSIM" amdahl --tigerbench "$h/nan.csv" --arch tb_redis --usl
expect_err "nan.csv:2: walltime: 'nan' is not a number" "CSV NaN message"
expect 1 "a 1e308 s service time hits run.max_sim_time" -- "$TFSIM" run $small --set 'redis.service=1e308'
expect_err "(limit run.max_sim_time)" "huge service time message"
expect 2 "negative duration" -- "$TFSIM" run --set client.cpu=-1ms
expect_err "client.cpu: -1ms is out of range" "negative duration message"
expect 2 "negative mean" -- "$TFSIM" run --set 'redis.service=exp(mean=-1ms)'
expect_err "exp(): mean must be > 0" "negative mean message"
expect 2 "negative constant" -- "$TFSIM" run --set 'postgres.flush=-2ms'
expect_err "negative duration" "negative constant message"
expect 2 "negative warm-up" -- "$TFSIM" run configs/queueing/mm1.ini --set queueing.warmup=-5
expect_err "queueing.warmup: '-5'" "negative warm-up message"
printf '%s\ncheckout,tb,redis,1,10,10,0,-2,10\n' "$TB_HDR" >"$h/neg.csv"
expect 2 "negative wall time in a CSV" -- "$TFSIM" amdahl --tigerbench "$h/neg.csv" --arch tb_redis --usl
expect_err "neg.csv:2: walltime" "CSV negative message"

# ---- concurrency 0 and 10^7, total 0 ----
expect 2 "concurrency 0" -- "$TFSIM" run --set client.concurrency=0
expect_err "client.concurrency: 0 is out of range 1..1000000 requests" "concurrency 0 message"
expect 2 "concurrency 10^7" -- "$TFSIM" run --set client.concurrency=1e7
expect_err "client.concurrency: 1e7 is out of range" "concurrency 10^7 message"
expect 2 "total 0" -- "$TFSIM" run --set client.total=0
expect_err "client.total: 0 is out of range" "total 0 message"
expect 2 "customers 0" -- "$TFSIM" run configs/queueing/mm1.ini --set queueing.customers=0
expect 2 "closed population 10^8" -- "$TFSIM" run configs/queueing/closed.ini --set closed.customers=1e8
# the largest concurrency allowed runs in bounded memory (about 240 bytes a request)
rss=$(max_rss_kb "$TFSIM" run --reps 1 --set client.concurrency=1e6 --set client.total=1e6 --set client.phases=reserve)
if [ "${rss:-999999999}" -lt $((600000 * mem)) ]; then ok; else bad "concurrency 10^6: peak RSS ${rss} KB"; fi

# ---- resource bounds: exit 1 naming the [run] key ----
expect 1 "run.max_events (tigerfans)" -- "$TFSIM" run $small --set run.max_events=1000
expect_err "replication 0 stopped: it reached 1000 events (limit run.max_events)" "max_events message"
# above the estimate (one event per customer in a closed network), below
# what the run takes
expect 1 "run.max_events (queueing)" -- "$TFSIM" run configs/queueing/closed.ini --reps 1 --set queueing.warmup=0 --set queueing.customers=1000 --set run.max_events=1500
expect_err "(limit run.max_events)" "queueing max_events message"
# the estimate is 0.212 s, the run takes 0.32 s
expect 1 "run.max_sim_time (tigerfans)" -- "$TFSIM" run $small --set run.max_sim_time=0.25
expect_err "it reached 0.25 s of simulated time (limit run.max_sim_time)" "max_sim_time message"
# what clearly cannot finish is refused before it starts (issue 17: 1e9
# requests used to run 110-270 s until run.max_events stopped them)
expect 2 "client.total=1e9 refused" -- "$TFSIM" run --set client.total=1e9
expect_err "client.total: a replication needs at least 1.7e+10 events .*more than run.max_events = 2000000000: raise run.max_events" "events estimate message"
expect 2 "max_sim_time below the estimate" -- "$TFSIM" run $small --set run.max_sim_time=10ms
expect_err "client.total: a replication needs at least [0-9.]* simulated seconds .*raise run.max_sim_time" "time estimate message"
expect 2 "queueing.customers=1e12 refused" -- "$TFSIM" run configs/queueing/mm1.ini --set queueing.customers=1e12
expect_err "--set: queueing.customers: a replication needs at least 2e+12 events (2 events per customer)" "queueing estimate message"
expect 1 "run.max_sim_time (queueing)" -- "$TFSIM" run configs/queueing/mm1.ini --reps 1 --set queueing.warmup=0 --set run.max_sim_time=10
expect_err "(limit run.max_sim_time)" "queueing max_sim_time message"
expect 1 "run.max_pending (tigerfans, open loop)" -- "$TFSIM" run --reps 1 --set client.total=5000 --set client.mode=poisson --set client.rate=1e6 --set run.max_pending=16
expect_err "more than 16 events pending (limit run.max_pending)" "max_pending message"
expect 1 "run.max_pending (queueing, customers in the system)" -- "$TFSIM" run configs/queueing/mm1.ini --reps 1 --set queueing.warmup=0 --set arrivals.rate=0.99 --set run.max_pending=16
expect_err "more than 16 customers in the system (limit run.max_pending)" "queueing max_pending message"
expect 2 "run.max_pending (queueing, servers): refused up front" -- "$TFSIM" run configs/queueing/mmc.ini --set run.max_pending=16 --set station.server.servers=20
expect_err "run.max_pending: the stations' servers (20) could hold more pending events than run.max_pending = 16" "servers message names the key"

# ---- a CSV of 10^6 rows is streamed: bounded memory ----
awk -v h="$TB_HDR" 'BEGIN { print h; for (i = 0; i < 1000000; i++) printf "checkout,tb,redis,%d,100,100,0,2,50\n", i % 50 + 1 }' >"$h/big.csv"
expect 0 "10^6-row CSV" -- "$TFSIM" amdahl --tigerbench "$h/big.csv" --arch tb_redis --usl --format csv
expect_out "^tb_redis,checkout,50,20000,50," "10^6 rows summarised"
rss=$(max_rss_kb "$TFSIM" amdahl --tigerbench "$h/big.csv" --arch tb_redis --usl --format csv)
if [ "${rss:-999999999}" -lt $((50000 * mem)) ]; then ok; else bad "10^6-row CSV: peak RSS ${rss} KB, expected < $((50 * mem)) MB"; fi
awk -v h="$TB_HDR" 'BEGIN { print h; for (i = 0; i < 1000000; i++) printf "checkout,tb,redis,%d,100,100,0,2,50\n", i + 1 }' >"$h/groups.csv"
expect 2 "10^6 distinct groups" -- "$TFSIM" amdahl --tigerbench "$h/groups.csv" --arch tb_redis --usl
expect_err "more than 100000 distinct" "group limit message"
rss=$(max_rss_kb "$TFSIM" amdahl --tigerbench "$h/groups.csv" --arch tb_redis --usl)
if [ "${rss:-999999999}" -lt $((50000 * mem)) ]; then ok; else bad "10^6 groups: peak RSS ${rss} KB, expected < $((50 * mem)) MB"; fi
rm -f "$h/big.csv" "$h/groups.csv"

# ---- latency samples (tfsim fit): bad rows, NUL, directories, 10^6 rows ----
SH='operation,concurrency,latency_us,timestamp'
printf '%s\nredis.get,1,10\00000,1\n' "$SH" >"$h/nul_s.csv"
expect 2 "samples with a NUL byte" -- "$TFSIM" fit "$h/nul_s.csv"
expect_err "nul_s.csv:2: latency_us: NUL byte" "samples NUL message"
expect 2 "directory as samples" -- "$TFSIM" fit "$h/dir.csv"
expect_err "dir.csv: read error: Is a directory" "samples directory message"
expect 2 "empty samples" -- "$TFSIM" fit "$h/empty.csv"
expect 2 "garbage samples" -- "$TFSIM" fit "$h/junk"
for row in "redis.get,0,1,1" "redis.get,1e7,1,1" "redis.get,1,1e309,1" "redis.get,1,nan,1" \
           "redis.get,1,-1,1" "redis.get,1,1,inf" "bad name,1,1,1"; do
    printf '%s\n%s\n' "$SH" "$row" >"$h/row.csv"
    expect 2 "samples row $row" -- "$TFSIM" fit "$h/row.csv"
    expect_err "row.csv:2: " "samples row $row names the line"
done
awk -v h="$SH" 'BEGIN { print h; for (i = 0; i < 1000000; i++) printf "redis.get,%d,%d.5,%d\n", i % 4 + 1, 100 + i % 97, 1764460800 + i }' >"$h/s1m.csv"
rss=$(max_rss_kb "$TFSIM" fit "$h/s1m.csv" --max-samples 10000)
if [ "${rss:-999999999}" -lt $((50000 * mem)) ]; then ok; else bad "10^6-row samples: peak RSS ${rss} KB, expected < $((50 * mem)) MB"; fi
rm -f "$h/s1m.csv"

# ---- damaged results databases ----
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$h/fix.db" <tests/cli/report_fixture.sql
    size=$(wc -c <"$h/fix.db")
    head -c $((size / 2)) "$h/fix.db" >"$h/trunc.db"
    expect 2 "truncated database: export" -- "$TFSIM" export "$h/trunc.db" --run 1
    expect_err "trunc.db: .*damaged" "truncated database message"
    expect 2 "truncated database: report" -- "$TFSIM" report "$h/trunc.db" -o "$h/r.html"
    cp "$h/fix.db" "$h/bad.db"
    head -c 8192 /dev/urandom | dd of="$h/bad.db" bs=1 seek=8192 conv=notrunc 2>/dev/null
    for sel in "" "--run 1" "--run 13" "--sweep 1" "--sweep 2" "--list sweeps" "--measurements 1"; do
        expect_code_in "0 1 2" "corrupted pages: export $sel" -- "$TFSIM" export "$h/bad.db" $sel
    done
    expect_code_in "0 1 2" "corrupted pages: report" -- "$TFSIM" report "$h/bad.db" -o "$h/r.html"
    # storing into a damaged, foreign or directory "database": every
    # command checks the store before any work (2)
    for db in "$h/trunc.db" "$h/junk" "$h/dir.db"; do
        expect 2 "run --db $(basename "$db")" -- "$TFSIM" run $small --db "$db"
        expect_err "$db" "run --db $(basename "$db"): names the file"
        expect 2 "diff --db $(basename "$db")" -- "$TFSIM" diff configs/queueing/mm1.ini configs/queueing/md1.ini --reps 2 --db "$db"
        expect 2 "sweep --db $(basename "$db")" -- "$TFSIM" sweep configs/queueing/mm1.ini --vary arrivals.rate=0.1,0.2 --reps 1 --set queueing.customers=2000 --db "$db"
        expect_err "$db" "sweep --db $(basename "$db"): names the file"
    done
    # read-only (root ignores modes: check as nobody when possible)
    rod=$(mktemp -d /tmp/tfsim-ro-XXXXXX)
    cp "$h/fix.db" "$rod/ro.db"
    mkdir "$rod/out" "$rod/tmp"
    chmod 444 "$rod/ro.db"
    chmod 777 "$rod/tmp" # TMPDIR for nobody (report's gnuplot files)
    chmod 555 "$rod/out" "$rod"
    as=
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
        as="setpriv --reuid=65534 --regid=65534 --clear-groups env TMPDIR=$rod/tmp"
    fi
    expect 0 "read-only database: export" -- $as "$TFSIM" export "$rod/ro.db" --list sweeps
    expect_out "concurrency" "read-only database: listed"
    expect 0 "read-only database: report" -- $as "$TFSIM" report "$rod/ro.db" -o - --title ro
    if [ -n "$as" ] || [ "$(id -u)" -ne 0 ]; then
        expect 1 "report into a directory it cannot write" -- $as "$TFSIM" report "$rod/ro.db" -o "$rod/out/r.html"
        expect_err "r.html" "unwritable output names the file"
        expect 1 "run --db into a read-only database" -- $as "$TFSIM" run $small --db "$rod/ro.db"
        expect_err "ro.db: results database is read-only" "read-only database message"
    fi
    chmod 755 "$rod"
    rm -rf "$rod"
fi

# ---- secrets: a password in a connection string is never printed, stored
# or reported (the store's side is tested in tests/test_hostile.c) ----
pw=hunter2
# no_secret DESC FILE...: none of the files holds the password
no_secret() {
    desc=$1
    shift
    if cat "$@" 2>/dev/null | grep -q "$pw"; then bad "$desc: the password leaked"; grep -l "$pw" "$@" | sed 's/^/    /'; else ok; fi
}
printf '[model]\nname = postgresql://app:%s@db/tf password=%s\n' $pw $pw >"$h/pw.ini"
expect 0 "run with a password in a label" -- "$TFSIM" run "$h/pw.ini" $small --set "model.name=host=/x password=$pw"
no_secret "run output" "$tmp/out" "$tmp/err"
expect 2 "a password in a bad value" -- "$TFSIM" run "$h/pw.ini" --set "probe.conninfo=host=/x password=$pw"
no_secret "unknown-section message" "$tmp/out" "$tmp/err"
# once run stores results (--db), the database, its export and report too
rm -f "$h/pw.db"
"$TFSIM" run "$h/pw.ini" $small --set "model.name=redis://:$pw@h" --db "$h/pw.db" >"$tmp/out" 2>"$tmp/err"
if [ -f "$h/pw.db" ]; then
    no_secret "run --db: output" "$tmp/out" "$tmp/err"
    no_secret "run --db: database" "$h/pw.db" "$h/pw.db-wal"
    for sel in "--list runs" "--run 1"; do
        for fmt in text csv json; do
            expect 0 "export $sel --format $fmt" -- "$TFSIM" export "$h/pw.db" $sel --format $fmt
            no_secret "export $sel --format $fmt" "$tmp/out" "$tmp/err"
        done
    done
    expect 0 "report of a store with passwords" -- "$TFSIM" report "$h/pw.db" -o "$h/pw.html"
    no_secret "report" "$h/pw.html" "$tmp/out" "$tmp/err"
fi
# once tfsim probe exists: a refused connection prints no password
if "$TFSIM" probe --help >/dev/null 2>&1; then
    expect 1 "probe postgres, no server" -- "$TFSIM" probe postgres --conninfo "host=/nonexistent password=$pw" --seconds 1
    no_secret "probe postgres --conninfo output" "$tmp/out" "$tmp/err"
    expect 1 "probe postgres --password, no server" -- "$TFSIM" probe postgres --host /nonexistent --password $pw --seconds 1
    no_secret "probe postgres --password output" "$tmp/out" "$tmp/err"
    expect 1 "probe redis --password, no server" -- "$TFSIM" probe redis --host 127.0.0.1 --port 1 --password $pw --seconds 1
    no_secret "probe redis --password output" "$tmp/out" "$tmp/err"
fi

# requests waiting in queues count against run.max_pending too
expect 1 "tigerfans queue memory bound" -- "$TFSIM" run --set client.mode=poisson --set client.rate=1e9 \
    --set client.total=2000000 --set client.phases=reserve --set run.max_pending=20000 --reps 1
expect_err "run.max_pending" "queue bound message"
# the manifest masks passwords like the results database does
expect 0 "manifest redaction" -- "$TFSIM" run configs/queueing/mm1.ini --set 'model.name=password=hunter2' \
    --manifest "$tmp/secret.json" --reps 1 --set queueing.customers=100
if grep -q hunter2 "$tmp/secret.json"; then bad "manifest leaks a password"; else ok; fi
