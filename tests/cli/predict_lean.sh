# scripts/predict_lean.py: where predict leans over several series.  Two
# hand-made predict outputs with known errors: the per-cell means, the
# counts beyond 15%, the per-file MAPE and the totals must come out to the
# printed digit; points below --min-concurrency and points without a
# measurement are left out.
cat >"$tmp/a.csv" <<'CSV'
phase,concurrency,throughput,measured,error_pct
checkout,1,100,90,11.1
checkout,5,110,100,10
checkout,100,80,100,-20
webhook,5,200,200,0
webhook,100,120,100,20
commit,5,300,,
CSV
cat >"$tmp/b.csv" <<'CSV'
phase,concurrency,throughput,measured,error_pct
checkout,5,90,100,-10
checkout,100,95,100,-5
webhook,5,220,200,10
webhook,100,130,100,30
CSV
expect 0 "predict_lean over two series" -- python3 scripts/predict_lean.py "$tmp/a.csv" "$tmp/b.csv"
expect_out "^checkout  *+0\.0(0/2)  *-12\.5(1/2)$" "predict_lean: checkout's means and misses"
expect_out "^webhook  *+5\.0(0/2)  *+25\.0(2/2)$" "predict_lean: webhook's means and misses"
expect_out "^points 8: mean +4\.4%, absolute 13\.1%, 3 more than 15% off$" "predict_lean: the totals"
if grep -q "^commit" "$tmp/out"; then bad "predict_lean: a point without a measurement was counted"; else ok; fi
expect 0 "predict_lean --by-file --min-concurrency 1" -- python3 scripts/predict_lean.py --by-file --min-concurrency 1 "$tmp/a.csv"
expect_out "a\.csv: MAPE 12\.2% (5 points)$" "predict_lean: a file's MAPE, the point at 1 kept"
expect_out "^checkout  *+11\.1(0/1)  *+10\.0(0/1)  *-20\.0(1/1)$" "predict_lean: the column at 1"
# bad input: the file, line and column named, exit 2
sed '3s/,10$/,x/' "$tmp/a.csv" >"$tmp/bad.csv"
expect 2 "predict_lean: an error that is not a number" -- python3 scripts/predict_lean.py "$tmp/bad.csv"
expect_err "bad.csv:3: error_pct: 'x' is not a number" "predict_lean names the file, line and column"
cut -d, -f1,2 "$tmp/a.csv" >"$tmp/nocol.csv"
expect 2 "predict_lean: no error column" -- python3 scripts/predict_lean.py "$tmp/nocol.csv"
expect_err "nocol.csv: no column error_pct" "predict_lean names the missing column"
head -3 "$tmp/a.csv" >"$tmp/short.csv"; echo "webhook,5" >>"$tmp/short.csv"
expect 2 "predict_lean: a row short of fields" -- python3 scripts/predict_lean.py "$tmp/short.csv"
expect_err "short.csv:4: fewer fields than the header's" "predict_lean names the short row's line"
expect 2 "predict_lean: nothing at 101 and up" -- python3 scripts/predict_lean.py --min-concurrency 101 "$tmp/a.csv"
expect_err "no measured point" "predict_lean: no point at all"
expect 2 "predict_lean: a file that is not there" -- python3 scripts/predict_lean.py "$tmp/none.csv"
expect_err "none.csv: No such file" "predict_lean names the missing file"
