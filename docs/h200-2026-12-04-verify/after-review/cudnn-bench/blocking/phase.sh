# written by gpu-sanitize: this phase's command (supervise.sh runs it)
unset PYTORCH_NO_CUDA_MEMORY_CACHING
unset PYTORCH_USE_CUDA_DSA
unset TORCH_USE_CUDA_DSA
unset PYTORCH_CUDA_DSA_STACKTRACING
export CUDA_VISIBLE_DEVICES='0'
export CUDA_LAUNCH_BLOCKING='1'
export PYTHONPATH='/tmp/v/cudnn-bench/probe'
export GPU_SANITIZE_PROBE_OUT='/tmp/v/cudnn-bench/blocking/probe.jsonl'
export GPU_SANITIZE_PROBE_MODE='blocking'
if ! command -v 'python3' > /dev/null 2>&1; then echo 'cannot start python3: not found or not executable' > '/tmp/v/cudnn-bench/blocking/start.error'; exit 127; fi
exec 'python3' 'examples/cudnn_bench.py' '--seconds' '10'
