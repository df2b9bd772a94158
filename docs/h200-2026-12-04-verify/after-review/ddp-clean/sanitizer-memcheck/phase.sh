# written by gpu-sanitize: this phase's command (supervise.sh runs it)
unset CUDA_LAUNCH_BLOCKING
export CUDA_VISIBLE_DEVICES='0'
export PYTORCH_NO_CUDA_MEMORY_CACHING='1'
if [ ! -x '/usr/local/cuda/bin/compute-sanitizer' ] || [ -d '/usr/local/cuda/bin/compute-sanitizer' ]; then echo 'cannot start /usr/local/cuda/bin/compute-sanitizer: not found or not executable' > '/tmp/v/ddp-clean/sanitizer-memcheck/start.error'; exit 127; fi
exec '/usr/local/cuda/bin/compute-sanitizer' '--tool' 'memcheck' '--xml' '--save' '/tmp/v/ddp-clean/sanitizer-memcheck/sanitizer.xml' '--log-file' '/tmp/v/ddp-clean/sanitizer-memcheck/sanitizer.log' '--print-limit' '200' '--error-exitcode' '86' '--strip-paths' 'no' '--padding' '4096' 'torchrun' '--standalone' '--nproc_per_node=1' 'examples/ddp_train.py' '--bug' 'none'
