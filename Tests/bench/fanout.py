#!/usr/bin/env python3
"""Fan-out benchmark: a --listen server broadcasting stdin lines to many clients.

For each server (wspipe --listen, websocat's broadcast reuser) and each case
(lines of 100 B and 16 KiB, to 1, 10 and 100 clients), in interleaved rounds:
start the server, connect the clients (Tests/bench/fanclient.c, all in one
process), feed the lines into the server's stdin, and count what the clients
receive. Reported: delivered messages per second (first to last delivery,
all clients together), the server's CPU time per delivered message (summed
over its threads, from /proc/PID/task/*/schedstat), and the share of the
messages delivered. Then the memory of 10,000 idle clients: the server's
VmRSS after they are all connected, minus before, per client.

Usage: Tests/bench/fanout.py [--rounds 3] [--wspipe PATH] [--websocat PATH]
Not part of Tests/run. Needs cc; websocat comes from PATH or
../shared/bench/.venv (see the compare.sh of the shared bench).
"""
import argparse, json, os, resource, shutil, socket, statistics, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, proc, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError('server exited: %s' % proc.stderr.read().decode(errors='replace'))
        try:
            socket.create_connection(('127.0.0.1', port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError('server did not listen on %d' % port)


def cpu_ns(pid):
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            total += int(open('/proc/%d/task/%s/schedstat' % (pid, tid)).read().split()[0])
        except OSError:
            pass
    return total


def rss_kb(pid):
    for line in open('/proc/%d/status' % pid):
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return 0


def lines(size, count):
    """count NDJSON lines of exactly `size` bytes before the newline."""
    out = []
    for i in range(count):
        head = '{"type":"tick","seq":%d,"pad":"' % i
        out.append(head + 'x' * (size - len(head) - 2) + '"}\n')
    return ''.join(out).encode()


class Server:
    def __init__(self, name, argv_for_port):
        self.name, self.argv_for_port = name, argv_for_port

    def start(self, lines=0):
        self.port = free_port()
        self.proc = subprocess.Popen(self.argv_for_port(self.port, lines), stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_listening(self.port, self.proc)
        # The probe connection above may still be on its way out.
        time.sleep(0.05)

    def stop(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def fanclient(port, n, mode, expected=None):
    argv = [os.path.join(HERE, '.fanclient'), '127.0.0.1', str(port), str(n), mode]
    if expected is not None:
        argv.append(str(expected))
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready = p.stdout.readline().decode()
    if not ready.startswith('ready'):
        raise RuntimeError('fanclient: %s %s' % (ready, p.stderr.read().decode(errors='replace')))
    return p


def feed(pipe, data):
    try:
        pipe.write(data)
        pipe.flush()
    except (BrokenPipeError, ValueError):
        pass


def run_broadcast(server, size, clients, count, data):
    server.start(count)
    feeder = None
    try:
        client = fanclient(server.port, clients, 'count', count)
        time.sleep(0.1)   # every client registered with the server
        cpu0 = cpu_ns(server.proc.pid)
        feeder = threading.Thread(target=feed, args=(server.proc.stdin, data))
        feeder.start()
        out, _ = client.communicate(timeout=300)
        cpu1 = cpu_ns(server.proc.pid)
        r = json.loads(out.decode().strip().splitlines()[-1])
    finally:
        # A server that stopped reading stdin (all clients gone) would leave
        # the feeder blocked: it is killed, which ends the write.
        if feeder is not None:
            feeder.join(timeout=2)
            if feeder.is_alive():
                server.proc.kill()
        server.stop()
        if feeder is not None:
            feeder.join()
    span = max(r['last'] - r['first'], 1e-9)
    delivered = r['delivered']
    return {'msgs_s': delivered / span, 'cpu_us': (cpu1 - cpu0) / 1e3 / max(delivered, 1),
            'share': delivered / (count * clients)}


def run_idle(server, clients):
    server.start()
    try:
        time.sleep(0.2)
        before = rss_kb(server.proc.pid)
        client = fanclient(server.port, clients, 'idle')
        time.sleep(1.0)
        after = rss_kb(server.proc.pid)
        client.stdin.close()
        client.wait(timeout=60)
    finally:
        server.stop()
    return {'per_client_kb': (after - before) / clients, 'before_mb': before / 1024, 'after_mb': after / 1024}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--wspipe', default=os.path.join(ROOT, '.build/release/wspipe'))
    ap.add_argument('--websocat', default=shutil.which('websocat')
                    or os.path.join(ROOT, '../shared/bench/.venv/bin/websocat'))
    ap.add_argument('--idle-clients', type=int, default=10000)
    ap.add_argument('--json')
    a = ap.parse_args()

    src = os.path.join(HERE, 'fanclient.c')
    exe = os.path.join(HERE, '.fanclient')
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.check_call(['cc', '-O2', '-Wall', '-o', exe, src])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.idle_clients + 100
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

    servers = [
        Server('wspipe', lambda port, lines: [a.wspipe, '--listen', '127.0.0.1:%d' % port]),
        # websocat's closest equivalent: the broadcast reuser over stdio, one
        # text message per stdin line (-t), ending at stdin EOF. It drops the
        # messages a client's socket is not ready for unless its queue holds
        # them (--queue-len, default 16: with it, a burst of lines reached
        # nobody), so the queue is made as long as the input.
        Server('websocat', lambda port, lines: [a.websocat, '-t', '--exit-on-eof', '-B', '65536',
                                                '--queue-len', str(max(lines, 16)),
                                                'ws-l:127.0.0.1:%d' % port, 'broadcast:-']),
    ]
    cases = [(100, 1, 200000), (100, 10, 50000), (100, 100, 10000),
             (16384, 1, 20000), (16384, 10, 5000), (16384, 100, 1000)]
    inputs = {(size, count): lines(size, count) for size, _, count in cases}
    results = {}
    for rnd in range(a.rounds):
        order = servers if rnd % 2 == 0 else servers[::-1]
        for size, clients, count in cases:
            for s in order:
                r = run_broadcast(s, size, clients, count, inputs[(size, count)])
                results.setdefault((s.name, size, clients), []).append(r)
                print('round %d %-8s %5d B to %3d clients: %9.0f msg/s  %6.2f us CPU/msg  %5.1f%% delivered'
                      % (rnd, s.name, size, clients, r['msgs_s'], r['cpu_us'], 100 * r['share']), flush=True)
        for s in order:
            r = run_idle(s, a.idle_clients)
            results.setdefault((s.name, 'idle'), []).append(r)
            print('round %d %-8s %d idle clients: %.2f KiB each (%.1f -> %.1f MiB)'
                  % (rnd, s.name, a.idle_clients, r['per_client_kb'], r['before_mb'], r['after_mb']), flush=True)

    med = statistics.median
    print()
    print('| case | wspipe msg/s | websocat msg/s | wspipe/websocat | CPU per delivered msg, wspipe / websocat | delivered, wspipe / websocat |')
    print('|---|---|---|---|---|---|')
    for size, clients, count in cases:
        w, c = results[('wspipe', size, clients)], results[('websocat', size, clients)]
        wm, cm = med(x['msgs_s'] for x in w), med(x['msgs_s'] for x in c)
        print('| %s to %d | %.0f | %.0f | %.2fx | %.2f / %.2f us | %.0f%% / %.0f%% |'
              % ('100 B' if size == 100 else '16 KiB', clients, wm, cm, wm / cm,
                 med(x['cpu_us'] for x in w), med(x['cpu_us'] for x in c),
                 100 * med(x['share'] for x in w), 100 * med(x['share'] for x in c)))
    w, c = results[('wspipe', 'idle')], results[('websocat', 'idle')]
    print('| %d idle clients | RSS per client: wspipe %.2f KiB, websocat %.2f KiB | | | | |'
          % (a.idle_clients, med(x['per_client_kb'] for x in w), med(x['per_client_kb'] for x in c)))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'%s' % (k,): v for k, v in results.items()}, f, indent=1)


if __name__ == '__main__':
    main()
