# tfsim probe postgres against the real cluster of tests/servers.sh.
PSQL="/usr/lib/postgresql/15/bin/psql -X -q -t -A"

# Something of the user's that the probe must not touch.
$PSQL "$TFSIM_PG_CONNINFO" -c "CREATE TABLE public.sentinel (v text); INSERT INTO public.sentinel VALUES ('kept')" >/dev/null

expect 0 "probe postgres (socket)" -- "$TFSIM" probe postgres --conninfo "$TFSIM_PG_CONNINFO" \
    --concurrency 1,4 --count 100 --warmup 10 --holds 3000 --out "$tmp/pg.csv"
for op in accounting.hold paymentsession.save paymentsession.get paymentsession.fulfill \
    accounting.commit_order db.add_order paymentsession.remove_pending; do
    expect_out "postgres.$op" "probe postgres summary has $op"
done
if [ "$(wc -l <"$tmp/pg.csv")" -eq 1401 ] && awk -F, 'NR > 1 && NF != 4 { exit 1 }' "$tmp/pg.csv"; then ok; else bad "probe postgres CSV: expected header + 1400 rows"; fi
if [ "$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM pg_namespace WHERE nspname = 'tfsim_probe'")" = 0 ]; then ok; else bad "probe postgres left its schema"; fi
if [ "$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT v FROM public.sentinel")" = kept ]; then ok; else bad "probe postgres touched public.sentinel"; fi

# --keep: the holds made are there (3000 preloaded + up to 2 per hold, all posted)
expect 0 "probe postgres --keep over TCP" -- "$TFSIM" probe postgres --host 127.0.0.1 \
    --port "$TFSIM_PG_PORT" --dbname postgres --user postgres --concurrency 2 --count 30 --warmup 0 \
    --ops accounting.hold,accounting.commit_order --holds 300 --keep --no-pre-ping
n=$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM tfsim_probe.holds WHERE status = 'posted'")
if [ "$n" -eq 360 ]; then ok; else bad "probe postgres --keep: expected 300 preloaded + 60 posted holds, found $n"; fi
$PSQL "$TFSIM_PG_CONNINFO" -c "SET client_min_messages = warning; DROP SCHEMA tfsim_probe CASCADE; DROP TABLE public.sentinel" >/dev/null

expect 0 "fit the postgres samples" -- "$TFSIM" fit "$tmp/pg.csv" --chosen --config-out "$tmp/pg-fit.ini"
if grep -q '^\[fit.postgres.accounting\]' "$tmp/pg-fit.ini" && grep -q '^hold = ' "$tmp/pg-fit.ini" &&
    grep -q '^\[fit.postgres.db\]' "$tmp/pg-fit.ini"; then ok; else bad "fit fragment lacks the postgres keys"; fi
