#!/usr/bin/env bash
# CPU seconds (user+sys, /usr/bin/time) per 10,000 echo calls: mcpchaos run
# side by side with vegeta attack, against the same `mcpchaos serve` on a
# free loopback port, at the same rate (RATE/s for DURATION s), with the same
# 2026-07-28 request, both keeping connections alive. Each tool runs REPS
# times, alternating; the medians and their ratio are printed.
#
#   bench/vegeta.sh                     # RATE=1000 DURATION=10 REPS=3
#   RATE=2000 DURATION=5 bench/vegeta.sh
#   BEFORE=/tmp/mcpchaos-old bench/vegeta.sh   # also an earlier build, in each round
#
# BEFORE names another mcpchaos binary (an earlier commit's build): it runs
# the same scenario in each round, between this tree's build and vegeta, so
# that a change is measured against the build before it in the same minutes
# (the machine's load moves the figures more than most changes do).
# It installs vegeta v12.13.0 into a temporary GOBIN and builds mcpchaos from
# this tree; everything it creates is removed at exit.
set -euo pipefail

RATE=${RATE:-1000}
DURATION=${DURATION:-10}
REPS=${REPS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpchaos-vegeta.XXXXXX")
serve_pid=
cleanup() {
	if [[ -n $serve_pid ]]; then
		kill -INT "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

[[ -x /usr/bin/time ]] || { echo "vegeta.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }
[[ -z ${BEFORE:-} || -x $BEFORE ]] || { echo "vegeta.sh: BEFORE=\"$BEFORE\" is not an executable file" >&2; exit 2; }
echo "installing vegeta v12.13.0 and building mcpchaos in $work ..." >&2
GOBIN="$work/bin" go install github.com/tsenart/vegeta/v12@v12.13.0
(cd "$root" && go build -o "$work/bin/mcpchaos" ./cmd/mcpchaos)
vegeta="$work/bin/vegeta"
mcpchaos="$work/bin/mcpchaos"

"$mcpchaos" serve --listen 127.0.0.1:0 2>"$work/serve.err" &
serve_pid=$!
url=
for _ in $(seq 100); do
	url=$(grep -o 'MCP on http://[^ ,]*' "$work/serve.err" | cut -d' ' -f3 || true)
	[[ -n $url ]] && break
	sleep 0.1
done
[[ -n $url ]] || { echo "vegeta.sh: mcpchaos serve did not start:" >&2; cat "$work/serve.err" >&2; exit 2; }

calls=$((RATE * DURATION))
cat >"$work/scenario.yaml" <<EOF
name: cost-echo
seed: 1
protocol: 2026-07-28
target:
  http: {url: "$url"}
load: {rate: $RATE/1s, duration: ${DURATION}s, max_in_flight: 10000}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
EOF
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"vegeta","version":"12"}}}}' >"$work/body.json"

# cpu FILE: user+sys seconds from a /usr/bin/time -f '%U %S' file.
cpu() { awk 'END { printf "%.3f", $1 + $2 }' "$1"; }
# per10k SECONDS N: CPU seconds per 10,000 calls, for N calls.
per10k() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.3f", s * 10000 / n }'; }
# key FILE NAME: the first number under "NAME" in a JSON file.
key() { grep -m1 -o "\"$2\": *[0-9]*" "$1" | grep -o '[0-9]*$' || echo 0; }
# enough N: N is at least 99% of the calls offered.
enough() { (($1 * 100 >= calls * 99)); }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "target $url; $calls echo calls per run ($RATE/s for ${DURATION}s); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# one_run BIN: runs the scenario with BIN and prints its CPU seconds per
# 10,000 calls (after checking that every call was ok).
one_run() {
	rm -f "$work/summary.json"
	/usr/bin/time -f '%U %S' -o "$work/time.mc" \
		"$1" run "$work/scenario.yaml" -q --summary-json "$work/summary.json" >"$work/run.txt"
	local total ok
	total=$(key "$work/summary.json" total) ok=$(key "$work/summary.json" ok)
	[[ $ok == "$total" ]] && enough "$ok" || { echo "vegeta.sh: $1 run: $ok of $total calls ok ($calls offered)" >&2; cat "$work/run.txt" >&2; return 1; }
	per10k "$(cpu "$work/time.mc")" "$total"
}

mc=() vg=() bf=()
for i in $(seq "$REPS"); do
	# With BEFORE, the two builds take turns at going first.
	if [[ -n ${BEFORE:-} ]] && ((i % 2 == 0)); then
		bf+=("$(one_run "$BEFORE")")
		mc+=("$(one_run "$mcpchaos")")
	else
		mc+=("$(one_run "$mcpchaos")")
		[[ -z ${BEFORE:-} ]] || bf+=("$(one_run "$BEFORE")")
	fi
	[[ -z ${BEFORE:-} ]] || echo "run $i: before ${bf[-1]} CPU-s per 10,000 calls" >&2

	echo "POST $url" | /usr/bin/time -f '%U %S' -o "$work/time.vg" \
		"$vegeta" attack -rate "$RATE/1s" -duration "${DURATION}s" -keepalive=true \
		-header 'Accept: application/json, text/event-stream' -header 'Content-Type: application/json' \
		-header 'MCP-Protocol-Version: 2026-07-28' -header 'Mcp-Method: tools/call' -header 'Mcp-Name: echo' \
		-body "$work/body.json" -output "$work/vegeta.bin"
	"$vegeta" report -type=json "$work/vegeta.bin" >"$work/vegeta.json"
	requests=$(key "$work/vegeta.json" requests) got=$(key "$work/vegeta.json" 200)
	[[ $got == "$requests" ]] && enough "$got" || { echo "vegeta.sh: vegeta got $got HTTP 200s for $requests requests ($calls offered):" >&2; cat "$work/vegeta.json" >&2; exit 1; }
	vg+=("$(per10k "$(cpu "$work/time.vg")" "$requests")")
	echo "run $i: mcpchaos ${mc[-1]} CPU-s (all calls ok), vegeta ${vg[-1]} CPU-s ($requests requests, all HTTP 200) per 10,000 calls" >&2
done
m=$(median "${mc[@]}")
v=$(median "${vg[@]}")
ratio=$(awk -v m="$m" -v v="$v" 'BEGIN { printf "%.2f", m / v }')
echo "median CPU seconds per 10,000 echo calls ($REPS runs each, $RATE/s for ${DURATION}s):"
echo "  mcpchaos run   $m   (runs: ${mc[*]})"
echo "  vegeta attack  $v   (runs: ${vg[*]})"
echo "  ratio          ${ratio}x   (aim: <= 0.5x, issue 28)"
if ((${#bf[@]})); then
	b=$(median "${bf[@]}")
	echo "  before         $b   (runs: ${bf[*]}; ratio $(awk -v m="$b" -v v="$v" 'BEGIN { printf "%.2f", m / v }')x)"
fi
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
