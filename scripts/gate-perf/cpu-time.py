#!/usr/bin/env python3
"""How much CPU time each `kcamp gate` run uses against its wall time (wait4), half of the runs
right after the Python gate: the gate-perf README's "runs of 6.5-7.3 ms used 10.9-12.5 ms of CPU".

    scripts/gate-perf/cpu-time.py KCAMP     (N=100 runs, on ab.py's two generated files)
"""
import os, sys, tempfile, time, statistics
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import ab
files = ab.generate_pair(tempfile.mkdtemp())
k = [sys.argv[1], "gate"] + files
py = [sys.executable, os.path.join(here, "..", "..", "benches", "gate_reference.py")] + files
quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
def run(cmd):
    t = time.perf_counter()
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=quiet)
    _, _, ru = os.wait4(pid, 0)
    return time.perf_counter() - t, ru.ru_utime, ru.ru_stime, ru.ru_minflt, ru.ru_nvcsw, ru.ru_nivcsw
rows = []
for i in range(int(os.environ.get("N", "100"))):
    after_py = i % 2 == 0
    if after_py:
        run(py)
    rows.append((after_py,) + run(k))
for tag in (True, False):
    r = [x for x in rows if x[0] == tag]
    print("after py" if tag else "after kcamp", len(r))
    for x in sorted(r, key=lambda x: x[1])[::5]:
        print(f"  wall {x[1]*1e3:6.2f} user {x[2]*1e3:6.2f} sys {x[3]*1e3:5.2f} cpu {(x[2]+x[3])*1e3:6.2f} flt {x[4]} vcsw {x[5]} ivcsw {x[6]}")
