# The report renders in headless Chromium: a non-trivial screenshot, every
# chart in the parsed page, no console errors.  (Sourced by tests/cli_test.sh.)

render_report() {
    rdir="$tmp/render"
    mkdir -p "$rdir"
    sqlite3 "$rdir/fix.db" <tests/cli/report_fixture.sql
    "$TFSIM" report "$rdir/fix.db" -o "$rdir/report.html" 2>"$rdir/report.err" || {
        bad "render: tfsim report failed: $(cat "$rdir/report.err")"
        return
    }
    url="file://$(cd "$rdir" && pwd)/report.html"
    for mode in screenshot dom; do
        profile=$(mktemp -d "$tmp/chromium-XXXXXX")
        set -- --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$profile" --window-size=1200,2000
        if [ "$mode" = screenshot ]; then
            chromium "$@" --screenshot="$rdir/report.png" "$url" >"$rdir/shot.log" 2>&1
        else
            chromium "$@" --enable-logging=stderr --v=0 --dump-dom "$url" \
                >"$rdir/dom.html" 2>"$rdir/console.log"
        fi
        rm -rf "$profile"
    done
    # A PNG of real content: the signature, and far more than a blank page.
    if [ "$(head -c 8 "$rdir/report.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
        ok
    else
        bad "render: no PNG screenshot"; sed 's/^/    /' "$rdir/shot.log" | tail -5
    fi
    size=$(wc -c <"$rdir/report.png" 2>/dev/null || echo 0)
    if [ "$size" -gt 100000 ]; then ok; else bad "render: screenshot only $size bytes"; fi
    n=$(grep -o '<svg' "$rdir/dom.html" | wc -l)
    if [ "$n" -eq 20 ]; then ok; else bad "render: parsed page has $n SVG charts, expected 20"; fi
    if grep -q -e ':CONSOLE' -e 'Failed to load resource' -e 'Uncaught' "$rdir/console.log"; then
        bad "render: console errors"; grep -e CONSOLE -e Failed -e Uncaught "$rdir/console.log" | head -5
    else
        ok
    fi
}

if command -v chromium >/dev/null 2>&1 && command -v sqlite3 >/dev/null 2>&1; then
    render_report
else
    bad "render: chromium or sqlite3 missing (scripts/install-deps.sh installs them)"
fi
