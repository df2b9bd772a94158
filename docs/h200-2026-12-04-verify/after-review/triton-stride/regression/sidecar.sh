# written by gpu-sanitize: runs beside the phase
exec '/usr/local/nvidia/bin/nvidia-smi' '--query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu' '--format=csv,nounits' '-lms' '250' '-i' '0' > '/tmp/v/triton-stride/regression/nvidia-smi.csv' 2> '/tmp/v/triton-stride/regression/nvidia-smi.err'
