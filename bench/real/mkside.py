#!/usr/bin/env python3
"""Write the side files a llama-server start may be given, made wrong on
purpose: a LoRA adapter of another architecture (--lora) and a multimodal
projector of a type no build knows (--mmproj).

    PYTHONPATH=LLAMA_SRC/gguf-py mkside.py lora|mmproj OUT.gguf
"""

import sys

import numpy as np

import gguf


def lora(path: str) -> None:
    # src/llama-adapter.cpp checks general.type, then the architecture
    # against the base model's (llama): gpt2 does not match.
    w = gguf.GGUFWriter(path, "gpt2")
    w.add_type("adapter")
    w.add_string("adapter.type", "lora")
    w.add_float32("adapter.lora.alpha", 16.0)
    w.add_tensor("blk.0.attn_q.weight.lora_a", np.zeros((4, 64), dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight.lora_b", np.zeros((64, 4), dtype=np.float32))
    write(w)


def mmproj(path: str) -> None:
    # tools/mtmd/clip.cpp load_hparams reads the projector type first.
    w = gguf.GGUFWriter(path, "clip")
    w.add_string("clip.projector_type", "nosuch_merger")
    w.add_bool("clip.has_vision_encoder", True)
    w.add_tensor("v.patch_embd.weight", np.zeros((4, 4), dtype=np.float32))
    write(w)


def write(w: "gguf.GGUFWriter") -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main() -> int:
    kinds = {"lora": lora, "mmproj": mmproj}
    if len(sys.argv) != 3 or sys.argv[1] not in kinds:
        print("usage: mkside.py lora|mmproj OUT.gguf", file=sys.stderr)
        return 2
    kinds[sys.argv[1]](sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
