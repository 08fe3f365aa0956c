#!/usr/bin/env bash
# The feed on the whole-venue load: nats-server (JetStream), the simulator with 716 spot pairs
# and 300 swap instruments, one feed of every market, a core-NATS subscriber measuring rate and
# latency. CPU from /proc (user + system ticks) over the measured window.
#
#   cargo build --release -p digifinex-cli --features feed
#   pip install -r cli/benches/feed/requirements.txt     # nats-py, for the subscriber
#   bash cli/benches/feed/run.sh                         # DUR=60 seconds measured, after 30 s
#
# Needs nats-server (2.9 or later) on PATH; BIN names the digifinex binary, PYTHON a Python
# with nats-py.
set -euo pipefail
bin=${BIN:-target/release/digifinex}
dur=${DUR:-60}
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nats-server -js -a 127.0.0.1 -p "$port" -sd "$tmp/js" >/dev/null 2>&1 & nats_pid=$!
"$bin" sim --synthetic 716,300 --no-limits > "$tmp/sim.out" 2>&1 & sim_pid=$!
trap 'kill $nats_pid $sim_pid ${feed_pid:-} 2>/dev/null; rm -rf $tmp' EXIT
for _ in $(seq 100); do grep -q swap_ws_url "$tmp/sim.out" 2>/dev/null && break; sleep 0.2; done
u() { grep "^$1:" "$tmp/sim.out" | cut -d' ' -f2; }
"$bin" feed --nats "nats://127.0.0.1:$port" --spot all --swap all --window-s 600 \
  --base-url "$(u spot_base_url)" --swap-base-url "$(u swap_base_url)" \
  --spot-ws-url "$(u spot_ws_url)" --swap-ws-url "$(u swap_ws_url)" > "$tmp/feed.out" 2> "$tmp/feed.err" & feed_pid=$!
sleep 30
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
f0=$(ticks $feed_pid); n0=$(ticks $nats_pid); s0=$(ticks $sim_pid); t0=$(date +%s.%N)
"${PYTHON:-python3}" "$(dirname "$0")/latency.py" "nats://127.0.0.1:$port" "$dur"
f1=$(ticks $feed_pid); n1=$(ticks $nats_pid); s1=$(ticks $sim_pid); t1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
python3 - "$f0" "$f1" "$n0" "$n1" "$s0" "$s1" "$t0" "$t1" "$hz" <<'PY'
import sys
f0,f1,n0,n1,s0,s1=map(int,sys.argv[1:7]); t0,t1=map(float,sys.argv[7:9]); hz=int(sys.argv[9])
el=t1-t0
print(f"cores over {el:.0f} s: feed {(f1-f0)/hz/el:.2f}, nats-server {(n1-n0)/hz/el:.2f}, simulator {(s1-s0)/hz/el:.2f}")
PY
cat "$tmp/feed.out"; tail -3 "$tmp/feed.err"
