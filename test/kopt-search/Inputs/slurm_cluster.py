#!/usr/bin/env python3
"""A one-node Slurm cluster on loopback, for tests (docs/slurm.md).

    slurm_cluster.py start DIR   start munged, slurmctld, slurmd under DIR;
                                 prints the SLURM_CONF to export
    slurm_cluster.py stop DIR    stop them (also what `start` left on error)

Everything lives in DIR: configuration, munge key and socket, state, spool,
logs. Ports are picked free on 127.0.0.1; the node has 2 CPUs and two fake
GPUs (count-only GRES backed by empty files), so `--gres gpu:1` schedules
without hardware. Every step is bounded in time.
"""
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def wait_for(what, check, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit("slurm_cluster: timed out waiting for " + what)


def start(d):
    d = os.path.abspath(d)
    for sub in ("state", "spool", "log", "munge"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    host = socket.gethostname()
    key = os.path.join(d, "munge", "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o600)
    sock = os.path.join(d, "munge", "munge.sock")
    subprocess.run(["munged", "--force", "--key-file=" + key, "--socket=" + sock,
                    "--pid-file=" + os.path.join(d, "munge", "munged.pid"),
                    "--log-file=" + os.path.join(d, "munge", "munged.log"),
                    "--seed-file=" + os.path.join(d, "munge", "seed")],
                   check=True, timeout=30)
    for i in range(2):
        write(os.path.join(d, "fakegpu%d" % i), "")
    conf = os.path.join(d, "slurm.conf")
    write(conf, f"""ClusterName=kopttest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
SlurmUser={os.environ.get("USER", "root")}
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=30
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:fake:2 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    write(os.path.join(d, "gres.conf"),
          f"NodeName={host} Name=gpu Type=fake File={d}/fakegpu[0-1]\n")
    env = dict(os.environ, SLURM_CONF=conf)
    subprocess.run(["slurmctld", "-f", conf, "-i"], check=True, env=env, timeout=30)
    subprocess.run(["slurmd", "-f", conf], check=True, env=env, timeout=30)

    def idle():
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, text=True,
                             capture_output=True, timeout=30).stdout
        return out.strip() == "idle"
    wait_for("the node to be idle", idle, 60)
    print(conf)


def stop(d):
    d = os.path.abspath(d)
    for pidfile in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
        path = os.path.join(d, pidfile)
        try:
            pid = int(open(path).read().strip())
        except (OSError, ValueError):
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        end = time.time() + 15
        while time.time() < end:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)
    if sys.argv[1] == "start":
        try:
            start(sys.argv[2])
        except BaseException:
            stop(sys.argv[2])
            raise
    else:
        stop(sys.argv[2])
