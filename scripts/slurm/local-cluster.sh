#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the tests and for trying `bench slurm` before a lab's
# cluster: munged, MariaDB + slurmdbd (so that sacct works), slurmctld and slurmd, with every file (keys,
# configuration, state, logs, database) under one directory.
#
#   scripts/slurm/local-cluster.sh start    installs slurm-wlm, slurmdbd, munge and mariadb-server with apt when
#                                           missing, configures and starts the daemons, waits for the node to be idle
#   scripts/slurm/local-cluster.sh status   sinfo and the daemons' pids
#   scripts/slurm/local-cluster.sh stop     stops the daemons (state stays; `start` again reuses it)
#   scripts/slurm/local-cluster.sh env      prints the export line the Slurm commands need (SLURM_CONF)
#
# Directory: $BRAINLENS_SLURM_DIR, else /tmp/brainlens-slurm. The commands (sbatch, squeue, sacct, …) find this
# cluster through SLURM_CONF=$DIR/etc/slurm.conf. Ports: 16817 (slurmctld), 16818 (slurmd), 16819 (slurmdbd),
# 13306 (MariaDB, loopback only). It runs as root (slurmd must); it exits with status 2 and a reason where the
# daemons cannot start, so that callers can tell "cannot run here" from a failure.
set -euo pipefail
DIR="${BRAINLENS_SLURM_DIR:-/tmp/brainlens-slurm}"
export SLURM_CONF="$DIR/etc/slurm.conf"
CLUSTER=brainlens

cannot() { echo "local-cluster: cannot start Slurm here: $*" >&2; exit 2; }
log() { echo "local-cluster: $*" >&2; }

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

