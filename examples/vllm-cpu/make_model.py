"""Makes the vLLM CPU example's model without a model hub.

A Llama of about 85M parameters with random (seeded) weights, and a byte-level BPE tokenizer
trained here on generated text. Its answers are noise, but its speed is that of a real
transformer of that size, which is what a serving study measures.

    python make_model.py OUT_DIR
"""

import random
import sys
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

VOCAB = 8000
WORDS = (
    "engine batch token cache prefill decode request latency throughput memory tensor parallel "
    "expert attention kernel queue stream prompt model serve bench stage variant profile page "
    "guide study winner baseline optimized scheduler replica node cluster chunk block graph"
).split()


SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["th", "st", "qu", "ng", "sh"]


def corpus(lines: int, seed: int):
    """Sentences of the serving vocabulary above mixed with made-up words, so that the
    tokenizer learns a vocabulary of the full size."""
    rng = random.Random(seed)
    for _ in range(lines):
        words = []
        for _ in range(rng.randint(5, 40)):
            if rng.random() < 0.4:
                w = rng.choice(WORDS)
            else:
                w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4)))
            if rng.random() < 0.2:
                w += str(rng.randint(0, 999))
            if rng.random() < 0.1:
                w = w.capitalize()
            words.append(w)
        yield " ".join(words) + rng.choice([".", ",", "?", "!", ";"])


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<s>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus(20000, 1), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    fast.save_pretrained(out)

    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=768,
        intermediate_size=4096,
        num_hidden_layers=6,
        num_attention_heads=12,
        num_key_value_heads=12,
        max_position_embeddings=2048,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        torch_dtype="bfloat16",
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(out)
    print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_model.py OUT_DIR")
    main(Path(sys.argv[1]))
