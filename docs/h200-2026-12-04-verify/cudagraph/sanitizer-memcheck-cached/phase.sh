# written by gpu-sanitize: this phase's command (supervise.sh runs it)
unset CUDA_LAUNCH_BLOCKING
unset PYTORCH_NO_CUDA_MEMORY_CACHING
export CUDA_VISIBLE_DEVICES='0'
if [ ! -x '/usr/local/cuda/bin/compute-sanitizer' ] || [ -d '/usr/local/cuda/bin/compute-sanitizer' ]; then echo 'cannot start /usr/local/cuda/bin/compute-sanitizer: not found or not executable' > '/tmp/v/cudagraph/sanitizer-memcheck-cached/start.error'; exit 127; fi
exec '/usr/local/cuda/bin/compute-sanitizer' '--tool' 'memcheck' '--xml' '--save' '/tmp/v/cudagraph/sanitizer-memcheck-cached/sanitizer.xml' '--log-file' '/tmp/v/cudagraph/sanitizer-memcheck-cached/sanitizer.log' '--print-limit' '200' '--error-exitcode' '86' '--strip-paths' 'no' '--padding' '4096' 'python3' 'examples/cudagraph_job.py'
