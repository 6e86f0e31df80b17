#!/usr/bin/env bash
# Integration check of `--shard` under a real Slurm (outside CI): starts a
# single-node Slurm on this machine from Debian's packages (munge, slurmctld,
# slurmd), submits README.md's array job unchanged on a folder of photos, waits
# for it, and checks that every input was written exactly once across the
# array's tasks. Needs root (or sudo) for the packages and the daemons.
#
#   Benchmarks/batch-slurm.sh                # 40 photos
#   COUNT=200 FXC=/tmp/build/release/fxc Benchmarks/batch-slurm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
COUNT=${COUNT:-40}
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo

missing=()
for p in munge slurmctld slurmd slurm-client; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ -z "${FXC:-}" ]; then
  scripts/install-deps.sh >/dev/null
  swift build -c release --product fxc >/dev/null
  FXC=$repo/.build/release/fxc
fi

work=$(mktemp -d /tmp/fxc-slurm-XXXXXX)
chmod 755 "$work"
conf=$work/slurm.conf
stop() {
  for pid in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munged.pid; do
    [ -f "$pid" ] && $sudo kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$work"
}
trap stop EXIT

# munge: a key of our own (in a private directory), a daemon with its own socket.
mkdir -p "$work/munge" "$work/munge-key"
$sudo dd if=/dev/urandom of="$work/munge-key/munge.key" bs=1k count=1 status=none
$sudo chown -R munge:munge "$work/munge" "$work/munge-key"
$sudo chmod 755 "$work/munge" && $sudo chmod 700 "$work/munge-key" && $sudo chmod 400 "$work/munge-key/munge.key"
socket=$work/munge/munge.socket
as_munge() { if [ "$(id -u)" -eq 0 ]; then runuser -u munge -- "$@"; else sudo -u munge "$@"; fi; }
as_munge /usr/sbin/munged --key-file="$work/munge-key/munge.key" --socket="$socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge-key/seed"
cp "$work/munge/munged.pid" "$work/munged.pid"

host=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat >"$conf" <<EOF
ClusterName=fxc
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=batch Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
$sudo env SLURM_CONF="$conf" slurmctld -f "$conf"
$sudo env SLURM_CONF="$conf" slurmd -f "$conf"
for _ in $(seq 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed)' && break
  sleep 1
done
sinfo

# The photos, the README's job script, fxc on the PATH.
mkdir -p "$work/job/photos/sub"
sources=(../shared/data/photos/*.jpg)
[ -e "${sources[0]}" ] || sources=(examples/rocket.jpg)
for ((i = 0; i < COUNT; i++)); do
  dir=$work/job/photos
  ((i % 4 == 0)) && dir=$work/job/photos/sub
  cp "${sources[i % ${#sources[@]}]}" "$(printf '%s/photo-%04d.jpg' "$dir" $((i + 1)))"
done
sed -n '/<!-- slurm-array-begin -->/,/<!-- slurm-array-end -->/p' README.md | sed '1,2d;$d' | sed '$d' >"$work/job/fxc-array.sh"
mkdir -p "$work/bin" && cp "$FXC" "$work/bin/fxc"
cat "$work/job/fxc-array.sh"
cd "$work/job"
PATH=$work/bin:$PATH sbatch --wait fxc-array.sh
cat fxc-*.log

# Every input written exactly once across the tasks.
python3 - "$COUNT" <<'EOF'
import glob, json, os, sys
count = int(sys.argv[1])
inputs = sorted(os.path.relpath(p, "photos") for p in glob.glob("photos/**/*.jpg", recursive=True))
outputs = sorted(os.path.relpath(p, "graded") for p in glob.glob("graded/**/*.jpg", recursive=True))
written = []
for r in sorted(glob.glob("reports/*.json")):
    report = json.load(open(r))
    ok = [os.path.relpath(f["output"], "graded") for f in report["files"] if f["status"] == "ok"]
    print(f"{r}: shard {report['shard']}, {len(ok)} written")
    written += ok
assert len(inputs) == count, (len(inputs), count)
assert outputs == inputs, f"outputs differ from inputs: {set(inputs) ^ set(outputs)}"
assert sorted(written) == inputs, "some input was written twice or never"
assert not glob.glob("graded/**/.*", recursive=True), "temporary files left"
print(f"ok: {count} inputs, {len(glob.glob('reports/*.json'))} array tasks, every output written exactly once")
EOF