wait_for() { # seconds, description, command...
    local n="$1" what="$2"; shift 2
    for _ in $(seq 1 $((n * 4))); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.25
    done
    log "timed out after ${n} s waiting for $what; logs in $DIR/log:"
    tail -n 5 "$DIR"/log/*.log >&2 || true
    return 1
}

install() {
    local need=()
    for c in munged:munge slurmctld:slurmctld slurmd:slurmd slurmdbd:slurmdbd sbatch:slurm-client mariadbd:mariadb-server; do
        command -v "${c%%:*}" >/dev/null || [ -x "/usr/sbin/${c%%:*}" ] || need+=("${c##*:}")
    done
    [ ${#need[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || cannot "needs root to install ${need[*]} and to run slurmd"
    log "installing with apt-get: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null \
        || cannot "apt-get install ${need[*]} failed"
}

configure() {
    mkdir -p "$DIR"/{etc,log,run,ctld,spool,munge,mysql}
    chmod 700 "$DIR/munge" "$DIR/etc"
    [ -s "$DIR/munge/munge.key" ] || { dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none; chmod 400 "$DIR/munge/munge.key"; }
    [ -s "$DIR/etc/db.pass" ] || { head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DIR/etc/db.pass"; chmod 600 "$DIR/etc/db.pass"; }
    local host node
    host="$(hostname -s)"
    # The node's real CPUs and memory, as slurmd itself detects them.
    node="$(/usr/sbin/slurmd -C | head -n 1)"
    [[ "$node" == NodeName=* ]] || cannot "slurmd -C printed no node line: $node"
    cat >"$SLURM_CONF" <<EOF
# One-node cluster written by scripts/slurm/local-cluster.sh.
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=16819
# For slurmdbd connections Slurm takes the munge socket from here.
AccountingStoragePass=$DIR/munge/munge.socket
MinJobAge=300
KillWait=5
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    cat >"$DIR/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=16819
SlurmUser=root
PidFile=$DIR/run/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=13306
StorageUser=slurm
StoragePass=$(cat "$DIR/etc/db.pass")
StorageLoc=slurm_acct_db
EOF
    chmod 600 "$DIR/etc/slurmdbd.conf"
    rm -f "$DIR/etc/cgroup.conf"
}

start_db() {
    if [ ! -d "$DIR/mysql/mysql" ]; then
        mariadb-install-db --datadir="$DIR/mysql" --user=root --skip-test-db --auth-root-authentication-method=socket \
            >"$DIR/log/mariadb-install.log" 2>&1 || cannot "mariadb-install-db failed (see $DIR/log/mariadb-install.log)"
    fi
    if ! pid_alive "$DIR/run/mariadb.pid"; then
        mariadbd --no-defaults --datadir="$DIR/mysql" --socket="$DIR/run/mysql.sock" --port=13306 \
            --bind-address=127.0.0.1 --user=root --pid-file="$DIR/run/mariadb.pid" --log-error="$DIR/log/mariadb.log" \
            --innodb-buffer-pool-size=64M >/dev/null 2>&1 &
        wait_for 60 "MariaDB" mariadb --no-defaults --socket="$DIR/run/mysql.sock" -e "select 1" || cannot "MariaDB did not start"
    fi
    local pass; pass="$(cat "$DIR/etc/db.pass")"
    mariadb --no-defaults --socket="$DIR/run/mysql.sock" -e "
        CREATE DATABASE IF NOT EXISTS slurm_acct_db;
        CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || cannot "could not create the accounting database"
}

start() {
    install
    [ "$(id -u)" = 0 ] || cannot "slurmd must run as root (this is uid $(id -u))"
    configure
    if ! pid_alive "$DIR/run/munged.pid"; then
        /usr/sbin/munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
            --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munge.seed" \
            || cannot "munged did not start (see $DIR/log/munged.log)"
    fi
    start_db
    pid_alive "$DIR/run/slurmdbd.pid" || SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmdbd || cannot "slurmdbd did not start"
    wait_for 60 "slurmdbd" bash -c "echo > /dev/tcp/127.0.0.1/16819" || cannot "slurmdbd is not listening"
    # The cluster must exist in the database before slurmctld registers with it.
    sacctmgr -i show cluster -n format=cluster | grep -qw "$CLUSTER" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
    pid_alive "$DIR/run/slurmctld.pid" || /usr/sbin/slurmctld || cannot "slurmctld did not start (see $DIR/log/slurmctld.log)"
    wait_for 60 "slurmctld" scontrol ping || cannot "slurmctld does not answer"
    pid_alive "$DIR/run/slurmd.pid" || /usr/sbin/slurmd || cannot "slurmd did not start (see $DIR/log/slurmd.log)"
    # A node that was down (e.g. after a stop) comes back with ReturnToService=2; resume it if it is still drained.
    wait_for 60 "the node to register" bash -c "sinfo -h -o %T | grep -qvE 'unknown|^$'" || cannot "the node never registered"
    if sinfo -h -o %T | grep -qE 'down|drain'; then scontrol update nodename="$(hostname -s)" state=resume || true; fi
    wait_for 60 "the node to be idle" bash -c "sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)'" || cannot "the node is not idle: $(sinfo -h -o '%T %E')"
    status
    echo "export SLURM_CONF=$SLURM_CONF"
}

stop() {
    for d in slurmd slurmctld slurmdbd mariadb munged; do
        local p="$DIR/run/$d.pid"
        if pid_alive "$p"; then
            kill "$(cat "$p" 2>/dev/null)" 2>/dev/null || true
            for _ in $(seq 1 80); do pid_alive "$p" || break; sleep 0.25; done
            pid_alive "$p" && kill -9 "$(cat "$p" 2>/dev/null)" 2>/dev/null || true
            log "stopped $d"
        fi
        rm -f "$p"
    done
}

status() {
    for d in munged mariadb slurmdbd slurmctld slurmd; do
        if pid_alive "$DIR/run/$d.pid"; then echo "$d: running (pid $(cat "$DIR/run/$d.pid"))"; else echo "$d: not running"; fi
    done
    if pid_alive "$DIR/run/slurmctld.pid"; then sinfo; fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    env) echo "export SLURM_CONF=$SLURM_CONF" ;;
    *) echo "usage: $0 start|stop|status|env" >&2; exit 64 ;;
esac
