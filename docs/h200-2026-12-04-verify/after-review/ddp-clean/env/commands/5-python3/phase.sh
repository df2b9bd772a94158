# written by gpu-sanitize: this phase's command (supervise.sh runs it)
if [ ! -x '/opt/torch/.venv/bin/python3' ] || [ -d '/opt/torch/.venv/bin/python3' ]; then echo 'cannot start /opt/torch/.venv/bin/python3: not found or not executable' > '/tmp/v/ddp-clean/env/commands/5-python3/start.error'; exit 127; fi
exec '/opt/torch/.venv/bin/python3' '-c' 'import json, sys
out = {'\''python'\'': sys.version.split()[0], '\''executable'\'': sys.executable}
try:
    import torch
    out['\''torch'\''] = torch.__version__
    out['\''cuda'\''] = torch.version.cuda
    out['\''cudnn'\''] = str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None
    out['\''cuda_available'\''] = torch.cuda.is_available()
    cfg = torch.__config__.show()
    out['\''dsa'\''] = '\''TORCH_USE_CUDA_DSA'\'' in cfg
except Exception as e:
    out['\''error'\''] = repr(e)
print('\''GPU_SANITIZE_PROBE '\'' + json.dumps(out))'
