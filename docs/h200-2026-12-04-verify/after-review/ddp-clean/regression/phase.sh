# written by gpu-sanitize: this phase's command (supervise.sh runs it)
unset CUDA_LAUNCH_BLOCKING
unset PYTORCH_NO_CUDA_MEMORY_CACHING
unset PYTORCH_USE_CUDA_DSA
unset TORCH_USE_CUDA_DSA
unset PYTORCH_CUDA_DSA_STACKTRACING
export CUDA_VISIBLE_DEVICES='0'
export PYTHONPATH='/tmp/v/ddp-clean/probe'
export GPU_SANITIZE_PROBE_OUT='/tmp/v/ddp-clean/regression/probe.jsonl'
export GPU_SANITIZE_PROBE_MODE='regression'
if ! command -v 'torchrun' > /dev/null 2>&1; then echo 'cannot start torchrun: not found or not executable' > '/tmp/v/ddp-clean/regression/start.error'; exit 127; fi
exec 'torchrun' '--standalone' '--nproc_per_node=1' 'examples/ddp_train.py' '--bug' 'none'
