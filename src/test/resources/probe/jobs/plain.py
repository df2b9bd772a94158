import sys

print("a job without torch")
sys.exit(3)
