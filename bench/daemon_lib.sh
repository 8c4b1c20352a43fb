# shellcheck shell=bash
# Shared by every bench script that drives a real locschedd (daemon_bench.sh,
# journal_bench.sh, loop_latency_bench.sh, rebalance_bench.sh, priority_online.sh):
# start it on temporary sockets, wait for its control socket, stop it. Source it, then:
#   daemon_start DAEMON DIR [--set KEY=VALUE ...]   sockets DIR/ev.sock and DIR/ctl.sock,
#                                                   log DIR/server.log (warn level unless
#                                                   a later --set log.level says otherwise);
#                                                   sets DAEMON_PID; fails, printing the
#                                                   log, if the daemon exits or is not up
#                                                   after 10 s
#   daemon_stop                                     SIGTERM, wait; no-op when none runs
#   daemon_status DIR                               the `status` reply (one JSON line)
DAEMON_PID=""

daemon_start() {
  local bin=$1 dir=$2
  shift 2
  "$bin" --set "sockets.event_path=$dir/ev.sock" --set "sockets.control_path=$dir/ctl.sock" \
    --set log.level=warn --set log.target=stderr "$@" 2>"$dir/server.log" &
  DAEMON_PID=$!
  for _ in $(seq 200); do
    [[ -S $dir/ctl.sock ]] && return 0
    if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
      echo "daemon_start: $bin exited; its log:" >&2
      cat "$dir/server.log" >&2
      DAEMON_PID=""
      return 1
    fi
    sleep 0.05
  done
  echo "daemon_start: no control socket after 10 s" >&2
  cat "$dir/server.log" >&2
  return 1
}

daemon_stop() {
  [[ -n $DAEMON_PID ]] || return 0
  kill "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=""
}

daemon_status() {
  python3 - "$1/ctl.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
f.write(b'{"op":"status"}\n'); f.flush()
print(f.readline().decode().strip())
PY
}
