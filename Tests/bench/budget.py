#!/usr/bin/env python3
"""Instructions per message, by stage: wspipe against the C reference bridge.

For each scenario (uploads and downloads of 100-byte JSON lines, over ws://
and wss://) both tools run twice under valgrind's callgrind against the
shared bench's peer server (`wspeer`), with N/10 and N messages; the
difference of the two runs divided by the difference of N is what one more
message costs, start-up and shut-down left out. Every instruction is given
to a stage:

  upload:   stdin read + line split | JSON check | queue / accounting |
            framing + masking | write (socket; TLS: encryption too) | other
  download: read (socket; TLS: decryption too) | frame decode + unmask +
            UTF-8 | JSON check | format + stdout | other

wspipe's costs go to a stage by the source file they were compiled from
(inlined code counts where it was written, callgrind's fi/fe records); the
C reference's by the line of wsref.c. A function of neither (the Swift
runtime, libc's memcpy, OpenSSL) is shared among the stages of its callers
in proportion to what each call cost, so every instruction is counted once
and the stages add up to the total.

The budgets (Tests/bench/README.md) are checked: a stage over its budget is
marked with `!` and the exit status is 1, so a change can be judged by it
without a timed run. Timing belongs to the shared bench's compare.sh.

Usage: Tests/bench/budget.py [--wspipe PATH] [--bench DIR] [--n N]
                             [--scenarios up_100,dl_100,tls_up_100,tls_dl_100]
(Other sizes: up_16k, tls_dl_1m, ...: the same stages at that payload size.)
Needs valgrind, cc, openssl (the CLI, for a test certificate), libssl-dev.
The shared bench (wspeer.c, wsref.c) is found by --bench, $WSBENCH, or
../shared/bench beside the repository or its parent. Not part of Tests/run.
"""
import argparse, collections, json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

UP_STAGES = ['stdin read + line split', 'JSON check', 'queue / accounting', 'framing + masking', 'write', 'other']
DL_STAGES = ['read', 'frame decode + unmask + UTF-8', 'JSON check', 'format + stdout', 'other']

# wspipe: (source file regex, function regex or None, stage), first match wins.
# FD.swift holds both directions' system calls: its read is stdin's (upload)
# or nobody's (download reads the socket through TCPStream), its write stdout's.
WSPIPE_UP = [
    (r'/(StdinPump|StdinPumpPhases|LineSplitter|InputPacer)\.swift$', None, 'stdin read + line split'),
    (r'/FD\.swift$', r'4read', 'stdin read + line split'),
    (r'/WSJSON/|/(InputTranslator|Envelope|EnvelopeDecoder)\.swift$', None, 'JSON check'),
    (r'/(ClientSender|OutgoingFrames|AckLedger|OutboundQueue|OutgoingMessage|ReplayCoordinator|ReplyTracker'
     r'|SocketQueue|SendStall|PendingValue|DeliveryAccount|DeliveryMonitor|KeptFrames|AckTimeline|SocketKernel|SocketBIO|KernelQueue)\.swift$', None, 'queue / accounting'),
    (r'/WSCore/(FrameEncoder|Masking|EntropyPool|ChaCha20|Connection|ByteBuffer|FrameHeader|Opcode)\.swift$', None,
     'framing + masking'),
    (r'/(TCPStream|TLSStream)\.swift$', None, 'write'),
    (r'/WebSocketChannel\.swift$', r'flush|writeFrames', 'write'),
    (r'/FD\.swift$', r'5write|send', 'write'),
    (r'\.swift$', None, 'other'),
]
WSPIPE_DL = [
    (r'/(TCPStream|TLSStream)\.swift$', None, 'read'),
    (r'/WebSocketChannel\.swift$', r'readAvailable|readIntoMessage', 'read'),
    (r'/WSCore/(FrameDecoder|Connection|MessageAssembler|Masking|UTF8Validator|ByteBuffer|FrameHeader|Opcode'
     r'|ConnectionEvent)\.swift$', None, 'frame decode + unmask + UTF-8'),
    (r'/WSJSON/', None, 'JSON check'),
    (r'/(OutputFormatter|MessageOutput|BridgeOptions|Destination|DestinationPhases|RouteTable|LineFormat)\.swift$', None,
     'format + stdout'),
    (r'/FD\.swift$', r'5write', 'format + stdout'),
    (r'\.swift$', None, 'other'),
]


