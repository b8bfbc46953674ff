# Helpers of the command-line and integration tests (sourced, not run).
# The sourcing script sets TFSIM, tmp (a scratch folder), pass and fail.
#   ok / bad MESSAGE             count a passed / failed check
#   expect CODE DESC -- CMD...   run CMD (stdout, stderr to $tmp/out, err), check its exit code
#   expect_code_in "CODES" DESC -- CMD...   the same, any of CODES (no signal)
#   expect_err / expect_out PATTERN DESC    the last command's stderr / stdout matches PATTERN

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

expect() {
    code=$1; desc=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$code" ]; then ok; else bad "$desc: exit $rc, expected $code"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
expect_code_in() {
    codes=$1; desc=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    case " $codes " in
        *" $rc "*) ok ;;
        *) bad "$desc: exit $rc, expected one of $codes"; sed 's/^/    /' "$tmp/err" | head -5 ;;
    esac
}
expect_err() {
    if grep -q -- "$1" "$tmp/err"; then ok; else bad "$2: stderr lacks '$1'"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
expect_out() {
    if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: stdout lacks '$1'"; head -5 "$tmp/out" | sed 's/^/    /'; fi
}
# expect_live_predict FILE KEPT MAX LABEL [FITS [ARG...]]: tfsim predict
# pg_pg -> pg_redis on the live TigerFans series FILE (60 simplex
# iterations: the suite stays short; FITS fits, predict's default when
# empty or not given; ARGs passed on, e.g. --set S.K=V), checking that the
# baseline fit keeps the client KEPT ("Debian's" or "1.0's") and that the
# forward MAPE over concurrency 5-100 is under MAX percent (the run is
# deterministic).
expect_live_predict() {
    _f=$1 _kept=$2 _max=$3 _label=$4 _fits=${5:-}
    shift 4
    [ $# -gt 0 ] && shift
    expect 0 "$_label" -- "$TFSIM" predict --tigerbench "$_f" --baseline pg_pg --target pg_redis \
        --iter 60 ${_fits:+--fits $_fits} "$@" --format csv
    expect_err "objective [0-9.e-]*: $_kept kept" "$_label: keeps $_kept client"
    m=$(sed -n 's/^MAPE at concurrency >= 5: simulation \([0-9.]*\)%.*/\1/p' "$tmp/err")
    if [ -n "$m" ] && awk -v m="$m" -v x="$_max" 'BEGIN { exit !(m < x) }'; then ok
    else bad "$_label: MAPE '$m', want < $_max%"; fi
}
