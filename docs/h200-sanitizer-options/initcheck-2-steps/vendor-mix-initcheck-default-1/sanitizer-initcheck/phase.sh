# written by gpu-sanitize: this phase's command (supervise.sh runs it)
unset CUDA_LAUNCH_BLOCKING
export CUDA_VISIBLE_DEVICES='0'
export PYTORCH_NO_CUDA_MEMORY_CACHING='1'
if [ ! -x '/usr/local/cuda/bin/compute-sanitizer' ] || [ -d '/usr/local/cuda/bin/compute-sanitizer' ]; then echo 'cannot start /usr/local/cuda/bin/compute-sanitizer: not found or not executable' > '/tmp/so/h200-initcheck-filter/vendor-mix-initcheck-default-1/sanitizer-initcheck/start.error'; exit 127; fi
exec '/usr/local/cuda/bin/compute-sanitizer' '--tool' 'initcheck' '--xml' '--save' '/tmp/so/h200-initcheck-filter/vendor-mix-initcheck-default-1/sanitizer-initcheck/sanitizer.xml' '--log-file' '/tmp/so/h200-initcheck-filter/vendor-mix-initcheck-default-1/sanitizer-initcheck/sanitizer.log' '--print-limit' '200' '--error-exitcode' '86' 'python3' 'examples/vendor_mix.py' '--steps' '2'
