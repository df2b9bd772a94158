"""Starts worker.py in a session of its own and returns once the worker has stepped: the training goes on detached."""
import os
import subprocess
import sys
import time

marker = "worker-started"
subprocess.Popen([sys.executable, "worker.py", marker], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 60
while not os.path.exists(marker) and time.time() < deadline:
    time.sleep(0.05)
print("launched the training in the background")
