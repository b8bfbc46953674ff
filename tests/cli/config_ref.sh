# tfsim config: the config reference, and the README section that must be
# exactly its output.  (Sourced by tests/cli_test.sh.)

cdir="$tmp/config"
mkdir -p "$cdir"
readme_ref() { sed -n '/^<!-- config-ref:begin -->$/,/^<!-- config-ref:end -->$/p' "$1" | sed '1d;$d'; }

expect 0 "config (markdown)" -- "$TFSIM" config
cp "$tmp/out" "$cdir/ref.md"
expect_out "^#### \[run\]$" "config lists [run]"
expect_out '^| `replications` | integer | `10` | replications | 1 to 100000 | ' "config row: type, default, unit, range"
expect_out '^#### \[station.NAME\]$' "config: wildcard sections shown as NAME"
expect_out '^| `service` | distribution | \*(none)\* | s | ' "config: keys without a default"
expect_out '^### `tfsim amdahl` input' "config: the amdahl input"
expect_out '^### Model `tigerfans`: ' "config: per-model heading"
if [ -f README.md ] && grep -q '^<!-- config-ref:begin -->$' README.md; then
    readme_ref README.md >"$cdir/readme.md"
    if cmp -s "$cdir/ref.md" "$cdir/readme.md"; then
        ok
    else
        bad "README.md config reference differs from 'tfsim config' (regenerate: bin/tfsim config --update-readme README.md)"
        diff "$cdir/readme.md" "$cdir/ref.md" | head -5 | sed 's/^/    /'
    fi
else
    bad "README.md has no config reference section between the config-ref markers"
fi

# every key of the schema, one row each, in CSV and JSON
expect 0 "config --format csv" -- "$TFSIM" config --format csv
expect_out "^applies_to,section,key,type,default,unit,min,max,choices,help$" "config csv header"
expect_out "^all,run,replications,integer,10,replications,1,100000,," "config csv row"
rows=$(($(wc -l <"$tmp/out") - 1))
keys=$(grep -c '^| `' "$cdir/ref.md")
if [ "$rows" -eq "$keys" ] && [ "$rows" -gt 50 ]; then ok; else bad "config: $rows CSV rows, $keys Markdown rows"; fi
expect 0 "config --format json" -- "$TFSIM" config --format json
n=$(grep -c '"key": ' "$tmp/out")
if [ "$n" -eq "$keys" ]; then ok; else bad "config json: $n keys, expected $keys"; fi
# every key the shipped configs set is in the reference
missing=""
for f in configs/*/*.ini configs/*/*/*.ini; do
    [ -f "$f" ] || continue
    for k in $(sed -n 's/^\([a-z_][a-z_0-9]*\)[ \t]*=.*/\1/p' "$f"); do
        [ "$k" = include ] && continue
        grep -q "^| \`$k\` |" "$cdir/ref.md" || missing="$missing $f:$k"
    done
done
if [ -z "$missing" ]; then ok; else bad "keys missing from the reference:$missing"; fi

# --update-readme rewrites exactly the marked section, in place
printf '# Title\n\nbefore\n<!-- config-ref:begin -->\nstale text\n<!-- config-ref:end -->\nafter\n' >"$cdir/R.md"
expect 0 "config --update-readme" -- "$TFSIM" config --update-readme "$cdir/R.md"
expect_err "config reference updated" "update-readme says it updated"
{ printf '# Title\n\nbefore\n<!-- config-ref:begin -->\n'; cat "$cdir/ref.md"; printf '<!-- config-ref:end -->\nafter\n'; } >"$cdir/want.md"
if cmp -s "$cdir/want.md" "$cdir/R.md"; then ok; else bad "update-readme: unexpected file"; diff "$cdir/want.md" "$cdir/R.md" | head -5; fi
expect 0 "config --update-readme again" -- "$TFSIM" config --update-readme "$cdir/R.md"
expect_err "already up to date" "update-readme: nothing to do"
if cmp -s "$cdir/want.md" "$cdir/R.md"; then ok; else bad "update-readme changed an up-to-date file"; fi
printf '# no markers\n' >"$cdir/plain.md"
expect 2 "update-readme without markers" -- "$TFSIM" config --update-readme "$cdir/plain.md"
expect_err "plain.md: no line <!-- config-ref:begin -->" "update-readme without markers: message"
if [ "$(cat "$cdir/plain.md")" = "# no markers" ] && [ "$(ls "$cdir" | grep -c plain)" -eq 1 ]; then ok; else bad "update-readme without markers touched the file"; fi
expect 2 "update-readme missing file" -- "$TFSIM" config --update-readme "$cdir/none.md"
expect_err "none.md: cannot open" "update-readme missing file: message"
expect 2 "config bad format" -- "$TFSIM" config --format xml
expect_err "'xml' is not markdown, csv or json" "config bad format: message"
expect 2 "config extra argument" -- "$TFSIM" config foo