def wsref_line_stages(path, upload):
    """wsref.c's lines by stage. Its functions by name; main's loop by what
    each line does. Lines of neither are 'other'."""
    lines = open(path).read().split('\n')
    stage = {}
    functions = {'put_frame': 'framing + masking', 'rnd32': 'framing + masking',
                 'net_read': 'read', 'net_write': 'write', 'write_all': 'format + stdout', 'tls_fail': None}
    current, in_parse = None, False
    for number, text in enumerate(lines, 1):
        m = re.match(r'static [\w\s\*]*?\b(\w+)\(', text)
        if m:
            current = m.group(1)
        s = functions.get(current) if current else None
        if current == 'main' or current is None:
            s = None
            if 'parse complete frames' in text:
                in_parse = True
            if in_parse:
                s = 'frame decode + unmask + UTF-8'
                if 'memcpy(so.b' in text or 'so.b[so.len++]' in text or 'reserve(&so' in text:
                    s = 'format + stdout'
            if 'if (pos) consume(&sin' in text:
                in_parse, s = False, 'frame decode + unmask + UTF-8'
            if 'write_all(1' in text:
                s = 'format + stdout'
            if re.search(r'read\(0,|memchr\(in\.b|consume\(&in|reserve\(&in', text) or 'put_frame(&out, op, in.b' in text:
                s = 'stdin read + line split'
            if 'net_write(fd, out.b' in text or 'consume(&out' in text:
                s = 'write'
            if 'net_read(fd, sin.b' in text or 'reserve(&sin, CHUNK' in text:
                s = 'read'
        if s == 'read' and upload:
            s = 'other'   # an upload reads only the Close
        if s is not None:
            stage[number] = s
        if text.startswith('}'):
            current = None
    return stage


class Profile:
    """A callgrind output file (--compress-strings=no --compress-pos=no):
    cost by (function, file, line) and the calls between functions."""

    def __init__(self, path):
        self.own = collections.defaultdict(int)        # (fn, file, line) -> self cost
        self.calls = []                                # (caller fn, caller file, caller line, callee fn, inclusive)
        self.total = 0
        fl = fi = fn = None
        callee, pending_call = None, False
        for raw in open(path, errors='replace'):
            line = raw.rstrip('\n')
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in '+-*':
                parts = line.split()
                if len(parts) < 2:
                    continue
                pos, cost = int(parts[0]), int(parts[1])
                if pending_call:
                    self.calls.append((fn, fi or fl, pos, callee, cost))
                    pending_call = False
                else:
                    self.own[(fn, fi or fl, pos)] += cost
                continue
            key, _, value = line.partition('=')
            if key == 'fl':
                fl, fi = value, None
            elif key in ('fi', 'fe'):
                fi = value
            elif key == 'fn':
                fn, fi = value, None
            elif key == 'cfn':
                callee = value
            elif key == 'calls':
                pending_call = True
            elif line.startswith('summary:') or line.startswith('totals:'):
                self.total = max(self.total, int(line.split()[1]))

    def stages(self, classify):
        """Cost by stage. `classify(fn, file, line)` names a stage or None
        (None: shared among the stages of the function's callers)."""
        result = collections.defaultdict(int)
        unknown = collections.defaultdict(int)          # fn -> own cost of no stage
        for (fn, file, line), cost in self.own.items():
            s = classify(fn, file, line)
            if s:
                result[s] += cost
            else:
                unknown[fn] += cost
        incoming = collections.defaultdict(list)       # callee -> [(caller stage or caller fn, weight)]
        for caller, file, line, callee, cost in self.calls:
            if cost <= 0 or callee == caller:
                continue
            s = classify(caller, file, line)
            incoming[callee].append((s, caller, cost))
        share = {}
        for _ in range(40):   # call chains are short; recursion converges
            new = {}
            for fn in unknown:
                new[fn] = self._mix(incoming.get(fn, []), share)
            for fn, arcs in incoming.items():
                if fn not in new:
                    new[fn] = self._mix(arcs, share)
            share = new
        for fn, cost in unknown.items():
            for s, part in share.get(fn, {'other': 1.0}).items():
                result[s] += cost * part
        return result

    @staticmethod
    def _mix(arcs, share):
        if not arcs:
            return {'other': 1.0}
        total = sum(w for _, _, w in arcs)
        mixed = collections.defaultdict(float)
        for s, caller, w in arcs:
            for stage, part in ({s: 1.0} if s else share.get(caller, {'other': 1.0})).items():
                mixed[stage] += part * w / total
        return mixed


def wspipe_classifier(rules):
    compiled = [(re.compile(f), re.compile(g) if g else None, s) for f, g, s in rules]
    cache = {}

    def classify(fn, file, line):
        key = (fn, file)
        if key not in cache:
            cache[key] = next((s for f, g, s in compiled if file and f.search(file) and (not g or g.search(fn or ''))),
                              None)
        return cache[key]
    return classify


def wsref_classifier(line_stages, source):
    def classify(fn, file, line):
        if file and file.endswith(source):
            return line_stages.get(line, 'other')
        return None
    return classify


