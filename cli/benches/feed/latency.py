"""Subscribes to every market stream of a feed (core NATS, `digifinex.spot.>` and
`digifinex.swap.>`) for DURATION seconds and prints the message rate and the latency from the
feed's stamp (feed_ms) and from the venue's stamp (venue_ms, where a message has one) to here."""
import asyncio, json, sys, time
import nats

async def main(url, duration):
    nc = await nats.connect(url)
    lat_feed, lat_venue, count = [], [], 0
    async def on(msg):
        nonlocal count
        now = time.time() * 1000
        count += 1
        if count % 10 == 0:  # every tenth message, to keep up
            m = json.loads(msg.data)
            lat_feed.append(now - m["feed_ms"])
            if m.get("venue_ms"):
                lat_venue.append(now - m["venue_ms"])
    await nc.subscribe("digifinex.spot.>", cb=on, pending_msgs_limit=1_000_000)
    await nc.subscribe("digifinex.swap.>", cb=on, pending_msgs_limit=1_000_000)
    start = time.time()
    await asyncio.sleep(duration)
    el = time.time() - start
    await nc.close()
    def pct(v, p):
        v = sorted(v)
        return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")
    print(f"messages {count} in {el:.1f} s: {count/el:.0f}/s")
    print(f"feed->consumer ms p50 {pct(lat_feed,.5):.1f} p99 {pct(lat_feed,.99):.1f} (n={len(lat_feed)})")
    print(f"venue->consumer ms p50 {pct(lat_venue,.5):.1f} p99 {pct(lat_venue,.99):.1f} (n={len(lat_venue)})")

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
