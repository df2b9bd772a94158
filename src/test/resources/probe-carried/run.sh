# a research repository's run script: PYTHONPATH reset to the checkout (the job's torch lies in it here)
export PYTHONPATH=./
python3 hand_train.py
