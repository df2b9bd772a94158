# written by gpu-sanitize: this phase's command (supervise.sh runs it)
if [ ! -x '/usr/local/nvidia/bin/nvidia-smi' ] || [ -d '/usr/local/nvidia/bin/nvidia-smi' ]; then echo 'cannot start /usr/local/nvidia/bin/nvidia-smi: not found or not executable' > '/tmp/v/triton-stride/env/commands/2-nvidia-smi/start.error'; exit 127; fi
exec '/usr/local/nvidia/bin/nvidia-smi' '--query-gpu=index,name,uuid,driver_version,memory.total' '--format=csv,noheader,nounits'
