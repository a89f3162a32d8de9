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


def test_a_daemon_thread_inside_a_run_does_not_abort_the_interpreter_at_exit():
    """Only a run in the main thread takes the GIL back to poll for signals; one in a
    daemon thread still simulating when Python exits must not abort the process."""
    script = SCRIPT.replace(
        'print("started", flush=True)',
        "import threading\n"
        "threading.Thread(target=lambda: mpcc.run(scenario, max_memory=2**40), daemon=True).start()\n"
        "time.sleep(1.0)\n"
        'print("leaving", flush=True)\n'
        "sys.exit(0)\n",
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "leaving"
