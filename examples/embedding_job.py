"""Example job for GPU Sanitizer: a small causal language model with planted index bugs.

HF-style: token embedding (nn.Embedding(vocab, dim)) + learned positions, one
nn.TransformerEncoderLayer with a causal mask, and an LM head; next-token cross entropy over
synthetic token sequences.

  --bug none    clean job
  --bug oov     from --bug-step on, one input token id equals the vocabulary size (an
                off-by-one tokenizer that adds an EOS id it never reserved): a device-side assert
                in the embedding lookup (index_select)
  --bug label   from --bug-step on, one target equals the number of classes (vocab): the device
                assert `t >= 0 && t < n_classes` in F.cross_entropy (nll_loss)

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class TokenStream(torch.utils.data.Dataset):
    """Synthetic token sequences with a learnable pattern (next token = (token * 3 + 1) mod vocab, noisy)."""

    def __init__(self, n, seq, vocab, seed=0):
        g = torch.Generator().manual_seed(seed)
        first = torch.randint(0, vocab, (n, 1), generator=g)
        toks = [first]
        for _ in range(seq):
            nxt = (toks[-1] * 3 + 1) % vocab
            noise = torch.rand(n, 1, generator=g) < 0.1
            toks.append(torch.where(noise, torch.randint(0, vocab, (n, 1), generator=g), nxt))
        self.data = torch.cat(toks, 1)

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, i):
        return self.data[i, :-1], self.data[i, 1:]


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, dim=128, heads=4, seq=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.block = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("causal", torch.triu(torch.full((seq, seq), float("-inf")), 1), persistent=False)

    def forward(self, ids):
        T = ids.shape[1]
        h = self.tok(ids) + self.pos(torch.arange(T, device=ids.device))
        h = self.block(h, src_mask=self.causal[:T, :T])
        return self.lm_head(self.norm(h))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "oov", "label"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--seq", type=int, default=64)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    data = TokenStream(4096, args.seq, args.vocab)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, shuffle=True, drop_last=True, num_workers=1)
    model = TinyLM(args.vocab, seq=args.seq).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    step = 0
    start = time.time()
    while step < args.steps:
        for ids, targets in loader:
            ids, targets = ids.to(device), targets.to(device)
            if step >= args.bug_step and args.bug == "oov":
                ids[0, -1] = args.vocab  # bug: an id the embedding does not have
            if step >= args.bug_step and args.bug == "label":
                targets[0, -1] = args.vocab  # bug: a class the head does not have
            logits = model(ids)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if step % 10 == 0:
                rate = step / max(time.time() - start, 1e-9)
                print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
            step += 1
            if step >= args.steps:
                break
    torch.cuda.synchronize()
    print(f"done {step} steps", flush=True)


if __name__ == "__main__":
    main()