def find_bench(arg):
    for d in [arg, os.environ.get('WSBENCH'), os.path.join(ROOT, '../shared/bench'),
              os.path.join(ROOT, '../../shared/bench')]:
        if d and os.path.exists(os.path.join(d, 'wspeer.c')):
            return os.path.abspath(d)
    sys.exit('budget.py: the shared bench (wspeer.c, wsref.c) was not found; give --bench DIR')


def build(bench, out):
    """wspeer, and wsref with line tables (-g does not change the code -O2 makes)."""
    os.makedirs(out, exist_ok=True)
    for name, extra in (('wspeer', ['-lssl', '-lcrypto', '-lpthread']), ('wsref', [])):
        src, exe = os.path.join(bench, name + '.c'), os.path.join(out, name)
        if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
            subprocess.check_call(['cc', '-O2', '-g', '-o', exe, src] + extra)
    return os.path.join(out, 'wspeer'), os.path.join(out, 'wsref'), os.path.join(bench, 'wsref.c')


def make_certs(d):
    """A test CA and a leaf for 127.0.0.1 (EC P-256), as the shared bench makes them."""
    files = [os.path.join(d, f) for f in ('ca.pem', 'server.pem', 'server.key')]
    if all(os.path.exists(f) for f in files):
        return files
    os.makedirs(d, exist_ok=True)
    ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
    with open(os.path.join(d, 'ext.cnf'), 'w') as f:
        f.write('basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n'
                'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n')
    for cmd in (['req', '-x509', '-new'] + ec + ['-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650',
                 '-subj', '/CN=budget test CA', '-addext', 'basicConstraints=critical,CA:TRUE',
                 '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
                ['req', '-new'] + ec + ['-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'],
                ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-days', '3650',
                 '-extfile', 'ext.cnf', '-out', 'server.pem']):
        subprocess.run(['openssl'] + cmd, cwd=d, check=True, capture_output=True)
    return files


class Peer:
    def __init__(self, exe, work, tls):
        self.stats = os.path.join(work, 'stats.jsonl')
        open(self.stats, 'w').close()
        self.proc = subprocess.Popen([exe, 'serve', '0', self.stats, '3600', '--tls', tls[1], tls[2]],
                                     stdout=subprocess.PIPE)
        words = b''
        while words.count(b'\n') < 2:
            chunk = self.proc.stdout.read1(64)
            if not chunk:
                sys.exit('budget.py: wspeer did not start')
            words += chunk
        w = words.split()
        self.port, self.tls_port = int(w[1]), int(w[3])
        self.seen = 0

    def last(self):
        """The stats line of the connection that ended last (waits for it)."""
        end = time.time() + 30
        while time.time() < end:
            lines = [l for l in open(self.stats).read().split('\n') if l.strip()]
            if len(lines) > self.seen:
                self.seen = len(lines)
                return json.loads(lines[-1])
            time.sleep(0.05)
        sys.exit('budget.py: wspeer reported no connection')

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def payload_size(scenario):
    """up_100, dl_16k, tls_up_1m: the payload size the name ends with."""
    text = scenario.rsplit('_', 1)[1]
    return int(text[:-1]) << (10 if text.endswith('k') else 20) if text[-1] in 'km' else int(text)


def run(tool, argv, scenario, n, peer, work, files, gen):
    """One callgrind run; returns its Profile after checking the transfer."""
    upload = '_up_' in '_' + scenario
    tls = scenario.startswith('tls_')
    size = payload_size(scenario)
    url = '%s://127.0.0.1:%d/%s' % ('wss' if tls else 'ws', peer.tls_port if tls else peer.port,
                                    'sink' if upload else 'source?n=%d&size=%d' % (n, size))
    cmd = list(argv) + (['--cacert', files[0]] if tls else []) + [url]
    out = os.path.join(work, '%s.%s.%d.cg' % (tool, scenario, n))
    vg = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out, '--dump-instr=no',
          '--compress-strings=no', '--compress-pos=no']
    stdout = open(os.path.join(work, 'out.txt'), 'wb')
    if upload:
        with open(gen(n, size), 'rb') as stdin:
            p = subprocess.run(vg + cmd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=600)
    else:
        # stdin held open until the tool exits (the shared bench's dl_stdin=hold)
        p = subprocess.Popen(vg + cmd, stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE)
        _, err = p.communicate(timeout=600)
        p.stderr = err
    stdout.close()
    stats = peer.last()
    if upload:
        ok = stats.get('msgs') == n
    else:
        ok = sum(1 for _ in open(os.path.join(work, 'out.txt'), 'rb')) == n
    if p.returncode != 0 or not ok:
        sys.exit('budget.py: %s %s n=%d failed (exit %s, %s)\n%s' % (
            tool, scenario, n, p.returncode, stats, p.stderr.decode(errors='replace')[-2000:]))
    return Profile(out)


