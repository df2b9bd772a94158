# written by gpu-sanitize: this phase's command (supervise.sh runs it)
if [ ! -x '/usr/local/cuda/bin/compute-sanitizer' ] || [ -d '/usr/local/cuda/bin/compute-sanitizer' ]; then echo 'cannot start /usr/local/cuda/bin/compute-sanitizer: not found or not executable' > '/tmp/v/cudnn-bench/env/commands/4-compute-sanitizer/start.error'; exit 127; fi
exec '/usr/local/cuda/bin/compute-sanitizer' '--version'
