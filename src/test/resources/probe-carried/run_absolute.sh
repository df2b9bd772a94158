# the same, with the interpreter started by its absolute path: no shim can carry the probe there
export PYTHONPATH=./
"$JOB_PYTHON" hand_train.py
