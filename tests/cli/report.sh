# tfsim report and tfsim export: help, argument and database errors, and the
# page and exports of a store loaded from tests/cli/report_fixture.sql.
# (Sourced by tests/cli_test.sh: uses expect, expect_err, expect_out, $tmp.)

expect 0 "report --help" -- "$TFSIM" report --help
expect_out "usage: tfsim report DB -o FILE" "report --help shows usage"
expect_out "examples:" "report --help has examples"
expect 0 "export --help" -- "$TFSIM" export --help
expect_out "usage: tfsim export DB" "export --help shows usage"
expect_out "examples:" "export --help has examples"
expect 0 "tfsim --help" -- "$TFSIM" --help
expect_out "report " "tfsim --help lists report"
expect_out "export " "tfsim --help lists export"

expect 2 "report without DB" -- "$TFSIM" report
expect_err "missing the results database" "report without DB: message"
expect 2 "report without -o" -- "$TFSIM" report "$tmp/none.db"
expect_err "missing -o FILE" "report without -o: message"
expect 2 "report unknown option" -- "$TFSIM" report "$tmp/none.db" -o x --frob
expect_err "unknown option '--frob'" "report unknown option: message"
expect 2 "report on a missing DB" -- "$TFSIM" report "$tmp/none.db" -o "$tmp/r.html"
expect_err "none.db: No such file" "report on a missing DB: names the file"
if [ -e "$tmp/none.db" ] || [ -e "$tmp/r.html" ]; then bad "report on a missing DB created files"; else ok; fi
printf 'this is not a database, only text long enough to be read as one\n' >"$tmp/junk.db"
expect 2 "report on a non-database" -- "$TFSIM" report "$tmp/junk.db" -o "$tmp/r.html"
expect_err "junk.db: .*not a tfsim results database" "report on a non-database: message"
expect 2 "export on a missing DB" -- "$TFSIM" export "$tmp/none.db"
expect_err "none.db: No such file" "export on a missing DB: names the file"
expect 2 "export bad format" -- "$TFSIM" export "$tmp/junk.db" --format xml
expect_err "'xml' is not text, csv or json" "export bad format: message"
expect 2 "export two selections" -- "$TFSIM" export "$tmp/junk.db" --run 1 --sweep 2
expect_err "only one of" "export two selections: message"
expect 2 "export bad id" -- "$TFSIM" export "$tmp/junk.db" --run x
expect 2 "export bad list" -- "$TFSIM" export "$tmp/junk.db" --list points
expect_err "not runs, sweeps or measurements" "export bad list: message"

if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$tmp/fix.db" <tests/cli/report_fixture.sql
    expect 0 "report from a store" -- "$TFSIM" report "$tmp/fix.db" -o "$tmp/report.html"
    expect_err "wrote $tmp/report.html" "report says where it wrote"
    n=$(grep -o '<svg' "$tmp/report.html" | wc -l)
    if [ "$n" -eq 20 ]; then ok; else bad "report has $n SVG charts, expected 20"; fi
    if grep -q -e 'https\?://' -e '<script' "$tmp/report.html"; then bad "report loads from outside"; else ok; fi
    expect 0 "report to stdout" -- "$TFSIM" report "$tmp/fix.db" -o - --title "Capacity plan"
    expect_out "<title>Capacity plan</title>" "report --title"
    expect 1 "report without gnuplot" -- env PATH=/nonexistent "$TFSIM" report "$tmp/fix.db" -o "$tmp/r2.html"
    expect_err "gnuplot' not found" "report without gnuplot: message"
    if ls "$tmp"/r2.html* >/dev/null 2>&1; then bad "failed report left a file"; else ok; fi
    expect 1 "report into a missing directory" -- "$TFSIM" report "$tmp/fix.db" -o "$tmp/no/dir/r.html"
    expect_err "cannot create" "report into a missing directory: message"

    expect 0 "export runs" -- "$TFSIM" export "$tmp/fix.db"
    expect_out "tb_redis.ini" "export lists runs"
    expect 0 "export sweep csv" -- "$TFSIM" export "$tmp/fix.db" --sweep 1 --format csv
    expect_out "^point,client.concurrency,run,scope,name,throughput," "export sweep csv header"
    n=$(wc -l <"$tmp/out")
    if [ "$n" -eq 105 ]; then ok; else bad "export sweep csv: $n lines, expected 105"; fi
    expect 0 "export run json" -- "$TFSIM" export "$tmp/fix.db" --run 12 --format json
    expect_out '"error_pct": ' "export run json"
    expect 0 "export sweeps" -- "$TFSIM" export "$tmp/fix.db" --list sweeps --format csv
    expect_out '^2,.*,architecture,"pg_pg,pg_redis,tb_redis",3,3,' "export sweeps csv"
    expect 0 "export measurements" -- "$TFSIM" export "$tmp/fix.db" --measurements 1 --format csv
    expect_out "^tb_redis,phase,checkout,1,3," "export measurements csv"
    expect 2 "export missing run" -- "$TFSIM" export "$tmp/fix.db" --run 999
    expect_err "no run with id 999" "export missing run: message"
    if grep -q hunter2 "$tmp/fix.db" "$tmp/report.html"; then bad "a password was stored or shown"; else ok; fi
else
    bad "sqlite3 command missing (scripts/install-deps.sh installs it)"
fi
