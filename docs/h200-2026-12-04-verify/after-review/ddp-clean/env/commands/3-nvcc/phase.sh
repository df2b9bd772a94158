# written by gpu-sanitize: this phase's command (supervise.sh runs it)
if [ ! -x '/usr/local/cuda/bin/nvcc' ] || [ -d '/usr/local/cuda/bin/nvcc' ]; then echo 'cannot start /usr/local/cuda/bin/nvcc: not found or not executable' > '/tmp/v/ddp-clean/env/commands/3-nvcc/start.error'; exit 127; fi
exec '/usr/local/cuda/bin/nvcc' '--version'
