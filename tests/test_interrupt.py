"""Ctrl-C stops `mpcc.run()` within half a second, even in the middle of a long
simulation (the simulator checks for signals every few milliseconds)."""

import signal
import subprocess
import sys
import textwrap
import time

SCRIPT = textwrap.dedent(
    """
    import sys, time, mpcc
    scenario = '''
    duration = "100000s"
    sample_interval = "0s"
    [links.b]
    rate = "100Mbps"
    delay = "10ms"
    [[flows]]
    name = "a"
    cc = "reno"
    path = ["b"]
    '''
    print("started", flush=True)
    try:
        mpcc.run(scenario, max_memory=2**40)
    except KeyboardInterrupt:
        print(f"interrupted {time.monotonic():.6f}", flush=True)
        sys.exit(0)
    print("finished", flush=True)
    """
)


def test_ctrl_c_stops_the_python_api_within_half_a_second():
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "started"
        time.sleep(2.0)  # well into the simulation (it would take hours)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)  # raises if the run goes on
        line = out.split()
        assert proc.returncode == 0
    finally:
        proc.kill()
    assert line[0] == "interrupted", line
    assert float(line[1]) - sent < 0.5, f"KeyboardInterrupt came {float(line[1]) - sent:.3f} s after SIGINT"
