#!/usr/bin/env bash
# Starts (or tops up) a three-member MariaDB Galera cluster on localhost for the multi-node suite, each member
# with its own port, data dir, socket and wsrep ports; never touches the system MariaDB (its own config file,
# --defaults-file only). Prints the environment the tests read:
#   TEST_GALERA_URLS      three mysql:// URLs (member 1, 2, 3)
#   TEST_GALERA_PIDFILES  the members' pid files (the suite kill -9s one member mid-load)
# Usage: .ci/galera.sh [start|stop|env]      (start is idempotent: a dead member rejoins via IST/SST)
# Ports (GALERA_BASE_PORT, default 4306): member i (0..2) listens for SQL on BASE+i, group communication on
# 4567+10i, IST on 4568+10i, rsync SST on 4444+10i.
set -euo pipefail
cmd="${1:-start}"
DIR="${GALERA_DIR:-/tmp/svc-galera}"
BASE="${GALERA_BASE_PORT:-4306}"
PROVIDER="${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}"
USER_OPT=()
[ "$(id -u)" = 0 ] && USER_OPT=(--user=mysql)

sql_port() { echo $((BASE + $1)); }
gcomm_port() { echo $((4567 + 10 * $1)); }
cluster_addr() { echo "gcomm://127.0.0.1:$(gcomm_port 0),127.0.0.1:$(gcomm_port 1),127.0.0.1:$(gcomm_port 2)"; }

print_env() {
  local urls=() pids=()
  for i in 0 1 2; do
    urls+=("mysql://svc_ci:svc_ci@127.0.0.1:$(sql_port "$i")")
    pids+=("$DIR/m$i/mariadbd.pid")
  done
  echo "export TEST_GALERA_URLS='$(IFS=,; echo "${urls[*]}")'"
  echo "export TEST_GALERA_PIDFILES='$(IFS=,; echo "${pids[*]}")'"
}

write_cnf() {
  local i=$1 d="$DIR/m$1"
  cat >"$d/my.cnf" <<CNF
[mysqld]
datadir=$d/data
socket=$d/mariadbd.sock
pid-file=$d/mariadbd.pid
# its own temp dir: a starting mariadbd deletes every '#sql*' file in its tmpdir, which in /tmp would be the
# shared test server's live temporary tables
tmpdir=$d
log-error=$d/error.log
port=$(sql_port "$i")
bind-address=127.0.0.1
skip-log-bin
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_log_file_size=48M
# CI durability comes from the cluster (a commit is on every member); fsync per commit only slows the suite
innodb_flush_log_at_trx_commit=0
performance_schema=OFF
max_connections=300
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=svc_ci_galera
wsrep_cluster_address=$(cluster_addr)
wsrep_node_name=m$i
wsrep_node_address=127.0.0.1:$(gcomm_port "$i")
wsrep_provider_options="base_port=$(gcomm_port "$i");ist.recv_addr=127.0.0.1:$(($(gcomm_port "$i") + 1));gcache.size=128M;pc.wait_prim_timeout=PT10S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((4444 + 10 * i))
wsrep_slave_threads=2
# causal reads, as the README asks of a deployment: a session created through one member is seen at once through
# another (a create on node A and the signer's open on node B, milliseconds apart)
wsrep_sync_wait=7
[client]
socket=$d/mariadbd.sock
CNF
}

alive() { [ -f "$DIR/m$1/mariadbd.pid" ] && kill -0 "$(cat "$DIR/m$1/mariadbd.pid")" 2>/dev/null; }

wait_synced() {
  local i=$1 pid=$2
  for _ in $(seq 1 120); do
    if state=$(mariadb --defaults-file="$DIR/m$i/my.cnf" -uroot -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null) &&
      [[ "$state" == *Synced* ]]; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { echo "galera member $i died; see $DIR/m$i/error.log" >&2; tail -30 "$DIR/m$i/error.log" >&2; return 1; }
    sleep 1
  done
  echo "galera member $i did not reach Synced" >&2
  tail -30 "$DIR/m$i/error.log" >&2
  return 1
}

start_member() {
  local i=$1 bootstrap=${2:-} d="$DIR/m$1"
  alive "$i" && return 0
  mkdir -p "$d/data"
  write_cnf "$i"
  [ "$(id -u)" = 0 ] && chown -R mysql:mysql "$d"
  if [ -n "$bootstrap" ] && [ ! -d "$d/data/mysql" ]; then
    mariadb-install-db --defaults-file="$d/my.cnf" "${USER_OPT[@]}" --auth-root-authentication-method=socket \
      >"$d/install.log" 2>&1
  fi
  local extra=()
  if [ -n "$bootstrap" ]; then
    extra+=(--wsrep-new-cluster)
    # a member that was killed may refuse to bootstrap without this; it is the only member here
    [ -f "$d/data/grastate.dat" ] && sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$d/data/grastate.dat"
  fi
  # setsid: the member outlives this script and the CI step's process group
  setsid /usr/sbin/mariadbd --defaults-file="$d/my.cnf" "${USER_OPT[@]}" "${extra[@]}" </dev/null >/dev/null 2>&1 &
  wait_synced "$i" $!
}

case "$cmd" in
  start)
    [ -f "$PROVIDER" ] || { echo "galera provider $PROVIDER missing (apt-get install galera-4)" >&2; exit 1; }
    mkdir -p "$DIR"
    if alive 0 || alive 1 || alive 2; then
      for i in 0 1 2; do start_member "$i"; done
    else
      start_member 0 bootstrap
      start_member 1
      start_member 2
    fi
    # Replicated to every member (account DDL is replicated by Galera); idempotent for a top-up run.
    mariadb --defaults-file="$DIR/m0/my.cnf" -uroot <<'SQL'
CREATE USER IF NOT EXISTS 'svc_ci'@'127.0.0.1' IDENTIFIED BY 'svc_ci';
CREATE USER IF NOT EXISTS 'svc_ci'@'localhost' IDENTIFIED BY 'svc_ci';
GRANT ALL PRIVILEGES ON *.* TO 'svc_ci'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'svc_ci'@'localhost';
SQL
    size=$(mariadb --defaults-file="$DIR/m0/my.cnf" -uroot -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null |
      awk '{print $2}' || true)
    echo "galera cluster up (size ${size:-?})" >&2
    print_env
    ;;
  stop)
    for i in 2 1 0; do
      if alive "$i"; then
        kill "$(cat "$DIR/m$i/mariadbd.pid")"
        for _ in $(seq 1 60); do alive "$i" || break; sleep 1; done
      fi
    done
    ;;
  env) print_env ;;
  *)
    echo "usage: $0 [start|stop|env]" >&2
    exit 2
    ;;
esac
