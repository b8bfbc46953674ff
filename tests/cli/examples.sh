# Every example of every command's --help, and the README tour, runs as
# written from a fresh clone (issue #16 item 8): the files an example reads
# are in the repository (or written by an earlier example of the same
# list), and the examples that need no server and run in seconds are run,
# in a directory holding only what a clone has.  (Sourced by
# tests/cli_test.sh: uses expect, ok, bad, $tmp, $TFSIM.)
edir="$tmp/examples"
mkdir -p "$edir/clone/tests"
tfsim_abs=$(cd "$(dirname "$TFSIM")" && pwd)/$(basename "$TFSIM")
cp -R configs "$edir/clone/" && cp -R tests/data "$edir/clone/tests/" && cp README.md "$edir/clone/"

# examples FILE: one example per line (continuations joined) from the text in FILE
examples() {
    awk '/^examples:$/ { on = 1; next } on && /^$/ { on = 0 } on' "$1" |
        awk '{ sub(/^ +/, ""); line = line (line == "" ? "" : " ") $0 }
             /(\\|&&)$/ { sub(/ *\\$/, "", line); next }
             { print line; line = "" }'
}
# the README tour: the ```sh block after "## A five-minute tour", as examples
awk '/^## A five-minute tour/ { t = 1 } t && /^```sh$/ { on = 1; print "examples:"; next }
     on && /^```$/ { exit } on && !/^#/ && NF { print "  " $0 }' README.md >"$edir/readme.txt"
echo >>"$edir/readme.txt"
if [ "$(examples "$edir/readme.txt" | grep -c .)" -ge 8 ]; then ok; else bad "examples: README tour not found"; fi
if grep -q '^  tfsim ' "$edir/readme.txt"; then bad "README tour: say bin/tfsim (or make install)"; else ok; fi

# check_inputs LIST: every file an example reads exists (a repository path
# such as configs/... or tests/..., or a file an earlier example wrote)
check_inputs() {
    made=" "
    while IFS= read -r ex; do
        set -f
        set -- $ex
        set +f
        prev=""
        for a in "$@"; do
            case "$prev" in
            --out|-o|--db|--config-out|'>'|--params-out) made="$made$a " ;;
            esac
            case "$a" in
            ../*|data/*) bad "example reads $a, outside the clone: $ex" ;;
            configs/*|tests/*|docs/*)
                if [ -e "$a" ]; then ok; else bad "example reads $a, not in the repository: $ex"; fi ;;
            *.ini|*.csv)
                case "$prev" in --out|-o|--config-out|'>'|--params-out) ;; *)
                    case "$made" in *" $a "*) ok ;; *) bad "example reads $a, which no earlier example writes: $ex" ;; esac ;;
                esac ;;
            esac
            prev=$a
        done
    done
}
cmds=$("$TFSIM" --help | sed -n '/^commands:$/,/^$/p' | sed -n 's/^  \([a-z][a-z0-9_-]*\)  *[^ ].*/\1/p')
for c in $cmds; do
    "$TFSIM" "$c" --help >"$edir/$c.txt"
    examples "$edir/$c.txt" >"$edir/$c.list"
    check_inputs <"$edir/$c.list"
done
examples "$edir/readme.txt" >"$edir/readme.list"
check_inputs <"$edir/readme.list"

# run the ones that need no server and take seconds, as written, in the clone
# (probe, live, compare need servers, fit reads a probe's samples, calibrate
# runs for minutes: their inputs are checked above).  Once, with the release
# build: under the sanitizers (make san-test) they would take minutes.
run_examples() {
    while IFS= read -r ex; do
        case "$ex" in
        *"tfsim probe"*|*"tfsim live"*|*"tfsim compare"*|*"tfsim fit"*|*"tfsim calibrate"*|*"| less"*) continue ;;
        esac
        cmd=$(printf '%s\n' "$ex" | sed "s#\(^\|&& \)\(bin/\)\{0,1\}tfsim #\1$tfsim_abs #g")
        if grep -qxF -- "$cmd" "$edir/ran" 2>/dev/null; then continue; fi # the same twice
        printf '%s\n' "$cmd" >>"$edir/ran"
        if (cd "$edir/clone" && ${EXAMPLES_TIME:+/usr/bin/time -a -o "$EXAMPLES_TIME" -f "%e $ex"} sh -c "$cmd") >"$edir/out" 2>"$edir/err"; then
            ok
        else
            bad "example failed (exit $?): $ex"; sed 's/^/    /' "$edir/err" | tail -3
        fi
    done <"$1"
}
case "$TFSIM" in
*/san/*) ;;
*)
    for c in $cmds; do
        run_examples "$edir/$c.list"
    done
    run_examples "$edir/readme.list" ;;
esac
