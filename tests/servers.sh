#!/bin/sh
# Start and stop real Redis and PostgreSQL servers for the tests, inside one
# temporary folder.  Nothing outside DIR is touched; every server listens on
# a unix socket in DIR and on a free loopback port.
#
#   tests/servers.sh start DIR        start redis (plus a password-protected
#                                     instance and one with --io-threads 4
#                                     --io-threads-do-reads yes, as TigerFans
#                                     runs it) and a PostgreSQL 15 cluster;
#                                     write DIR/env (sh syntax, export lines)
#   tests/servers.sh stop DIR         stop every server started in DIR (also
#                                     ones stopped with SIGSTOP); safe to
#                                     call twice and from a trap
#   tests/servers.sh redis DIR NAME   start one more redis instance NAME (for
#                                     tests that kill or freeze a server);
#                                     prints its export lines on stdout
#   tests/servers.sh pg-start DIR     (re)start the cluster made by start
#   tests/servers.sh pg-kill DIR      stop it at once (pg_ctl -m immediate)
#   tests/servers.sh pg-pids DIR      print the pids of the cluster's processes
#
# DIR/env exports: TFSIM_REDIS_SOCKET, TFSIM_REDIS_HOST, TFSIM_REDIS_PORT,
# TFSIM_REDIS_PID, TFSIM_REDIS_PW_SOCKET, TFSIM_REDIS_PW_PASSWORD,
# TFSIM_REDIS_IO4_SOCKET,
# TFSIM_PG_SOCKET (the socket directory), TFSIM_PG_HOST, TFSIM_PG_PORT,
# TFSIM_PG_CONNINFO, TFSIM_PG_PW_USER, TFSIM_PG_PW_PASSWORD.
#
# PostgreSQL refuses to run as root: as root the cluster runs as the
# `postgres` user (DIR is made traversable for it, DIR/pg is owned by it).
# As another user everything runs as that user.  Any failure prints what
# failed, with the server's log, and exits 1.
set -eu

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}

die() {
    echo "servers.sh: $*" >&2
    exit 1
}

usage() {
    die "usage: servers.sh start|stop|pg-start|pg-kill|pg-pids DIR, or servers.sh redis DIR NAME"
}

# A random number in [lo, hi].
rand_between() {
    r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
    echo $(($1 + r % ($2 - $1 + 1)))
}

# Is a TCP port bound by anyone (any state, IPv4 or IPv6)?
port_in_use() {
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v h="$hex" 'NR > 1 { n = split($2, a, ":"); if (a[n] == h) f = 1 } END { exit !f }'
}

free_port() {
    i=0
    while [ $i -lt 200 ]; do
        p=$(rand_between 20000 59999)
        if ! port_in_use "$p"; then
            echo "$p"
            return 0
        fi
        i=$((i + 1))
    done
    die "no free loopback port found"
}

secret() {
    od -An -N12 -tx1 /dev/urandom | tr -d ' \n'
}

# Run a command as the user that owns the PostgreSQL cluster, from DIR (so
# that PostgreSQL's programs never start in a folder their user cannot
# read, such as root's home when a CI job runs there).
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then
        if command -v runuser >/dev/null 2>&1; then
            (cd "$DIR" && runuser -u "$PG_OS_USER" -- "$@")
        else
            (cd "$DIR" && su -s /bin/sh "$PG_OS_USER" -c '"$0" "$@"' -- "$@")
        fi
    else
        "$@"
    fi
}

pg_os_user() {
    if [ "$(id -u)" -ne 0 ]; then
        id -un
    elif id postgres >/dev/null 2>&1; then
        echo postgres
    else
        die "running as root but there is no 'postgres' user to run PostgreSQL (install the postgresql package)"
    fi
}

# ---- redis ----

