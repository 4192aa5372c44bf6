#!/usr/bin/env bash
# The multi-host test: two "hosts" in network namespaces this script creates (and removes on any
# exit), joined by a veth pair with addresses it assigns (10.231.7.1/24, 10.231.7.2/24). Each
# runs `ember run --nnodes 2 --node-rank r --nproc-per-node 1` of multihost_worker with
# GLOO_SOCKET_IFNAME set to its veth: collectives and DDP steps across the pair. A namespace has
# only its loopback and its veth end, so no traffic reaches any other address.
#
#   test_multihost.sh EMBER_BINARY MULTIHOST_WORKER
#
# Exits 77 (CTest's skip) with the reason when the namespaces or the pair cannot be made.
set -uo pipefail
ember=$1 worker=$2
skip() { echo "SKIP: $*"; exit 77; }

command -v ip >/dev/null || skip "'ip' is missing (apt-get install iproute2)"
# Names unique to this run, so that two runs of the suite do not collide (veth names: <= 15 chars).
id=$$
ns_a=ember-mh-a-$id ns_b=ember-mh-b-$id veth_a=emha$id veth_b=emhb$id
addr_a=10.231.7.1 addr_b=10.231.7.2 port=29500
work=$(mktemp -d /tmp/ember_multihost.XXXXXX)
pids=()

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null  # deleting a namespace deletes its veth end, and so the pair
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { echo "FAIL: $*"; exit 1; }
# Building the two hosts needs CAP_SYS_ADMIN (namespaces) and CAP_NET_ADMIN (links): any step
# refused means this machine cannot run the test, so it skips naming the step.
setup() {  # setup COMMAND...
  local err
  err=$("$@" 2>&1) || skip "cannot build the two hosts: '$*' failed: ${err:-no message} (needs CAP_SYS_ADMIN and CAP_NET_ADMIN)"
}
setup ip netns add "$ns_a"
setup ip netns add "$ns_b"
setup ip link add "$veth_a" netns "$ns_a" type veth peer name "$veth_b" netns "$ns_b"
setup ip -n "$ns_a" addr add "$addr_a/24" dev "$veth_a"
setup ip -n "$ns_b" addr add "$addr_b/24" dev "$veth_b"
for ns in "$ns_a" "$ns_b"; do
  setup ip -n "$ns" link set lo up
  # IPv4 only: no IPv6 link-local addresses, router solicitations or DAD on the pair.
  ip netns exec "$ns" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null
done
setup ip -n "$ns_a" link set "$veth_a" up
setup ip -n "$ns_b" link set "$veth_b" up
ip netns exec "$ns_a" ip -o addr show | awk '{print "  '"$ns_a"':", $2, $4}'
ip netns exec "$ns_b" ip -o addr show | awk '{print "  '"$ns_b"':", $2, $4}'

# One node per namespace; `timeout` bounds each (its SIGTERM reaches `ember run`, which stops its rank).
node() {  # node NS VETH NODE_RANK
  ip netns exec "$1" env GLOO_SOCKET_IFNAME="$2" timeout -k 5 120 \
    "$ember" run --nnodes 2 --node-rank "$3" --nproc-per-node 1 --master-addr "$addr_a" --master-port "$port" \
    -- "$worker" >"$work/node$3.log" 2>&1
}
tx_before=$(ip netns exec "$ns_b" cat "/sys/class/net/$veth_b/statistics/tx_bytes")
node "$ns_a" "$veth_a" 0 &
pids+=($!)
node "$ns_b" "$veth_b" 1 &
pids+=($!)
wait "${pids[0]}"; rc0=$?
wait "${pids[1]}"; rc1=$?
pids=()
tx_after=$(ip netns exec "$ns_b" cat "/sys/class/net/$veth_b/statistics/tx_bytes")
for n in 0 1; do
  echo "---- node $n (exit $([ $n = 0 ] && echo $rc0 || echo $rc1)) ----"
  cat "$work/node$n.log"
done
[ "$rc0" = 0 ] && [ "$rc1" = 0 ] || fail "a node's ember run exited non-zero"
grep -q "^multihost rank 0 of 2 (node 0): ok$" "$work/node0.log" || fail "rank 0 did not pass its checks"
grep -q "^multihost rank 1 of 2 (node 1): ok$" "$work/node1.log" || fail "rank 1 did not pass its checks"
# Rank 1 sent its share (the 1 MiB ring message among it) over the veth pair.
sent=$((tx_after - tx_before))
[ "$sent" -gt 1048576 ] || fail "only $sent bytes left $ns_b through $veth_b"
echo "$veth_b sent $sent bytes"
echo "multihost: all checks passed"
