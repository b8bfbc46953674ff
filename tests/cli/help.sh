# --help for every command that `tfsim --help` lists (parsed, so that new
# commands are covered by themselves), --version, exit codes documented.
# (Sourced by tests/cli_test.sh.)

expect 0 "tfsim --help" -- "$TFSIM" --help
cp "$tmp/out" "$tmp/help.txt"
cmds=$(sed -n '/^commands:$/,/^$/p' "$tmp/help.txt" | sed -n 's/^  \([a-z][a-z0-9_-]*\)  *[^ ].*/\1/p')
ncmds=$(printf '%s\n' $cmds | grep -c .)
if [ "$ncmds" -ge 8 ]; then ok; else bad "tfsim --help lists only $ncmds commands: $cmds"; fi
for c in run sweep diff plan report export config; do
    case " $(echo $cmds) " in *" $c "*) ok ;; *) bad "tfsim --help does not list $c" ;; esac
done
if grep -q "exit status: 0 success, 1 .*" "$tmp/help.txt" && grep -q "2 bad input" "$tmp/help.txt"; then
    ok
else
    bad "tfsim --help does not document the exit codes"
fi

for c in $cmds; do
    expect 0 "$c --help" -- "$TFSIM" "$c" --help
    expect_out "^usage: tfsim $c" "$c --help: usage line"
    # an example: a line under "examples:" that runs the command
    if sed -n '/^examples:$/,/^$/p' "$tmp/out" | grep -q "^  *\(bin/\)\{0,1\}tfsim $c "; then
        ok
    else
        bad "$c --help: no example line ('examples:' then '  tfsim $c ...')"
    fi
    if [ -s "$tmp/err" ]; then bad "$c --help wrote to stderr"; else ok; fi
    expect 0 "$c -h" -- "$TFSIM" "$c" -h
    expect 0 "tfsim help $c" -- "$TFSIM" help "$c"
    expect_out "^usage: tfsim $c" "tfsim help $c"
done

expect 0 "tfsim --version" -- "$TFSIM" --version
if grep -Eq '^tfsim [0-9]+\.[0-9]+\.[0-9]+ \([^ ()]+\)$' "$tmp/out"; then
    ok
else
    bad "--version: expected 'tfsim X.Y.Z (git revision)', got '$(cat "$tmp/out")'"
fi
# the revision is the checkout's (make rebuilds the build facts every time)
if head=$(git rev-parse --short=7 HEAD 2>/dev/null); then
    if grep -q "$head" "$tmp/out"; then ok; else bad "--version: '$(cat "$tmp/out")' is not revision $head"; fi
fi
expect 2 "tfsim without a command" -- "$TFSIM"
expect_err "usage: tfsim COMMAND" "tfsim without a command: usage on stderr"
