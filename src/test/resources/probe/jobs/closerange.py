"""A job that closes every descriptor it inherited and opens its own log: it may get the number of the
probe's descriptor (issue #26, 7). Its log must hold only its own line."""
import os
import sys

import torch  # noqa: F401  (the probe wakes up and writes its first line)

os.closerange(3, 256)
fd = os.open(sys.argv[1] if len(sys.argv) > 1 else "job.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
print("job log on descriptor %d" % fd)
os.write(fd, b"job line\n")
# the probe writes its exit record at exit, after this