BUDGETS_FILE = os.path.join(HERE, 'budget.json')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--wspipe', default=os.path.join(ROOT, '.build/release/wspipe'))
    ap.add_argument('--bench')
    ap.add_argument('--n', type=int, default=None,
                    help='messages of the larger run (the smaller one has a tenth); for 16k and 1m '
                         'scenarios a tenth and a hundredth of it. Default 20000, and 200000 for the '
                         '100-byte uploads: wspipe reads the first MiB of stdin while it connects and '
                         'queues it, so the smaller run must be past that for the difference to be '
                         'the connected path alone')
    ap.add_argument('--scenarios', default='up_100,dl_100,tls_up_100,tls_dl_100')
    ap.add_argument('--keep', help='keep the callgrind files in this directory')
    ap.add_argument('--json', help='write the figures here')
    ap.add_argument('--report', help='print the tables of a --json file again, side by side (for README.md)')
    a = ap.parse_args()
    if a.report:
        return print_combined(json.load(open(a.report)), json.load(open(BUDGETS_FILE)))
    for tool in ('valgrind', 'cc', 'openssl'):
        if not shutil.which(tool):
            sys.exit('budget.py: needs %s' % tool)
    bench = find_bench(a.bench)
    cache = os.path.join(ROOT, '.build', 'bench')
    wspeer, wsref, wsref_src = build(bench, cache)
    certs = make_certs(os.path.join(cache, 'tls'))
    work = a.keep or tempfile.mkdtemp(prefix='budget.')
    os.makedirs(work, exist_ok=True)
    budgets = json.load(open(BUDGETS_FILE))
    peer = Peer(wspeer, work, certs)

    def gen(n, size):
        path = os.path.join(work, 'lines.%d.%d.txt' % (n, size))
        if not os.path.exists(path):
            with open(path, 'wb') as f:
                subprocess.run([wspeer, 'gen', str(n), str(size)], stdout=f, check=True)
        return path

    tools = [('wspipe', [a.wspipe]), ('wsref', [wsref])]
    figures, over = {}, []
    try:
        for scenario in a.scenarios.split(','):
            size = payload_size(scenario)
            upload = '_up_' in '_' + scenario
            n = a.n or (200000 if upload and size <= 1024 else 20000)
            large = n if size <= 1024 else n // 10 if size <= 64 << 10 else n // 200
            small = large // 10
            stages = UP_STAGES if upload else DL_STAGES
            result = {}
            for tool, argv in tools:
                if tool == 'wspipe':
                    classify = wspipe_classifier(WSPIPE_UP if upload else WSPIPE_DL)
                else:
                    classify = wsref_classifier(wsref_line_stages(wsref_src, upload), os.path.basename(wsref_src))
                runs = [run(tool, argv, scenario, n, peer, work, certs, gen) for n in (small, large)]
                per = {}
                split = [r.stages(classify) for r in runs]
                for s in stages:
                    per[s] = (split[1].get(s, 0) - split[0].get(s, 0)) / (large - small)
                per['total'] = (runs[1].total - runs[0].total) / (large - small)
                result[tool] = per
            figures[scenario] = result
            print_table(scenario, stages, result, budgets.get(scenario, {}), over)
    finally:
        peer.stop()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.json:
        json.dump(figures, open(a.json, 'w'), indent=1)
    if over:
        print('over budget: ' + ', '.join(over))
        sys.exit(1)


def print_table(scenario, stages, result, budget, over):
    print('\n%s: instructions per message (callgrind)' % scenario)
    print('| stage | wspipe | wsref | budget |')
    print('|---|---:|---:|---:|')
    for s in stages + ['total']:
        w, r = result['wspipe'].get(s, 0), result['wsref'].get(s, 0)
        b = budget.get(s)
        mark = ''
        if b is not None and w > b:
            mark = ' !'
            over.append('%s %s (%.0f > %d)' % (scenario, s, w, b))
        print('| %s | %.0f%s | %.0f | %s |' % (s, w, mark, r, '' if b is None else b))
    sys.stdout.flush()


def print_combined(figures, budgets):
    """One table for the uploads and one for the downloads: each scenario's
    wspipe, wsref and budget columns side by side."""
    for stages, kind in ((UP_STAGES, 'up'), (DL_STAGES, 'dl')):
        names = [n for n in figures if n.split('_')[-2] == kind]
        if not names:
            continue
        print('| stage | ' + ' | '.join('%s wspipe | wsref | budget' % n for n in names) + ' |')
        print('|---|' + '---:|---:|---:|' * len(names))
        for s in stages + ['total']:
            cells = []
            for n in names:
                b = budgets.get(n, {}).get(s)
                cells += ['%.0f' % figures[n]['wspipe'].get(s, 0), '%.0f' % figures[n]['wsref'].get(s, 0),
                          '' if b is None else str(b)]
            print('| %s | %s |' % (s, ' | '.join(cells)))
        print()


if __name__ == '__main__':
    main()
