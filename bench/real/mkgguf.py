#!/usr/bin/env python3
"""Write a llama-architecture GGUF model with random weights.

The tokenizer is copied from a vocab-only GGUF (llama.cpp ships
models/ggml-vocab-llama-spm.gguf), so the model loads and generates, but
what it generates is word salad: what a broken checkpoint looks like.

    PYTHONPATH=LLAMA_SRC/gguf-py mkgguf.py VOCAB.gguf OUT.gguf tiny|big|nan [ARCH]

ARCH (default llama) names the architecture in the file; any other name
makes a model that no llama.cpp build knows.
"""

import sys

import numpy as np

import gguf

SIZES = {
    # About 3 MB with F32: loads in a fraction of a second.
    "tiny": dict(n_embd=64, n_layer=2, n_head=4, n_ff=128, ctx=2048, dtype=np.float32),
    # About 1.1 GB with F16: a second or more to read with --no-mmap.
    "big": dict(n_embd=2048, n_layer=8, n_head=16, n_ff=5632, ctx=4096, dtype=np.float16),
    # tiny whose last norm is NaN: every logit and embedding is NaN, as
    # with a checkpoint whose numbers overflowed.
    "nan": dict(n_embd=64, n_layer=2, n_head=4, n_ff=128, ctx=2048, dtype=np.float32, nan=True),
}


def main() -> int:
    if len(sys.argv) not in (4, 5) or sys.argv[3] not in SIZES:
        print("usage: mkgguf.py VOCAB.gguf OUT.gguf tiny|big|nan [ARCH]", file=sys.stderr)
        return 2
    vocab_path, out, size = sys.argv[1:4]
    arch = sys.argv[4] if len(sys.argv) == 5 else "llama"
    s = SIZES[size]
    reader = gguf.GGUFReader(vocab_path)
    tokens = reader.fields["tokenizer.ggml.tokens"]
    n_vocab = len(tokens.data)

    w = gguf.GGUFWriter(out, arch)
    w.add_name("vigil-random-" + size)
    w.add_context_length(s["ctx"])
    w.add_embedding_length(s["n_embd"])
    w.add_block_count(s["n_layer"])
    w.add_feed_forward_length(s["n_ff"])
    w.add_head_count(s["n_head"])
    w.add_head_count_kv(s["n_head"])
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(s["n_embd"] // s["n_head"])
    w.add_file_type(1 if s["dtype"] == np.float16 else 0)
    copy_tokenizer(reader, w)

    rng = np.random.default_rng(7)
    # One random block tiled over every tensor: random enough to make word
    # salad, and a 1 GB model is written in seconds.
    block = (rng.standard_normal(1 << 20) * 0.02).astype(s["dtype"])

    def rand(*shape):
        n = int(np.prod(shape))
        return np.resize(block, n).reshape(shape)

    def ones(n):
        return np.ones(n, dtype=np.float32)

    e, f = s["n_embd"], s["n_ff"]
    w.add_tensor("token_embd.weight", rand(n_vocab, e))
    w.add_tensor("output_norm.weight", ones(e) * np.float32("nan") if s.get("nan") else ones(e))
    w.add_tensor("output.weight", rand(n_vocab, e))
    for i in range(s["n_layer"]):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones(e))
        for t in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + t + ".weight", rand(e, e))
        w.add_tensor(p + "ffn_norm.weight", ones(e))
        w.add_tensor(p + "ffn_gate.weight", rand(f, e))
        w.add_tensor(p + "ffn_up.weight", rand(f, e))
        w.add_tensor(p + "ffn_down.weight", rand(e, f))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return 0


def copy_tokenizer(reader, w):
    for name, field in reader.fields.items():
        if not name.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            sub = field.types[-1]
            if sub == gguf.GGUFValueType.STRING:
                val = [bytes(field.parts[i]).decode("utf-8", "surrogateescape") for i in field.data]
            else:
                val = [field.parts[i].tolist()[0] for i in field.data]
            w.add_key_value(name, val, vtype, sub_type=sub)
        elif vtype == gguf.GGUFValueType.STRING:
            w.add_key_value(name, bytes(field.parts[field.data[0]]).decode("utf-8"), vtype)
        else:
            w.add_key_value(name, field.parts[field.data[0]].tolist()[0], vtype)


if __name__ == "__main__":
    sys.exit(main())