# start_redis DIR NAME PORT [PASSWORD [IO_THREADS]]: one instance, socket
# DIR/NAME.sock, pid DIR/NAME.pid, log DIR/NAME.log; PORT 0 = unix socket
# only; IO_THREADS > 1: --io-threads IO_THREADS --io-threads-do-reads yes
# (TigerFans' upstream Makefile starts Redis with 4).
start_redis() {
    d=$1 name=$2 port=$3 pw=${4:-} io=${5:-1}
    command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "redis-server not found (install redis-server)"
    set -- --port "$port" --bind 127.0.0.1 --unixsocket "$d/$name.sock" --unixsocketperm 700 \
        --dir "$d" --save "" --appendonly no --daemonize yes --pidfile "$d/$name.pid" \
        --logfile "$d/$name.log" --databases 16
    [ -n "$pw" ] && set -- "$@" --requirepass "$pw"
    [ "$io" -gt 1 ] && set -- "$@" --io-threads "$io" --io-threads-do-reads yes
    "$REDIS_SERVER" "$@" >"$d/$name.start.log" 2>&1 || return 1
    i=0
    while [ $i -lt 100 ]; do
        if [ -S "$d/$name.sock" ] && [ -s "$d/$name.pid" ]; then
            if [ -n "$pw" ]; then
                out=$(REDISCLI_AUTH=$pw "$REDIS_CLI" -s "$d/$name.sock" ping 2>/dev/null || true)
            else
                out=$("$REDIS_CLI" -s "$d/$name.sock" ping 2>/dev/null || true)
            fi
            [ "$out" = PONG ] && return 0
        fi
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# start_redis_retry DIR NAME [PASSWORD [IO_THREADS]]: on a free port,
# retrying if the port was taken meanwhile.  Sets REDIS_PORT.
start_redis_retry() {
    n=0
    while [ $n -lt 5 ]; do
        REDIS_PORT=$(free_port)
        if start_redis "$1" "$2" "$REDIS_PORT" "${3:-}" "${4:-1}"; then
            return 0
        fi
        stop_redis "$1/$2.pid"
        n=$((n + 1))
    done
    echo "servers.sh: redis-server $2 did not start; its log:" >&2
    cat "$1/$2.start.log" "$1/$2.log" >&2 2>/dev/null || true
    exit 1
}

# Is process $1 running (a zombie left for a slow reaper counts as gone)?
alive() {
    st=$(ps -o stat= -p "$1" 2>/dev/null || true)
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

stop_redis() {
    pidf=$1
    [ -s "$pidf" ] || return 0
    pid=$(cat "$pidf")
    if alive "$pid"; then
        kill -CONT "$pid" 2>/dev/null || true
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while alive "$pid" && [ $i -lt 100 ]; do
            sleep 0.05
            i=$((i + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidf"
}

# ---- postgresql ----

pg_conf() {
    # shellcheck disable=SC1091
    . "$DIR/pg.conf"
}

pg_start() {
    pg_conf
    i=0
    while :; do
        if as_pg "$PGBIN/pg_ctl" -D "$DIR/pg/data" -l "$DIR/pg/log" -w -t 30 \
            -o "-p $PG_PORT -k $DIR/pg -c listen_addresses=127.0.0.1 -c max_connections=200 -c track_wal_io_timing=on" \
            start >"$DIR/pg/ctl.log" 2>&1; then
            return 0
        fi
        i=$((i + 1))
        # The port may have been taken since it was picked: pick another.
        if [ $i -lt 3 ] && grep -q "could not bind\|could not create any TCP/IP sockets" "$DIR/pg/log" 2>/dev/null; then
            PG_PORT=$(free_port)
            write_pg_conf
            continue
        fi
        echo "servers.sh: PostgreSQL did not start; pg_ctl said:" >&2
        cat "$DIR/pg/ctl.log" >&2 || true
        echo "servers.sh: server log:" >&2
        tail -n 20 "$DIR/pg/log" >&2 2>/dev/null || true
        exit 1
    done
}

write_pg_conf() {
    printf 'PG_PORT=%s\nPG_PW_PASSWORD=%s\nPG_OS_USER=%s\n' "$PG_PORT" "$PG_PW_PASSWORD" "$PG_OS_USER" \
        >"$DIR/pg.conf"
}

pg_init() {
    [ -x "$PGBIN/initdb" ] || die "$PGBIN/initdb not found (install postgresql-15 or set PGBIN)"
    PG_OS_USER=$(pg_os_user)
    if [ "$(id -u)" -eq 0 ]; then
        # The cluster's user must reach DIR; DIR/pg is its own.
        chmod 711 "$DIR"
        mkdir "$DIR/pg"
        chown "$PG_OS_USER" "$DIR/pg"
        as_pg test -x "$DIR" || die "user $PG_OS_USER cannot reach $DIR (a parent folder is not traversable)"
    else
        mkdir "$DIR/pg"
    fi
    chmod 700 "$DIR/pg"
    if ! as_pg "$PGBIN/initdb" -D "$DIR/pg/data" -U postgres -A trust -E UTF8 --locale=C \
        --no-sync >"$DIR/pg/initdb.log" 2>&1; then
        echo "servers.sh: initdb failed:" >&2
        cat "$DIR/pg/initdb.log" >&2
        exit 1
    fi
    # One password-protected role for the wrong-password test; everyone
    # else is trusted (the sockets are private to this folder).
    as_pg sh -c "cat > '$DIR/pg/data/pg_hba.conf'" <<EOF
local all tfsim_pw scram-sha-256
host  all tfsim_pw 127.0.0.1/32 scram-sha-256
local all all trust
host  all all 127.0.0.1/32 trust
EOF
    PG_PORT=$(free_port)
    PG_PW_PASSWORD=$(secret)
    write_pg_conf
    pg_start
    pg_conf
    if ! "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR/pg" -p "$PG_PORT" -U postgres -d postgres \
        -c "CREATE ROLE tfsim_pw LOGIN PASSWORD '$PG_PW_PASSWORD'" >"$DIR/pg/psql.log" 2>&1; then
        echo "servers.sh: cannot create the test role:" >&2
        cat "$DIR/pg/psql.log" >&2
        exit 1
    fi
}

pg_pids() {
    pidf="$DIR/pg/data/postmaster.pid"
    [ -s "$pidf" ] || return 0
    pm=$(head -n 1 "$pidf")
    alive "$pm" || return 0
    echo "$pm"
    ps -o pid= --ppid "$pm" 2>/dev/null || true
}

pg_stop() {
    mode=$1
    [ -f "$DIR/pg.conf" ] || return 0
    pg_conf
    [ -s "$DIR/pg/data/postmaster.pid" ] || return 0
    for p in $(pg_pids); do
        kill -CONT "$p" 2>/dev/null || true
    done
    as_pg "$PGBIN/pg_ctl" -D "$DIR/pg/data" -m "$mode" -w -t 20 stop >"$DIR/pg/stop.log" 2>&1 ||
        as_pg "$PGBIN/pg_ctl" -D "$DIR/pg/data" -m immediate -w -t 20 stop >>"$DIR/pg/stop.log" 2>&1 ||
        { echo "servers.sh: cannot stop PostgreSQL:" >&2; cat "$DIR/pg/stop.log" >&2; return 1; }
}

q() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

write_env() {
    pg_conf
    {
        echo "export TFSIM_SERVERS_DIR=$(q "$DIR")"
        echo "export TFSIM_REDIS_SOCKET=$(q "$DIR/redis.sock")"
        echo "export TFSIM_REDIS_HOST=127.0.0.1"
        echo "export TFSIM_REDIS_PORT=$REDIS_MAIN_PORT"
        echo "export TFSIM_REDIS_PID=$(cat "$DIR/redis.pid")"
        echo "export TFSIM_REDIS_PW_SOCKET=$(q "$DIR/redis-pw.sock")"
        echo "export TFSIM_REDIS_PW_PASSWORD=$(q "$REDIS_PW")"
        echo "export TFSIM_REDIS_IO4_SOCKET=$(q "$DIR/redis-io4.sock")"
        echo "export TFSIM_PG_SOCKET=$(q "$DIR/pg")"
        echo "export TFSIM_PG_HOST=127.0.0.1"
        echo "export TFSIM_PG_PORT=$PG_PORT"
        echo "export TFSIM_PG_CONNINFO=$(q "host=$DIR/pg port=$PG_PORT dbname=postgres user=postgres")"
        echo "export TFSIM_PG_PW_USER=tfsim_pw"
        echo "export TFSIM_PG_PW_PASSWORD=$(q "$PG_PW_PASSWORD")"
    } >"$DIR/env"
}

[ $# -ge 2 ] || usage
cmd=$1
DIR=$2
[ -d "$DIR" ] || die "$DIR: not a folder"
DIR=$(cd "$DIR" && pwd)

case $cmd in
start)
    [ ! -e "$DIR/env" ] || die "$DIR already holds servers (stop them first)"
    start_redis_retry "$DIR" redis
    REDIS_MAIN_PORT=$REDIS_PORT
    REDIS_PW=$(secret)
    start_redis_retry "$DIR" redis-pw "$REDIS_PW"
    start_redis_retry "$DIR" redis-io4 "" 4
    pg_init
    write_env
    ;;
stop)
    rc=0
    pg_stop fast || rc=1
    for f in "$DIR"/*.pid; do
        [ -e "$f" ] || continue
        stop_redis "$f"
    done
    rm -f "$DIR/env"
    exit $rc
    ;;
redis)
    [ $# -eq 3 ] || usage
    name=$3
    case $name in *[!A-Za-z0-9_-]*) die "bad instance name '$name'" ;; esac
    start_redis_retry "$DIR" "$name"
    echo "export TFSIM_R_SOCKET=$(q "$DIR/$name.sock")"
    echo "export TFSIM_R_PORT=$REDIS_PORT"
    echo "export TFSIM_R_PID=$(cat "$DIR/$name.pid")"
    ;;
pg-start)
    [ -f "$DIR/pg.conf" ] || die "$DIR: no cluster (run start first)"
    pg_start
    ;;
pg-kill)
    pg_stop immediate
    ;;
pg-pids)
    pg_conf
    pg_pids
    ;;
*)
    usage
    ;;
esac
