#!/usr/bin/env bash
# Fan-out of one feed of the whole venue to many consumers on one machine: nats-server
# (JetStream), the simulator with 716 spot pairs and 300 swap instruments, one feed of every
# market, then the fan-out bench (cli/benches/feed_fanout.rs) twice in the same run: first one
# reader (the baseline), then CONSUMERS readers, each the blocking client's FeedReader of the
# same market streams (SUBS) with its own connection and ordered JetStream consumers. CPU from
# /proc (user + system ticks) over each measured window.
#
#   cargo build --release -p digifinex-cli --features feed
#   cargo bench -p digifinex-cli --features feed --bench feed_fanout --no-run
#   bash cli/benches/feed/fanout.sh                 # CONSUMERS=50 DUR=60
#
# Needs nats-server (2.9 or later) on PATH; BIN names the digifinex binary.
set -euo pipefail
bin=${BIN:-target/release/digifinex}
dur=${DUR:-60}
consumers=${CONSUMERS:-50}
subs=${SUBS:-spot:depth:s0_usdt,spot:trades:s0_usdt,spot:depth:s1_usdt,spot:trades:s1_usdt,spot:depth:s2_usdt,spot:ticker:s2_usdt,swap:depth:S0USDTPERP,swap:trades:S0USDTPERP,swap:depth:S1USDTPERP,swap:ticker:S1USDTPERP}
fanout=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/feed_fanout-* | grep -v '\.d$' | head -1)
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
for n in 1 "$consumers"; do
    echo "-- $n reader(s)"
    FEED_URL="nats://127.0.0.1:$port" CONSUMERS=$n DUR=$dur SUBS=$subs "$fanout" & b_pid=$!
    sleep 12   # connect and warm up (the bench measures from 12 s on)
    f0=$(ticks $feed_pid); n0=$(ticks $nats_pid); b0=$(ticks $b_pid); t0=$(date +%s.%N)
    sleep "$dur"
    f1=$(ticks $feed_pid); n1=$(ticks $nats_pid); b1=$(ticks $b_pid); t1=$(date +%s.%N)
    wait $b_pid
    python3 - "$f0" "$f1" "$n0" "$n1" "$b0" "$b1" "$t0" "$t1" "$(getconf CLK_TCK)" <<'PY'
import sys
f0,f1,n0,n1,b0,b1=map(int,sys.argv[1:7]); t0,t1=map(float,sys.argv[7:9]); hz=int(sys.argv[9])
el=t1-t0
print(f"cores over {el:.0f} s: feed {(f1-f0)/hz/el:.2f}, nats-server {(n1-n0)/hz/el:.2f}, readers {(b1-b0)/hz/el:.2f}")
PY
done
tail -3 "$tmp/feed.err"
